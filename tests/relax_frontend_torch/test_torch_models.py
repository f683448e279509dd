"""Whole models built in plain PyTorch (random weights) go through torch.export →
from_exported_program → relax.build → VirtualMachine and match PyTorch (rtol 1e-4, fp32);
BERT and GPT-2 run at two batch/sequence sizes from one compiled module.

The default tests use the smallest model that still has every feature the test is about
(one block per ResNet stage, one transformer layer, one LSTM layer, …) so CI stays short;
the ``slow`` tests run the full layouts (ResNet-18's two blocks per stage, two-layer
encoders/decoders, the two-layer bidirectional LSTM)."""

import pytest
import torch

import torch_models as tm
from torch_check import check_module

D = torch.export.Dim


def _tokens(b, s, vocab=100):
    return torch.randint(0, vocab, (b, s))


def _resnet(**kw):
    check_module(tm.seeded(tm.ResNet, **kw), (torch.randn(1, 3, 16, 16),))


def test_resnet_style_cnn():
    """Stem, four stages with stride-2 downsampling shortcuts, global pool, fc (one block per stage)."""
    _resnet(width=4, blocks=1)


@pytest.mark.slow
def test_resnet18_style_cnn_full():
    _resnet(width=8, blocks=2)


def test_mobilenet_v2_style_cnn():
    """Inverted residuals with depthwise 3x3 at stride 1 (residual add) and stride 2, ReLU6."""
    check_module(tm.seeded(tm.MobileNetV2, settings=((1, 8, 1, 1), (6, 12, 2, 2))), (torch.randn(1, 3, 16, 16),))


@pytest.mark.slow
def test_mobilenet_v2_style_cnn_full():
    check_module(tm.seeded(tm.MobileNetV2), (torch.randn(1, 3, 16, 16),))


def _bert(layers):
    batch, seq = D("batch", max=8), D("seq", max=32)
    mask = torch.ones(2, 6, dtype=torch.int64)
    mask[1, 4:] = 0  # padding in the second sentence
    mask2 = torch.ones(3, 9, dtype=torch.int64)
    mask2[0, 7:] = 0
    mod = check_module(tm.seeded(tm.BertEncoder, layers=layers), (_tokens(2, 6), mask),
                       dynamic_shapes=({0: batch, 1: seq}, {0: batch, 1: seq}),
                       run_args=[(_tokens(3, 9), mask2)])
    bounds = mod["main"].attrs["tir_var_upper_bound"]
    assert sorted(bounds.values()) == [8, 32]


def test_bert_encoder_dynamic_batch_and_sequence():
    _bert(layers=1)


@pytest.mark.slow
def test_bert_encoder_two_layers_dynamic():
    _bert(layers=2)


def _gpt2(layers):
    batch, seq = D("batch", max=4), D("seq", max=15)
    check_module(tm.seeded(tm.GPT2, layers=layers, max_len=16), (_tokens(2, 5),),
                 dynamic_shapes=({0: batch, 1: seq},), run_args=[(_tokens(1, 7),)])


def test_gpt2_decoder_causal_mask_dynamic():
    _gpt2(layers=1)


@pytest.mark.slow
def test_gpt2_decoder_two_layers_dynamic():
    _gpt2(layers=2)


def test_lstm_tagger():
    """Bidirectional LSTM (unrolled by the decomposition) + log-softmax tag scores."""
    check_module(tm.seeded(tm.LSTMTagger, hidden=8, layers=1), (torch.randint(0, 50, (2, 3)),))


@pytest.mark.slow
def test_lstm_tagger_two_layers():
    check_module(tm.seeded(tm.LSTMTagger, hidden=8, layers=2), (torch.randint(0, 50, (2, 3)),))


def test_vit():
    check_module(tm.seeded(tm.ViT, layers=1), (torch.randn(2, 3, 16, 16),))


@pytest.mark.slow
def test_vit_two_layers():
    check_module(tm.seeded(tm.ViT, layers=2), (torch.randn(2, 3, 16, 16),))
