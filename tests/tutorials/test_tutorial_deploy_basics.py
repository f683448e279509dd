"""Tutorial odds and ends a TVM user meets early: ``contrib.utils.tempdir`` for exported
libraries, ``runtime.ShapeTuple`` arguments to the VM, ``tvm.ir.transform`` spellings,
``PrintIR``, targets as context managers, ``support.libinfo``; GPU and C parts skipped."""

import os

import numpy as np
import pytest

import ember as tvm
from ember import relax, te
from ember.contrib import utils
from ember.script import relax as R
from ember.script import tir as T


def _vector_add_schedule():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
    return te.create_schedule(C.op), [A, B, C]


def test_tempdir_save_export_load():
    s, args = _vector_add_schedule()
    fadd = tvm.build(s, args, "llvm", name="myadd")
    temp = utils.tempdir()
    fadd.save(temp.relpath("myadd.o"))
    fadd.export_library(temp.relpath("myadd_pack.so"))
    assert sorted(temp.listdir()) == ["myadd.o", "myadd_pack.so"]
    loaded = tvm.runtime.load_module(temp.relpath("myadd_pack.so"))
    a = tvm.nd.array(np.arange(10, dtype="float32"))
    c = tvm.nd.empty((10,), "float32")
    loaded["myadd"](a, a, c)
    np.testing.assert_allclose(c.numpy(), 2 * np.arange(10))
    path = temp.temp_dir
    temp.remove()
    assert not os.path.exists(path)


def test_tempdir_custom_path_is_kept(tmp_path):
    temp = utils.tempdir(str(tmp_path / "keep"))
    temp.remove()
    assert os.path.isdir(tmp_path / "keep")


def test_gpu_thread_binding_lowers():
    s, (A, B, C) = _vector_add_schedule()
    bx, tx = s[C].split(C.op.axis[0], factor=64)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    text = str(tvm.lower(s, [A, B, C], simple_mode=True))
    assert 'thread="blockIdx.x"' in text and 'thread="threadIdx.x"' in text


@pytest.mark.skip(reason="not implemented yet: CUDA codegen (ember.codegen.cuda)")
def test_build_for_cuda():
    s, args = _vector_add_schedule()
    tvm.build(s, args, target="cuda", name="myadd")


@pytest.mark.skip(reason="not implemented yet: C source codegen (ember.codegen.c, target 'c')")
def test_build_for_c_source():
    s, args = _vector_add_schedule()
    assert "myadd" in tvm.build(s, args, "c", name="myadd").get_source()


def test_shape_tuple_argument_to_vm():
    @R.function
    def reshape(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m",), "float32"):
        m = T.int64()  # noqa: F841 - TVMScript symbolic declaration
        y = R.reshape(x, s)
        return y

    mod = relax.get_pipeline("zero")(tvm.IRModule.from_expr(reshape))
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    shape = tvm.runtime.ShapeTuple([4])
    assert shape == (4,) and repr(shape) == "ShapeTuple([4])"
    out = vm["reshape"](tvm.nd.array(np.arange(4, dtype="float32")), shape)
    np.testing.assert_allclose(out.numpy(), np.arange(4))
    with pytest.raises(TypeError, match="dimension 0 must be an integer"):
        tvm.runtime.ShapeTuple(["a"])


def test_ir_transform_spelling_and_print_ir(capsys):
    mod = tvm.IRModule({})
    seq = tvm.ir.transform.Sequential([tvm.ir.transform.PrintIR("checkpoint")])
    with tvm.ir.transform.PassContext(opt_level=3):
        assert seq(mod) is mod
    assert "checkpoint" in capsys.readouterr().out


def test_target_from_device():
    assert tvm.target.Target.from_device(tvm.cpu()).kind.name == "llvm"
    assert tvm.target.Target.from_device("cpu").kind.name == "llvm"
    with pytest.raises(ValueError, match="vulkan.*has no default target"):
        tvm.target.Target.from_device(tvm.vulkan(0))


def test_target_context_and_libinfo():
    assert tvm.target.Target.current() is None
    with tvm.target.Target("llvm"):
        assert tvm.target.Target.current().kind.name == "llvm"
    info = tvm.support.libinfo()
    assert info["USE_LLVM"] == "ON"
