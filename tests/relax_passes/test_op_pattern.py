"""AnnotateTIROpPattern: the pattern each legalised kernel gets, and the opaque fallback."""

import pytest

from ember import relax, tir
from ember.relax import op as R
from ember.relax.transform import AnnotateTIROpPattern, LegalizeOps
from ember.relax.transform.annotate_tir_op_pattern import OpPatternKind, analyze_op_pattern
from ember.relax.struct_info import TensorStructInfo
from ember.script import tir as T

X = TensorStructInfo([2, 3, 4], "float32")
M = TensorStructInfo([3, 4], "float32")

CASES = [
    ("exp", lambda x: R.exp(x), [X], OpPatternKind.kElemWise),
    ("add same shape", lambda x, y: R.add(x, y), [X, X], OpPatternKind.kElemWise),
    # one operand read elementwise makes the block elementwise, as TVM's analysis counts it
    ("add broadcast", lambda x, y: R.add(x, y), [X, M], OpPatternKind.kElemWise),
    ("transpose", lambda x: R.permute_dims(x, [2, 0, 1]), [X], OpPatternKind.kInjective),
    ("pad", lambda x: R.nn.pad(x, [(0, 0), (1, 1), (0, 0)]), [X], OpPatternKind.kInjective),
    ("sum", lambda x: R.sum(x, axis=[1]), [X], OpPatternKind.kCommReduce),
    # a reduction followed by an injective block writing the output: TVM's kOutEWiseFusable
    ("argmax", lambda x: R.argmax(x, axis=1), [X], OpPatternKind.kOutEWiseFusable),
    ("softmax", lambda x: R.nn.softmax(x), [X], OpPatternKind.kOutEWiseFusable),
    ("matmul", lambda x, y: R.matmul(x, y), [M, TensorStructInfo([4, 5], "float32")],
     OpPatternKind.kOutEWiseFusable),
    ("conv2d", lambda x, w: R.nn.conv2d(x, w, padding=1), [TensorStructInfo([1, 2, 5, 5], "float32"),
                                                          TensorStructInfo([3, 2, 3, 3], "float32")],
     OpPatternKind.kOutEWiseFusable),
    # a window reduction (reduction variables mixed into other indices) fuses like conv
    ("max_pool2d", lambda x: R.nn.max_pool2d(x, pool_size=(2, 2)), [TensorStructInfo([1, 2, 4, 4], "float32")],
     OpPatternKind.kOutEWiseFusable),
    ("broadcast both", lambda x, y: R.add(x, y), [TensorStructInfo([3, 1], "float32"),
                                                   TensorStructInfo([1, 4], "float32")],
     OpPatternKind.kBroadcast),
]


@pytest.mark.parametrize("name,build,sinfos,kind", CASES, ids=[c[0] for c in CASES])
def test_pattern_of_legalized_kernel(name, build, sinfos, kind):
    params = [relax.Var(f"a{i}", s) for i, s in enumerate(sinfos)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(build(*params))
        bb.emit_func_output(out)
    mod = AnnotateTIROpPattern()(LegalizeOps()(bb.get()))
    (prim,) = [f for f in mod.functions.values() if isinstance(f, tir.PrimFunc)]
    assert prim.attrs["op_pattern"] == int(kind)


@T.prim_func
def store_outside_block(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
    for i in range(4):
        b[i] = a[i] * T.float32(2)


def test_loops_without_blocks_are_opaque():
    assert analyze_op_pattern(store_outside_block) == OpPatternKind.kOpaque


def test_existing_pattern_is_kept():
    func = store_outside_block.with_attr("op_pattern", 0)
    mod = AnnotateTIROpPattern()(_mod(func))
    assert mod["f"].attrs["op_pattern"] == 0
    assert AnnotateTIROpPattern()(mod) is mod


def _mod(func):
    from ember.ir import GlobalVar, IRModule

    return IRModule({GlobalVar("f"): func})


@T.prim_func
def reads_an_unrelated_index(a: T.Buffer((4, 4), "float32"), b: T.Buffer((4,), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("b"):
            vi, vj = T.axis.remap("SS", [i, j])
            b[vi] = a[vi, vj]


def test_spatial_block_reading_other_variables_is_opaque():
    assert analyze_op_pattern(reads_an_unrelated_index) == OpPatternKind.kOpaque
