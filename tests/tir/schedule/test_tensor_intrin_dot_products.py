"""Dot-product tensor intrinsics for Arm, AMDGPU, Hexagon and CUDA dp4a: the descriptions
compute what they claim (run on the CPU against numpy) and tensorize a matching block into
the target's intrinsic call."""

import numpy as np
import pytest

import ember
from ember import te, tir
from ember.tir.tensor_intrin.arm_cpu import (ARM_DOT_4x4_i8_NEON_INTRIN, ARM_DOT_4x4_i8_SDOT_INTRIN,
                                             DP4A_S8S8S32_INTRIN, DP4A_S8U8S32_INTRIN,
                                             DP4A_U8S8S32_INTRIN, DP4A_U8U8U32_INTRIN)
from ember.tir.tensor_intrin.hexagon import VDMPY_i16i16i32_INTRIN, VRMPY_u8u8i32_INTRIN
from ember.tir.tensor_intrin.rocm import AMDGPU_SDOT4_INTRIN

ROW_INTRINS = [  # name, lanes, k, A dtype, B dtype, the LLVM intrinsic the impl calls
    (ARM_DOT_4x4_i8_SDOT_INTRIN, 4, 4, "int8", "int8", "llvm.aarch64.neon.sdot.v4i32.v16i8"),
    (ARM_DOT_4x4_i8_NEON_INTRIN, 4, 4, "int8", "int8", "llvm.aarch64.neon.addp.v4i32"),
    (VRMPY_u8u8i32_INTRIN, 32, 4, "uint8", "uint8", "llvm.hexagon.V6.vrmpyubv.acc.128B"),
    (VDMPY_i16i16i32_INTRIN, 32, 2, "int16", "int16", "llvm.hexagon.V6.vdmpyhvsat.acc.128B"),
]
SCALAR_INTRINS = [  # name, A dtype, B dtype, C dtype, the call the impl makes
    (AMDGPU_SDOT4_INTRIN, "int8", "int8", "int32", "llvm.amdgcn.sdot4"),
    (DP4A_S8S8S32_INTRIN, "int8", "int8", "int32", "__dp4a"),
    (DP4A_S8U8S32_INTRIN, "int8", "uint8", "int32", "__dp4a"),
    (DP4A_U8S8S32_INTRIN, "uint8", "int8", "int32", "__dp4a"),
    (DP4A_U8U8U32_INTRIN, "uint8", "uint8", "uint32", "__dp4a"),
]


def _random(rng, shape, dtype):
    lo = 0 if dtype.startswith("u") else -8
    return rng.integers(lo, 8, shape).astype(dtype)


def _run_desc(desc, arrays):
    """Run an intrinsic's description (a plain loop nest) on the CPU."""
    func = desc.with_attr("global_symbol", "desc")
    args = [ember.nd.array(a) for a in arrays]
    ember.build(func, target="llvm")(*args)
    return args[-1].numpy()


@pytest.mark.parametrize("name, lanes, k, da, db, call", ROW_INTRINS)
def test_row_description_computes_c_plus_b_dot_a(name, lanes, k, da, db, call):
    rng = np.random.default_rng(1)
    a, b = _random(rng, (k,), da), _random(rng, (lanes, k), db)
    c = rng.integers(-100, 100, (lanes,)).astype("int32")
    got = _run_desc(tir.TensorIntrin.get(name).desc, [a, b, c.copy()])
    np.testing.assert_array_equal(got, c + b.astype("int32") @ a.astype("int32"))


@pytest.mark.parametrize("name, da, db, dc, call", SCALAR_INTRINS)
def test_scalar_description_computes_c_plus_a_dot_b(name, da, db, dc, call):
    rng = np.random.default_rng(2)
    a, b = _random(rng, (4,), da), _random(rng, (4,), db)
    c = np.array([7], dc)
    got = _run_desc(tir.TensorIntrin.get(name).desc, [a, b, c.copy()])
    np.testing.assert_array_equal(got, c + (a.astype(dc) * b.astype(dc)).sum(dtype=dc))


def _packed_matmul(lanes, k, da, db):
    X = te.placeholder((64, 64), name="X", dtype=da)
    W = te.placeholder((64, 64), name="W", dtype=db)
    r = te.reduce_axis((0, 64), name="k")
    C = te.compute((64, 64), lambda i, j: te.sum(X[i, r].astype("int32") * W[j, r].astype("int32"), axis=r),
                   name="compute")
    sch = tir.Schedule(te.create_prim_func([X, W, C]))
    block = sch.get_block("compute")
    sch.transform_layout(block, "W", lambda i, j: [i // lanes, j // k, i % lanes, j % k])
    _, j, kk = sch.get_loops(block)
    _, ji = sch.split(j, factors=[None, lanes])
    ko, _ = sch.split(kk, factors=[None, k])
    sch.reorder(ko, ji)
    sch.decompose_reduction(block, ko)
    return sch, ji


@pytest.mark.parametrize("name, lanes, k, da, db, call", ROW_INTRINS)
def test_row_intrinsic_tensorizes_a_packed_matmul(name, lanes, k, da, db, call):
    sch, ji = _packed_matmul(lanes, k, da, db)
    sch.tensorize(ji, name)
    assert call in sch.mod["main"].script()


@pytest.mark.parametrize("name, da, db, dc, call", SCALAR_INTRINS)
def test_scalar_intrinsic_tensorizes_a_4_wide_reduction(name, da, db, dc, call):
    X = te.placeholder((16, 64), name="X", dtype=da)
    W = te.placeholder((16, 64), name="W", dtype=db)
    r = te.reduce_axis((0, 64), name="k")
    C = te.compute((16, 16), lambda i, j: te.sum(X[i, r].astype(dc) * W[j, r].astype(dc), axis=r), name="C")
    sch = tir.Schedule(te.create_prim_func([X, W, C]))
    block = sch.get_block("C")
    _, _, kk = sch.get_loops(block)
    ko, ki = sch.split(kk, factors=[None, 4])
    sch.decompose_reduction(block, ko)
    sch.tensorize(ki, name)
    assert call in sch.mod["main"].script()


def test_row_intrinsic_refuses_the_wrong_lane_count():
    sch, ji = _packed_matmul(16, 4, "int8", "int8")
    with pytest.raises(tir.ScheduleError, match="does not match the description"):
        sch.tensorize(ji, ARM_DOT_4x4_i8_SDOT_INTRIN)


def test_the_implementations_root_annotations_reach_the_tensorized_block():
    from ember.ir import replace

    base = tir.TensorIntrin.get(DP4A_S8S8S32_INTRIN)
    root = base.impl.body
    annotated = replace(root, block=replace(root.block, annotations={"dp4a_note": 1}))
    tir.TensorIntrin.register("test_dp4a_annotated", base.desc, base.impl.with_body(annotated), override=True)
    X = te.placeholder((4, 8), name="X", dtype="int8")
    W = te.placeholder((4, 8), name="W", dtype="int8")
    r = te.reduce_axis((0, 8), name="k")
    C = te.compute((4, 4), lambda i, j: te.sum(X[i, r].astype("int32") * W[j, r].astype("int32"), axis=r), name="C")
    sch = tir.Schedule(te.create_prim_func([X, W, C]))
    block = sch.get_block("C")
    ko, ki = sch.split(sch.get_loops(block)[2], factors=[None, 4])
    sch.decompose_reduction(block, ko)
    sch.tensorize(ki, "test_dp4a_annotated")
    assert sch.get(sch.get_block("C_update_o")).annotations["dp4a_note"] == 1
