"""create_prim_func details that follow TVM: zero-dim outputs, layout-free intermediates."""

import numpy as np

import ember
from ember import te


def test_zero_dim_output_gets_a_unit_iterator():
    a = te.placeholder((), name="a", dtype="int32")
    b = te.placeholder((), name="b", dtype="int32")
    c = te.compute((), lambda: a() + b(), name="c")
    func = te.create_prim_func([a, b, c])
    realize = func.body.block.body
    assert [int(v) for v in realize.iter_values] == [0]
    assert int(realize.block.iter_vars[0].dom.extent) == 1
    mod = ember.build(func, "llvm")
    x, y, z = (ember.nd.array(np.array(v, dtype="int32")) for v in (3, 4, 0))
    mod(x, y, z)
    assert int(z.numpy()) == 7


def test_layout_free_intermediate_stays_on_its_block():
    k = te.reduce_axis((0, 8), "k")
    A = te.placeholder((8, 8), name="A")
    B = te.placeholder((8, 8), name="B")
    C = te.compute((8, 8), lambda x, y: te.sum(A[x, k] * B[y, k], axis=k), name="C",
                   attrs={"layout_free_placeholders": [B]})
    D = te.compute((8, 8), lambda x, y: C[x, y] + 1, name="D", attrs={"layout_free_placeholders": [C]})
    func = te.create_prim_func([A, B, D])
    assert list(func.attrs["layout_free_buffers"]) == [1]
    from ember.tir import Block
    from ember.tir.functor import collect

    blocks = {b.name_hint: b for b in collect(func.body, lambda n: isinstance(n, Block))}
    block_c, block_d = blocks["C"], blocks["D"]
    assert "layout_free_placeholders" not in block_c.annotations  # B is a parameter
    (marked,) = block_d.annotations["layout_free_placeholders"]
    assert marked is func.body.block.alloc_buffers[0]
