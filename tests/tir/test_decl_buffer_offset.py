"""tir.decl_buffer's element offset, as TVM: an explicit offset_factor without elem_offset
gives an offset Var named after the buffer; otherwise the offset is 0 (None)."""

from ember import tir
from ember.ir import Var


def test_offset_factor_gives_an_offset_var():
    buf = tir.decl_buffer([16, 8], "int32", name="W", scope="warp", offset_factor=1)
    assert isinstance(buf.elem_offset, Var)
    assert buf.elem_offset.name == "W_elem_offset" and buf.elem_offset.dtype == "int32"
    assert buf.offset_factor == 1
    wide = tir.decl_buffer([tir.IntImm("int64", 4)], name="L", offset_factor=16)
    assert wide.elem_offset.dtype == "int64" and wide.offset_factor == 16


def test_default_and_explicit_offsets():
    plain = tir.decl_buffer([4], "float32")
    assert plain.elem_offset is None and plain.offset_factor == 1
    fixed = tir.decl_buffer([4], "float32", elem_offset=8, offset_factor=4)
    assert fixed.elem_offset.value == 8 and fixed.offset_factor == 4


def test_mma_intrinsics_take_the_offset_var():
    warp = tir.decl_buffer([16, 8], "int32", scope="warp", offset_factor=1)
    assert tir.mma_fill("int32", 8, warp.data, warp.elem_offset).op.name == "tir.mma_fill"
