"""tir.analysis.detect_buffer_access_lca and calculate_allocated_bytes."""

import pytest

from ember import tir
from ember.ir import IRModule
from ember.script import tir as T
from ember.tir.analysis import calculate_allocated_bytes, detect_buffer_access_lca


@T.prim_func
def two_stage_with_reduction(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8, 8))
    S = T.alloc_buffer((4,), scope="local")
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i in range(8):
        for k in range(8):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(0)
                for t in range(4):
                    S[t] = B[vi, vk]
                C[vi] = C[vi] + S[0]


def test_lca_of_each_buffer():
    f = two_stage_with_reduction
    A, C = (f.buffer_map[p] for p in f.params)
    B, S = f.body.block.alloc_buffers
    lca = detect_buffer_access_lca(f)
    root = f.body.block
    loop_i = root.body.seq[1]
    block_c = loop_i.body.body.block
    assert lca[B] is root  # used by both stages
    assert lca[A] is root.body.seq[0].body.body.block
    assert lca[C] is loop_i  # a reduction output lives across the reduction loop k
    assert lca[S] is loop_i  # so does everything else the reduction block writes
    assert block_c.name_hint == "C"


def test_lca_at_function_root_is_none():
    buf = tir.decl_buffer((4,), "float32", name="A")
    h = tir.Var("a", "handle")
    f = tir.PrimFunc((h,), tir.BufferStore(buf, 1.0, [0]), None, {h: buf})
    assert detect_buffer_access_lca(f) == {buf: None}


def test_allocated_bytes_per_scope():
    sizes = calculate_allocated_bytes(two_stage_with_reduction)
    assert sizes == {"main": {"global": 8 * 8 * 4, "local": 4 * 4}}
    mod = IRModule({"f": two_stage_with_reduction})
    assert calculate_allocated_bytes(mod) == {"f": sizes["main"]}
    t = tir.transform
    lowered = t.LowerOpaqueBlock()(t.ConvertBlocksToOpaque()(t.LowerInitBlock()(mod)))
    assert calculate_allocated_bytes(lowered)["f"] == sizes["main"]


def test_bad_arguments():
    with pytest.raises(TypeError, match="PrimFunc or an IRModule"):
        calculate_allocated_bytes(3)
    with pytest.raises(TypeError, match="expected a PrimFunc"):
        detect_buffer_access_lca("f")
