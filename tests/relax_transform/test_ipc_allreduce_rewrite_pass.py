"""IPCAllReduceRewrite: sum-allreduces move their input's allocation to "ipc_memory" and call
runtime.disco.cuda_ipc.custom_allreduce, only while that function is registered."""

import pytest

import ember as tvm
from ember import relax
from ember.runtime.registry import register_func, remove_global_func
from ember.script import ir as I
from ember.script import relax as R
from ember.script import tir as T

CUSTOM = "runtime.disco.cuda_ipc.custom_allreduce"


@pytest.fixture
def custom_allreduce():
    register_func(CUSTOM, lambda x, strategy, out: None, override=True)
    yield
    remove_global_func(CUSTOM)


def _module(scope: str, kind: int):
    """An allreduce (reduction ``kind``) of a reshaped builtin allocation in ``scope``."""
    @I.ir_module
    class Module:
        @R.function(pure=False)
        def main(shape: R.Shape(["m", "n"])):
            m, n = T.int64(), T.int64()
            src = R.builtin.alloc_tensor(R.shape([m, n]), R.dtype("float32"), R.prim_value(0), R.str(scope))
            flat = R.reshape(src, R.shape([m * n]))
            dst = R.builtin.alloc_tensor(R.shape([m * n]), R.dtype("float32"), R.prim_value(0), R.str("global"))
            _ = R.call_packed("runtime.disco.allreduce", flat, R.shape([kind]), R.prim_value(True), dst,
                              sinfo_args=R.Object)
            return dst

    return Module


@I.ir_module
class Rewritten:
    @R.function(pure=False)
    def main(shape: R.Shape(["m", "n"])):
        m, n = T.int64(), T.int64()
        src = R.builtin.alloc_tensor(R.shape([m, n]), R.dtype("float32"), R.prim_value(0), R.str("ipc_memory"))
        flat = R.reshape(src, R.shape([m * n]))
        dst = R.builtin.alloc_tensor(R.shape([m * n]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _ = R.call_packed(CUSTOM, flat, R.prim_value(2), dst, sinfo_args=R.Object)
        return dst


def test_sum_allreduce_is_rewritten(custom_allreduce):
    after = relax.transform.IPCAllReduceRewrite(2)(_module("global", 0))
    tvm.ir.assert_structural_equal(after, Rewritten)


def test_other_reductions_are_left_alone(custom_allreduce):
    before = _module("global", 3)
    assert relax.transform.IPCAllReduceRewrite(2)(before) is before


def test_without_the_runtime_function_nothing_changes():
    before = _module("global", 0)
    assert relax.transform.IPCAllReduceRewrite(1)(before) is before


@I.ir_module
class PlannedAllreduce:
    @R.function(pure=False)
    def main(x: R.Tensor((8,), "float32")):
        storage = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        src = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        dst = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _ = R.call_packed("runtime.disco.allreduce", src, R.shape([0]), R.prim_value(False), dst,
                          sinfo_args=R.Object)
        return dst


@I.ir_module
class PlannedRewritten:
    @R.function(pure=False)
    def main(x: R.Tensor((8,), "float32")):
        storage = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("ipc_memory"), R.dtype("uint8"))
        src = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        dst = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0), R.str("global"))
        _ = R.call_packed(CUSTOM, src, R.prim_value(1), dst, sinfo_args=R.Object)
        return dst


def test_memory_alloc_storage_scope_is_rewritten(custom_allreduce):
    after = relax.transform.IPCAllReduceRewrite(1)(PlannedAllreduce)
    tvm.ir.assert_structural_equal(after, PlannedRewritten)
