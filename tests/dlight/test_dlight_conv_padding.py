"""dlight.cpu.conv_padding through Conv2DNCHWc: a first layer's NCHW -> NCHW1c layout transform
is inlined into the padding copy, which runs as parallel rows of plain loops; the result
stays the convolution's for random shapes (against PyTorch)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, topi
from ember.dlight import cpu
from ember.dlight.cpu.common import lanes_for
from ember.target import Target
from ember.tir import Block, For, post_order_visit

torch = pytest.importorskip("torch")
TARGET = Target("llvm")
B = lanes_for(TARGET, 32)


def _first_layer(c, f, hw, k, stride):
    """NCHW input, its NCHW1c view (a layout transform block), conv, bias, ReLU: the kernel
    BlockedConvLayout makes of a network's first convolution."""
    x_t = te.placeholder((1, c, hw, hw), name="X")
    x1 = te.compute((1, c, hw, hw, 1), lambda n, ch, y, x, i: x_t[n, ch, y, x], name="layout_transform")
    w_t = te.placeholder((f // B, c, k, k, B), name="W")
    b_t = te.placeholder((1, f // B, 1, 1, B), name="Bias")
    conv = topi.nn.conv2d_nchwc(x1, w_t, (stride, stride), (k // 2,) * 4, (1, 1), "float32", False)
    y_t = topi.nn.relu(topi.add(conv, b_t))
    return te.create_prim_func([x_t, w_t, b_t, y_t])


def _blocks(func) -> dict:
    found: dict = {}
    post_order_visit(func.body, lambda n: found.setdefault(n.name_hint, n) if isinstance(n, Block) else None)
    return found


def _check(c, f, hw, k, stride, seed):
    sch = cpu.Conv2DNCHWc().apply(_first_layer(c, f, hw, k, stride), TARGET, False)
    assert sch is not None
    func = sch.mod["main"]
    names = _blocks(func)
    if k > 1:  # inlined into the padding copy (a 1x1 conv has none: it reads the view itself)
        assert "layout_transform" not in names
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, c, hw, hw)).astype("float32")
    w = rng.standard_normal((f, c, k, k)).astype("float32")
    b = rng.standard_normal((1, f, 1, 1)).astype("float32")
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=stride,
                                     padding=k // 2).numpy() + b
    ref = np.maximum(ref, 0)
    blocked = lambda a: np.ascontiguousarray(a.reshape(1, -1, B, *a.shape[2:]).transpose(0, 1, 3, 4, 2))  # noqa: E731
    wb = np.ascontiguousarray(w.reshape(f // B, B, c, k, k).transpose(0, 2, 3, 4, 1))
    out = np.zeros(blocked(ref).shape, "float32")
    ember.build(func, target="llvm")(x, wb, blocked(b), out)
    np.testing.assert_allclose(out, blocked(ref), rtol=1e-4, atol=1e-4)
    return func


def test_first_layer_padding_is_one_pass_of_row_loops():
    func = _check(3, 2 * B, 20, 3, 2, seed=0)
    loops: list = []
    post_order_visit(func.body, lambda n: loops.append(n) if isinstance(n, For) else None)
    pad_loops = [lp for lp in loops if "pad" in _loop_block(lp)]
    # rows (n, c, y fused) and the row's pixels: no loop over the whole image with a division
    assert sorted(int(lp.extent) for lp in pad_loops) == [22, 3 * 22]


def _loop_block(loop) -> str:
    names: list = []
    post_order_visit(loop.body, lambda n: names.append(n.name_hint) if isinstance(n, Block) else None)
    return names[0] if len(names) == 1 else ""


@settings(max_examples=8, deadline=None)
@given(c=st.integers(1, 4), fb=st.integers(1, 4), hw=st.integers(3, 19), k=st.sampled_from([1, 3, 5, 7]),
       stride=st.sampled_from([1, 2]))
def test_first_layer_random_shapes(c, fb, hw, k, stride):
    _check(c, fb * B, hw, k, stride, seed=c * hw)


def test_producer_with_another_consumer_is_kept():
    """A block the padding copy shares with another block stays a block of its own."""
    from ember.dlight.analysis import root_blocks
    from ember.dlight.cpu.conv_padding import inline_into_padding
    from ember.tir.schedule import Schedule

    x_t = te.placeholder((1, 3, 8, 8), name="X")
    x1 = te.compute((1, 3, 8, 8, 1), lambda n, ch, y, x, i: x_t[n, ch, y, x] * 2.0, name="scaled")
    w_t = te.placeholder((1, 3, 3, 3, B), name="W")
    conv = topi.nn.conv2d_nchwc(x1, w_t, (1, 1), (1,) * 4, (1, 1), "float32", False)
    y_t = te.compute(conv.shape, lambda n, f, y, x, i: conv[n, f, y, x, i] + x1[n, 0, y, x, 0], name="plus_input")
    sch = Schedule(te.create_prim_func([x_t, w_t, y_t]))
    blocks = root_blocks(sch)
    pos = next(n for n, b in enumerate(blocks) if b.is_reduction())
    blocks, _ = inline_into_padding(sch, blocks, pos)
    assert "scaled" in [b.name for b in blocks]
