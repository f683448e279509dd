"""VDevice: a virtual device (target, index, memory scope) that tensor struct info can name."""

import pytest

from ember import relax as rx
from ember.ir import VDevice, structural_equal


def test_vdevice_fields_and_equality():
    v = VDevice("llvm", 1, "global")
    assert v.target.kind.name == "llvm" and v.vdevice_id == 1 and v.memory_scope == "global"
    assert structural_equal(v, VDevice("llvm", 1))
    assert not structural_equal(v, VDevice("llvm", 0))


def test_vdevice_flows_through_inference():
    v = VDevice("llvm")
    x = rx.Var("x", rx.TensorStructInfo([2, 3], "float32", v))
    bb = rx.BlockBuilder()
    with bb.function("f", [x]):
        y = bb.emit(rx.op.exp(x))
        bb.emit_func_output(y)
    assert y.struct_info.vdevice is v


def test_vdevice_rejects_negative_index():
    with pytest.raises(ValueError, match="vdevice_id"):
        VDevice("llvm", -1)
