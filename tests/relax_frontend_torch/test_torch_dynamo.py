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


def _graphs_captured() -> int:
    return torch._dynamo.utils.counters["stats"]["unique_graphs"]


def check_compiled(model, make_args):
    """torch.compile(model, backend="ember") matches eager; a second call with the same
    shapes (new values) is served from the cache: Dynamo captures no new graph and ember
    builds nothing."""
    compiled = torch.compile(model, backend="ember", dynamic=False)
    first, second = make_args(), make_args()
    with torch.no_grad():
        compiles, graphs = STATS["compiles"], _graphs_captured()
        compare(compiled(*first), model(*first))
        assert STATS["compiles"] > compiles
        compiles, graphs, hits = STATS["compiles"], _graphs_captured(), STATS["hits"]
        compare(compiled(*second), model(*second))
        assert STATS["compiles"] == compiles, "the second call with the same shapes recompiled"
        assert _graphs_captured() == graphs, "Dynamo captured a new graph on the second call"
        assert STATS["hits"] > hits
    return compiled


def _image(*shape):
    return lambda: (torch.randn(*shape),)


def _tokens(b, s, vocab=100, mask=False):
    def make():
        ids = torch.randint(0, vocab, (b, s))
        return (ids, torch.ones(b, s, dtype=torch.int64)) if mask else (ids,)

    return make


# the models of test_torch_models.py, at the same (small) sizes
MODELS = {
    "resnet": (lambda: tm.seeded(tm.ResNet, width=4, blocks=1), _image(1, 3, 16, 16)),
    "mobilenet_v2": (lambda: tm.seeded(tm.MobileNetV2, settings=((1, 8, 1, 1), (6, 12, 2, 2))),
                     _image(1, 3, 16, 16)),
    "bert": (lambda: tm.seeded(tm.BertEncoder, layers=1), _tokens(2, 6, mask=True)),
    "gpt2": (lambda: tm.seeded(tm.GPT2, layers=1, max_len=16), _tokens(2, 5)),
    "lstm_tagger": (lambda: tm.seeded(tm.LSTMTagger, hidden=8, layers=1), _tokens(2, 3, vocab=50)),
    "vit": (lambda: tm.seeded(tm.ViT, layers=1), _image(2, 3, 16, 16)),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_matches_eager_without_recompiling(name):
    make_model, make_args = MODELS[name]
    # Dynamo skips frames that run nn.LSTM/GRU (left to eager) unless allow_rnn is set
    with torch._dynamo.config.patch(allow_rnn=True):
        check_compiled(make_model(), make_args)


def test_new_shape_compiles_once_more():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh()).eval()
    compiled = check_compiled(model, _image(2, 4))
    before = STATS["compiles"]
    with torch.no_grad():
        x = torch.randn(5, 4)
        compare(compiled(x), model(x))
        assert STATS["compiles"] == before + 1
        compare(compiled(x * 2), model(x * 2))
        assert STATS["compiles"] == before + 1


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
