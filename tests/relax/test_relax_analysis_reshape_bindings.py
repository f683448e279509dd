"""relax.analysis.has_reshape_pattern, name_to_binding and udchain."""

import pytest

from ember import relax, te
from ember.relax.analysis import has_reshape_pattern, name_to_binding, udchain


def _prim(fcompute_builder):
    return te.create_prim_func(list(fcompute_builder()))


def test_reshape_and_expand_dims_are_reshape_patterns():
    a = te.placeholder((2, 3, 4), name="A")
    r = te.compute((6, 4), lambda i, j: a[(i * 4 + j) // 12, (i * 4 + j) % 12 // 4, (i * 4 + j) % 4], name="R")
    assert has_reshape_pattern(te.create_prim_func([a, r]))
    e = te.compute((2, 1, 3, 4), lambda i, o, j, k: a[i, j, k], name="E")
    assert has_reshape_pattern(te.create_prim_func([a, e]))


def test_transpose_arithmetic_and_reduction_are_rejected():
    a = te.placeholder((4, 4), name="A")
    t = te.compute((4, 4), lambda i, j: a[j, i], name="T")
    assert not has_reshape_pattern(te.create_prim_func([a, t]))
    p = te.compute((4, 4), lambda i, j: a[i, j] + 1.0, name="P")
    assert not has_reshape_pattern(te.create_prim_func([a, p]))
    k = te.reduce_axis((0, 4), name="k")
    s = te.compute((4,), lambda i: te.sum(a[i, k], axis=k), name="S")
    assert not has_reshape_pattern(te.create_prim_func([a, s]))


def test_name_to_binding_and_udchain():
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [x]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.add(x, x), name_hint="lv0")
            lv1 = bb.emit(relax.op.multiply(lv0, x), name_hint="lv1")
            gv = bb.emit_output(lv1)
        bb.emit_func_output(gv)
    func = bb.get()["f"]
    names = name_to_binding(func)
    assert len(names["lv0"]) == 1 and names["lv0"][0].var is lv0
    chain = udchain(func.body.blocks[0])
    assert set(chain[x]) == {lv0, lv1} and chain[lv0] == [lv1] and chain[gv] == []
    with pytest.raises(TypeError, match="name_to_binding: func must be a relax.Function"):
        name_to_binding(x)
    with pytest.raises(TypeError, match="udchain: dfb must be a binding block"):
        udchain(func)
