"""Real networks through from_onnx: ONNX's packaged light CNNs (random weights, logits
before the final Softmax) and a BERT-style encoder exported from PyTorch with dynamic
batch and sequence axes, each compared with ONNX Runtime."""

import numpy as np
import onnx
import pytest
from onnx_helpers import run_ort
from onnx_models_helpers import input_feed, light_model

import ember
from ember import relax
from ember.relax.frontend.onnx import from_onnx

SLOW_CNNS = ["resnet50", "densenet121", "inception_v1", "inception_v2", "shufflenet", "vgg19",
             "zfnet512", "bvlc_alexnet"]


def _check_cnn(name: str) -> None:
    model = light_model(name)
    feeds = input_feed(model)
    ex = relax.build(from_onnx(model), "llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    got = vm["main"](*[ember.nd.array(v) for v in feeds.values()]).numpy()
    expected = run_ort(model, feeds)[0]
    scale = max(np.abs(expected).max(), 1.0)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * scale)


def test_squeezenet_matches_onnxruntime():
    _check_cnn("squeezenet")


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_CNNS)
def test_light_cnn_matches_onnxruntime(name):
    _check_cnn(name)


def bert_encoder_onnx(path: str) -> None:
    """Export a 2-layer BERT-style encoder (embeddings, multi-head attention with a padding
    mask, LayerNorm, GELU feed-forward) with dynamic batch and sequence axes."""
    import math

    import torch

    class Layer(torch.nn.Module):
        def __init__(self, d=64, heads=4):
            super().__init__()
            self.heads = heads
            self.qkv, self.out = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
            self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
            self.ff1, self.ff2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

        def forward(self, x, mask):
            b, n, d = x.shape
            q, k, v = self.qkv(x).chunk(3, dim=-1)

            def heads(t):
                return t.reshape(b, n, self.heads, d // self.heads).transpose(1, 2)

            q, k, v = heads(q), heads(k), heads(v)
            att = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.heads) + mask
            y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d)
            x = self.ln1(x + self.out(y))
            return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))

    class Encoder(torch.nn.Module):
        def __init__(self, vocab=100, d=64):
            super().__init__()
            self.tok, self.pos = torch.nn.Embedding(vocab, d), torch.nn.Embedding(128, d)
            self.layers = torch.nn.ModuleList([Layer(d), Layer(d)])

        def forward(self, ids, attention):
            x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]).unsqueeze(0))
            mask = (1.0 - attention[:, None, None, :].float()) * -10000.0
            for layer in self.layers:
                x = layer(x, mask)
            return x

    torch.manual_seed(0)
    ids = torch.randint(0, 100, (2, 16))
    axes = {0: "batch", 1: "seq"}
    with _quiet():
        torch.onnx.export(Encoder().eval(), (ids, torch.ones_like(ids)), path, opset_version=17,
                          input_names=["input_ids", "attention_mask"], output_names=["hidden"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "hidden": axes},
                          dynamo=False)


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


def test_bert_encoder_dynamic_axes(tmp_path):
    pytest.importorskip("torch")
    path = str(tmp_path / "bert.onnx")
    bert_encoder_onnx(path)
    model = onnx.load(path)
    mod = from_onnx(model)
    ids, att = mod["main"].params
    assert "batch" in str(ids.struct_info) and "seq" in str(ids.struct_info)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
    rng = np.random.default_rng(0)
    for batch, seq in ((2, 16), (1, 9)):
        mask = np.ones((batch, seq), "int64")
        mask[:, seq - 2:] = 0
        feeds = {"input_ids": rng.integers(0, 100, (batch, seq)).astype("int64"), "attention_mask": mask}
        got = vm["main"](*[ember.nd.array(v) for v in feeds.values()]).numpy()
        np.testing.assert_allclose(got, run_ort(model, feeds)[0], rtol=1e-4, atol=1e-4)
