"""lower_for_codegen and check_lowered: the lowered-TIR contract end to end."""

import pytest
from tir_lower_builders import (
    as_mod, assert_same_results, block_elementwise_2d, elementwise_1d, func_of, loop, matmul_add,
)

from ember import te, tir
from ember.ir import const
from ember.tir import BufferStore, DeclBuffer, Evaluate, ForKind, Var, decl_buffer
from ember.tir import transform as T
from ember.tir.analysis import verify_well_formed
from ember.transform import PassContext


def _softmax_like():
    A = te.placeholder((4, 16), name="A")
    k = te.reduce_axis((0, 16), name="k")
    mx = te.compute((4,), lambda i: te.max(A[i, k], axis=k), name="mx")
    e = te.compute((4, 16), lambda i, j: te.exp(A[i, j] - mx[i]), name="e")
    k2 = te.reduce_axis((0, 16), name="k2")
    s = te.compute((4,), lambda i: te.sum(e[i, k2], axis=k2), name="s")
    out = te.compute((4, 16), lambda i, j: e[i, j] / s[i] + te.sigmoid(A[i, j]), name="out")
    return te.create_prim_func([A, out])


@pytest.mark.parametrize("make", [matmul_add, _softmax_like, block_elementwise_2d, lambda: elementwise_1d(16)])
def test_pipeline_output_is_lowered_well_formed_and_equivalent(make):
    func = make()
    mod = T.lower_for_codegen(as_mod(func), verify=True)
    T.check_lowered(mod)
    verify_well_formed(mod)
    assert mod["main"].buffer_map is func.buffer_map or mod["main"].buffer_map == func.buffer_map
    assert_same_results(func, mod["main"], rtol=1e-5, atol=1e-5)


def test_pipeline_accepts_a_prim_func_and_dumps_ir(capsys):
    mod = T.lower_for_codegen(elementwise_1d(8), dump_ir=True)
    printed = capsys.readouterr().out
    names = [p.info.name for p in T.lowering_passes()]
    for name in names:
        assert f"IR after {name}" in printed
    assert "main" in mod


def test_pipeline_dump_ir_from_env(capsys, monkeypatch):
    monkeypatch.setenv("EMBER_DUMP_IR", "1")
    T.lower_for_codegen(elementwise_1d(4))
    assert "IR after tir.FlattenBuffer" in capsys.readouterr().out


def test_pipeline_honours_disabled_passes():
    with PassContext(disabled_pass=["tir.VectorizeLoop"]):
        mod = T.lower_for_codegen(elementwise_1d(8))
    with pytest.raises(T.NotLoweredError, match="loop 'i' is still VECTORIZED; run VectorizeLoop"):
        T.check_lowered(mod)


def test_pipeline_rejects_bad_input():
    with pytest.raises(TypeError, match="expected an IRModule or PrimFunc for mod, got int"):
        T.lower_for_codegen(3)


def test_check_lowered_names_the_missing_pass():
    cases = [
        (block_elementwise_2d(), "block 'root' is still present; run LowerOpaqueBlock"),
        (T.lower_opaque_block(T.convert_blocks_to_opaque(block_elementwise_2d())),
         "buffer 'B' is accessed with 2 dimensions; run FlattenBuffer"),
        (elementwise_1d(8), "loop 'i' is still VECTORIZED; run VectorizeLoop"),
        (elementwise_1d(8, kind=ForKind.SERIAL, fn=lambda a, i: tir.sigmoid(a)),
         "intrinsic 'tir.sigmoid' is not in the codegen table; run LowerIntrin"),
    ]
    for func, message in cases:
        with pytest.raises(T.NotLoweredError, match=message):
            T.check_lowered(func)
    T0 = decl_buffer((4,), "float32", "T0")
    with pytest.raises(T.NotLoweredError, match="DeclBuffer of 'T0' is still present; run FlattenBuffer"):
        T.check_lowered(func_of([], DeclBuffer(T0, Evaluate(const(0)))))
    with pytest.raises(TypeError, match="expected a PrimFunc or IRModule for func_or_mod, got str"):
        T.check_lowered("main")


def test_check_lowered_accepts_lowered_module():
    A = decl_buffer((8,), "float32", "A")
    i = Var("i")
    func = func_of([A], loop(i, 8, BufferStore(A, tir.exp(A[i]), (i,)), ForKind.PARALLEL))
    T.check_lowered(as_mod(func))
