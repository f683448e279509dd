"""Whole models built in plain PyTorch (random weights) go through torch.export →
from_exported_program → relax.build → VirtualMachine and match PyTorch (rtol 1e-4, fp32);
BERT and GPT-2 run at two batch/sequence sizes from one compiled module."""

import pytest
import torch

import torch_models as tm
from torch_check import check_module


def test_resnet18_style_cnn():
    check_module(tm.seeded(tm.ResNet, width=4), (torch.randn(1, 3, 16, 16),))


def test_mobilenet_v2_style_cnn():
    check_module(tm.seeded(tm.MobileNetV2), (torch.randn(1, 3, 16, 16),))


def _tokens(b, s, vocab=100):
    return torch.randint(0, vocab, (b, s))


def test_bert_encoder_dynamic_batch_and_sequence():
    batch, seq = torch.export.Dim("batch", max=8), torch.export.Dim("seq", max=32)
    mask = torch.ones(2, 6, dtype=torch.int64)
    mask[1, 4:] = 0  # padding in the second sentence
    mod = check_module(tm.seeded(tm.BertEncoder), (_tokens(2, 6), mask),
                       dynamic_shapes=({0: batch, 1: seq}, {0: batch, 1: seq}),
                       run_args=[(_tokens(3, 9), torch.ones(3, 9, dtype=torch.int64))])
    bounds = mod["main"].attrs["tir_var_upper_bound"]
    assert sorted(bounds.values()) == [8, 32]


def test_gpt2_decoder_causal_mask_dynamic():
    batch, seq = torch.export.Dim("batch", max=4), torch.export.Dim("seq", max=15)
    check_module(tm.seeded(tm.GPT2, max_len=16), (_tokens(2, 5),), dynamic_shapes=({0: batch, 1: seq},),
                 run_args=[(_tokens(1, 7),)])


def test_lstm_tagger():
    check_module(tm.seeded(tm.LSTMTagger, hidden=8), (torch.randint(0, 50, (2, 3)),))


def test_vit():
    check_module(tm.seeded(tm.ViT, layers=1), (torch.randn(2, 3, 16, 16),))


@pytest.mark.slow
def test_resnet18_style_cnn_full_width():
    check_module(tm.seeded(tm.ResNet, width=16), (torch.randn(2, 3, 32, 32),))
