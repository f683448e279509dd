"""relax.op.ccl (R.ccl.*): struct-info inference, attrs and errors, TVMScript round trip,
LegalizeOps to runtime.disco.* calls, and running them on the single-worker runtime."""

import numpy as np
import pytest

import ember as tvm
from ember import relax, tir
from ember.script import ir as I
from ember.script import relax as R


def _infer(call):
    return relax.BlockBuilder().normalize(call).struct_info


def _same(actual, expected):
    tvm.ir.assert_structural_equal(actual, expected)


def test_struct_info_static_and_symbolic():
    n = tir.Var("n", "int64")
    x = relax.Var("x", R.Tensor((6, n), "float16"))
    _same(_infer(relax.op.ccl.allreduce(x, "max")), relax.TensorStructInfo((6, n), "float16"))
    _same(_infer(relax.op.ccl.broadcast_from_worker0(x)), relax.TensorStructInfo((6, n), "float16"))
    _same(_infer(relax.op.ccl.allgather(x, 4)), relax.TensorStructInfo((24, n), "float16"))
    _same(_infer(relax.op.ccl.scatter_from_worker0(x, 3)), relax.TensorStructInfo((2, n), "float16"))
    y = relax.Var("y", R.Tensor((n, 8), "float16"))
    _same(_infer(relax.op.ccl.scatter_from_worker0(y, 4, axis=1)), relax.TensorStructInfo((n, 2), "float16"))
    _same(_infer(relax.op.ccl.scatter_from_worker0(y, 2)),
          relax.TensorStructInfo((tir.div(n, tir.IntImm("int64", 2)), 8), "float16"))


def test_attrs():
    x = relax.Var("x", R.Tensor((4,), "float32"))
    call = relax.op.ccl.allreduce(x, "avg", in_group=False)
    assert (call.attrs.op_type, call.attrs.in_group) == ("avg", False)
    call = relax.op.ccl.scatter_from_worker0(x, 2, axis=0)
    assert (call.attrs.num_workers, call.attrs.axis) == (2, 0)


def test_errors():
    x = relax.Var("x", R.Tensor((5, 4), "float32"))
    with pytest.raises(ValueError, match="op_type must be one of sum, prod, min, max, avg"):
        relax.op.ccl.allreduce(x, "mean")
    with pytest.raises(ValueError, match="num_workers must be a positive int"):
        relax.op.ccl.allgather(x, 0)
    with pytest.raises(ValueError, match="not divisible by num_workers 2"):
        _infer(relax.op.ccl.scatter_from_worker0(x, 2))
    with pytest.raises(ValueError, match="axis"):
        _infer(relax.op.ccl.scatter_from_worker0(x, 2, axis=3))


@I.ir_module
class Collectives:
    @R.function
    def main(x: R.Tensor((4, 6), "float32")):
        a = R.ccl.allreduce(x, "sum")
        b = R.ccl.allgather(a, 1)
        c = R.ccl.broadcast_from_worker0(b)
        d = R.ccl.scatter_from_worker0(c, num_workers=1, axis=1)
        return d


def test_print_and_parse_round_trip():
    text = Collectives.script()
    assert 'R.ccl.allreduce(x, op_type="sum", in_group=True)' in text
    assert "R.ccl.scatter_from_worker0(c, num_workers=1, axis=1)" in text
    _same(tvm.script.from_source(text), Collectives)


def test_legalize_calls_the_disco_functions():
    text = relax.transform.LegalizeOps()(Collectives).script()
    for name in ("allreduce", "allgather", "broadcast_from_worker0", "scatter_from_worker0"):
        assert f'R.call_dps_packed("runtime.disco.{name}"' in text
    assert "R.shape([0])" in text


def test_single_worker_run_matches_numpy():
    data = np.arange(24, dtype="float32").reshape(4, 6)
    vm = relax.VirtualMachine(tvm.compile(Collectives), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(data)).numpy(), data)


def test_single_worker_runtime_refuses_a_split_for_more_workers():
    scatter = tvm.get_global_func("runtime.disco.scatter_from_worker0")
    out = tvm.nd.empty([3], "float32")
    with pytest.raises(ValueError, match="split for 2 workers"):
        scatter(tvm.nd.array(np.zeros((2, 3), "float32")), False, out)
