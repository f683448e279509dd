"""relax.analysis.estimate_memory_usage: the report before/after static memory planning."""

import pytest

from ember import relax
from ember.relax.analysis import estimate_memory_usage
from ember.relax.transform import LegalizeOps


def _chain(n_ops, shape=(2, 4)):
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            v = x
            for k in range(n_ops):
                v = bb.emit(relax.op.exp(v) if k % 2 == 0 else relax.op.sqrt(v))
            gv = bb.emit_output(v)
        bb.emit_func_output(gv)
    return LegalizeOps()(bb.get())


def test_chain_of_four_plans_into_two_storages_and_the_output():
    report = estimate_memory_usage(_chain(4))
    # 4 tensors of 32 bytes unplanned; planned: 2 reused storages + the output tensor
    assert report == (
        "Memory usage estimation:\n"
        "- Function main:\n"
        f" * Without memory planning, there are 4 constant-size memory allocation(s) with total size "
        f"{128 / 2**30:.4} GB.\n"
        f" * With memory planning, there are 3 constant-size memory allocation(s) with total size "
        f"{96 / 2**30:.4} GB.\n"
        " * Memory planning reduces constant memory size to 75.0%.\n"
    )


def test_symbolic_sizes_are_reported_apart():
    from ember import tir

    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo((n,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.exp(x))
            gv = bb.emit_output(relax.op.sqrt(a))
        bb.emit_func_output(gv)
    report = estimate_memory_usage(LegalizeOps()(bb.get()))
    assert "There are 2 memory allocation(s) of symbolic size before planning" in report


def test_bad_input_is_reported():
    with pytest.raises(TypeError, match="estimate_memory_usage: mod must be an IRModule or relax.Function"):
        estimate_memory_usage(3)


def test_memory_ops_and_call_packed_parse_print_and_estimate():
    from ember.ir import assert_structural_equal
    from ember.script import from_source
    from ember.script import ir as I
    from ember.script import relax as R
    from ember.script import tir as T

    text = '''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        s: R.Object = R.memory.alloc_storage(R.shape([32]), virtual_device_index=0, storage_scope="global",
                                             dtype="float32")
        a: R.Tensor((2, 4), dtype="float32") = R.memory.alloc_tensor(s, offset=0, shape=R.shape([2, 4]),
                                                                     dtype="float32")
        y: R.Tensor((8,), dtype="float32") = R.call_packed("vm.builtin.reshape", a, R.shape([8]),
                                                           sinfo_args=[R.Tensor((8,), dtype="float32")])
        o: R.Tensor((8,), dtype="float32") = R.builtin.alloc_tensor(R.shape([8]), dtype="float32",
                                                                    runtime_device_index=0)
        _: R.Tuple() = R.memory.kill_tensor(a)
        return o
'''
    names = {"R": R, "I": I, "T": T}
    mod = from_source(text, names)
    printed = mod.script()
    assert 'R.call_packed("vm.builtin.reshape", a, R.shape([8])' in printed
    assert_structural_equal(mod, from_source(printed, names))
    report = estimate_memory_usage(mod)
    assert "Without memory planning, there are 2 constant-size memory allocation(s)" in report
    assert f"With memory planning, there are 2 constant-size memory allocation(s) with total size {64 / 2**30:.4} GB" in report
