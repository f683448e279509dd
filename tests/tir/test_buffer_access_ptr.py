"""Buffer.access_ptr and Buffer.get_flattened_buffer."""

import pytest

from ember import tir
from ember.ir import structural_equal


def test_access_ptr_fields():
    m, n = tir.Var("m", "int32"), tir.Var("n", "int32")
    buf = tir.decl_buffer((m, n), "float32")
    ptr = buf.access_ptr("rw")
    assert ptr.op.name == "tir.tvm_access_ptr" and ptr.args[0].dtype == "float32"
    assert ptr.args[1] is buf.data and int(ptr.args[2]) == 0
    assert structural_equal(ptr.args[3], m * n)
    assert int(ptr.args[4]) == tir.Buffer.READ | tir.Buffer.WRITE
    ptr = buf.access_ptr("w", offset=10, extent=5)
    assert int(ptr.args[2]) == 10 and int(ptr.args[3]) == 5 and int(ptr.args[4]) == tir.Buffer.WRITE
    with pytest.raises(ValueError, match="access_mask"):
        buf.access_ptr("x")


def test_flattened_buffer():
    buf = tir.decl_buffer((4, 16, 32), "float32", axis_separators=[2])
    flat = buf.get_flattened_buffer()
    assert flat.data is buf.data
    assert [int(d) for d in flat.shape] == [64, 32] and [int(a) for a in flat.axis_separators] == [1]
    one_d = tir.decl_buffer((16,), "float32")
    assert one_d.get_flattened_buffer() is one_d
