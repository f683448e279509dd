"""torch.compile(model, backend="ember"): results match eager PyTorch, a second call with
the same shapes reuses the compiled graph, a new shape compiles once more, and a graph
with operators ember cannot import runs eagerly after one warning naming them."""

import warnings

import pytest
import torch

import torch_models as tm
from torch_check import compare

import ember.relax.frontend.torch as ember_torch
from ember.relax.frontend.torch.dynamo import STATS


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_backend_is_registered_under_its_names():
    from torch._dynamo.backends.registry import list_backends

    assert "ember" in list_backends(exclude_tags=())
    assert callable(ember_torch.dynamo_backend)
    assert callable(ember_torch.relax_dynamo())


def test_mobilenet_matches_eager_and_caches_per_shape():
    model = tm.seeded(tm.MobileNetV2)
    compiled = torch.compile(model, backend="ember", dynamic=False)
    x = torch.randn(1, 3, 16, 16)
    with torch.no_grad():
        before = dict(STATS)
        compare(compiled(x), model(x))
        assert STATS["compiles"] == before["compiles"] + 1
        compare(compiled(x + 1), model(x + 1))  # same shapes: served from the cache
        assert STATS["compiles"] == before["compiles"] + 1
        assert STATS["hits"] >= before["hits"] + 1


def test_bert_matches_eager():
    model = tm.seeded(tm.BertEncoder, layers=1)
    ids = torch.randint(0, 100, (2, 6))
    mask = torch.ones(2, 6, dtype=torch.int64)
    compiled = torch.compile(model, backend="ember", dynamic=False)
    with torch.no_grad():
        compare(compiled(ids, mask), model(ids, mask))


def test_graph_with_unsupported_op_falls_back_to_eager_with_one_warning():
    def fn(x, edges):
        return torch.bucketize(x, edges) + 1

    compiled = torch.compile(fn, backend="ember", dynamic=False)
    x, edges = torch.randn(8), torch.tensor([-1.0, 0.0, 1.0])
    before = STATS["fallbacks"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = compiled(x, edges)
        out2 = compiled(x, edges)
    compare([out, out2], [fn(x, edges)] * 2)
    messages = [str(w.message) for w in caught if "aten.bucketize" in str(w.message)]
    assert len(messages) == 1
    assert "eager" in messages[0]
    assert STATS["fallbacks"] == before + 1


def test_weights_are_baked_and_in_place_updates_recompile():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
    compiled = torch.compile(model, backend="ember", dynamic=False)
    x = torch.randn(2, 4)
    with torch.no_grad():
        compare(compiled(x), model(x))
        before = STATS["compiles"]
        model[0].weight.mul_(-2.0)  # in place: bumps the tensor's version
        compare(compiled(x), model(x))
        assert STATS["compiles"] == before + 1
