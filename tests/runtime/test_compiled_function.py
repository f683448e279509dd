"""CompiledFunction: the native calling convention, argument conversion, and error messages."""

import re
import threading

import numpy as np
import pytest
from native_kernels import add, add_2d, add_one, axpy, buffer, build, cast_i8_to_i64

from ember import nd, runtime
from ember.runtime import ArgumentError, ArgumentTypeError, CompiledFunction, FunctionInfo, ParamInfo

ADD_ONE = add_one()
ADD = add()
ADD_2D = add_2d()
AXPY = axpy()
CAST = cast_i8_to_i64()


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)


# -- successful calls ------------------------------------------------------------------------


def test_ndarray_args():
    a, b = nd.array(f32(7)), nd.empty((7,))
    assert ADD_ONE(a, b) is None
    np.testing.assert_array_equal(b.numpy(), f32(7) + 1)


def test_numpy_args_are_zero_copy():
    a, b = f32(5), np.zeros(5, "float32")
    ADD_ONE(a, b)
    np.testing.assert_array_equal(b, f32(5) + 1)


def test_mixed_args_and_three_inputs():
    a, b, c = nd.array(f32(4)), f32(4), nd.empty((4,))
    ADD(a, b, c)
    np.testing.assert_array_equal(c.numpy(), 2 * f32(4))


def test_torch_args_are_zero_copy():
    torch = pytest.importorskip("torch")
    a, b = torch.arange(6, dtype=torch.float32), torch.zeros(6)
    ADD_ONE(a, b)
    assert b.tolist() == [1, 2, 3, 4, 5, 6]


def test_ndarray_from_dlpack_args():
    torch = pytest.importorskip("torch")
    t = torch.zeros(3)
    ADD_ONE(nd.array(f32(3)), nd.from_dlpack(t))
    assert t.tolist() == [1, 2, 3]


def test_two_dimensional_and_fixed_dims():
    a, b = f32(3, 4), np.zeros((3, 4), "float32")
    ADD_2D(a, b)
    np.testing.assert_array_equal(b, f32(3, 4) + 1)


def test_scalar_params():
    x, y = np.ones(4), np.arange(4.0)
    AXPY(4, 2.5, x, y)
    np.testing.assert_array_equal(y, [2.5, 3.5, 4.5, 5.5])
    AXPY(np.int64(4), np.float32(1.0), x, y)  # numpy scalars convert too
    AXPY(4, 1, x, y)  # an int for a float parameter
    np.testing.assert_array_equal(y, [4.5, 5.5, 6.5, 7.5])


def test_integer_dtypes():
    a, b = np.arange(-4, 4, dtype="int8"), np.zeros(8, "int64")
    CAST(a, b)
    assert b.tolist() == list(range(-4, 4))


def test_size_one_dims_with_odd_strides_are_compact():
    torch = pytest.importorskip("torch")
    a = torch.arange(4.0).reshape(4, 1)
    b = torch.zeros(4, 1).t().t()  # extent-1 dim carries an arbitrary stride
    ADD_2D_COL = build(
        "col", [buffer("A", "float32", ("n", 1)), buffer("B", "float32", ("n", 1))], "  ret i32 0"
    )
    ADD_2D_COL(a, b)


def test_metadata_and_repr():
    assert ADD_ONE.name == "add_one"
    assert ADD_ONE.info.param_names == ("A", "B")
    assert re.match(r"<CompiledFunction add_one\(A, B\) at 0x[0-9a-f]+>", repr(ADD_ONE))
    assert ADD_ONE.keepalive is not None


def test_threads_and_buffer_reuse():
    errors = []

    def worker(seed):
        try:
            for _ in range(200):
                a = np.full(9, seed, "float32")
                b = nd.empty((9,))
                ADD_ONE(nd.array(a), b)
                assert (b.numpy() == seed + 1).all()
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert 1 <= len(ADD_ONE._pool) <= 8


# -- errors --------------------------------------------------------------------------------


def test_count():
    a = nd.empty((3,))
    with pytest.raises(ArgumentError, match=re.escape("add_one expects 2 arguments (A, B), got 3")):
        ADD_ONE(a, a, a)
    with pytest.raises(ArgumentError, match=re.escape("add_one expects 2 arguments (A, B), got 0")):
        ADD_ONE()


def test_dtype():
    with pytest.raises(
        ArgumentError, match=re.escape("add_one: argument 'A' (#1): expected dtype float32, got float64")
    ):
        ADD_ONE(np.zeros(3), np.zeros(3, "float32"))
    with pytest.raises(ArgumentError, match="argument 'B' \\(#2\\): expected dtype float32, got int32"):
        ADD_ONE(nd.empty((3,)), nd.empty((3,), "int32"))


def test_ndim():
    with pytest.raises(ArgumentError, match=re.escape("add_one: argument 'B' (#2): expected ndim 1, got 2")):
        ADD_ONE(f32(3), f32(3, 1))
    with pytest.raises(ArgumentError, match=re.escape("add_2d: argument 'A' (#1): expected ndim 2, got 3")):
        ADD_2D(f32(1, 3, 4), f32(3, 4))


def test_fixed_shape():
    with pytest.raises(
        ArgumentError, match=re.escape("add_2d: argument 'B' (#2): expected shape[1] == 4, got 5")
    ):
        ADD_2D(f32(3, 4), f32(3, 5))
    with pytest.raises(
        ArgumentError, match=re.escape("cast_i8: argument 'A' (#1): expected shape[0] == 8, got 7")
    ):
        CAST(np.zeros(7, "int8"), np.zeros(8, "int64"))


def test_symbolic_mismatch_across_args():
    message = "add_one: argument 'B' (#2): expected shape[0] == 7 (symbolic n, bound by A.shape[0]), got 8"
    with pytest.raises(ArgumentError, match=re.escape(message)):
        ADD_ONE(nd.empty((7,)), nd.empty((8,)))
    with pytest.raises(
        ArgumentError,
        match=re.escape("argument 'C' (#3): expected shape[0] == 2 (symbolic n, bound by A.shape[0]), got 3"),
    ):
        ADD(f32(2), f32(2), f32(3))


def test_symbolic_bound_by_scalar():
    message = "axpy: argument 'X' (#3): expected shape[0] == 5 (symbolic n, bound by argument 'n'), got 4"
    with pytest.raises(ArgumentError, match=re.escape(message)):
        AXPY(5, 1.0, np.ones(4), np.ones(4))


def test_non_contiguous_numpy():
    strided = f32(10)[::2]
    message = "add_one: argument 'A' (#1): expected a compact (row-major contiguous) array, got strides (2,)"
    with pytest.raises(ArgumentError, match=re.escape(message)):
        ADD_ONE(strided, np.zeros(5, "float32"))
    fortran = np.asfortranarray(f32(3, 4))
    with pytest.raises(ArgumentError, match=re.escape("got strides (1, 3) (in elements) for shape (3, 4)")):
        ADD_2D(fortran, f32(3, 4))


def test_non_contiguous_torch():
    torch = pytest.importorskip("torch")
    t = torch.zeros(4, 3).t()
    with pytest.raises(
        ArgumentError,
        match=re.escape(
            "argument 'A' (#1): expected a compact (row-major contiguous) array, got strides (1, 3)"
        ),
    ):
        ADD_2D(t, torch.zeros(3, 4))


def test_wrong_device():
    fake = runtime.NDArray(0x1000, (7,), "float32", runtime.cuda(0))  # a descriptor only
    with pytest.raises(
        ArgumentError, match=re.escape("add_one: argument 'A' (#1): expected a cpu array, got cuda(0)")
    ):
        ADD_ONE(fake, nd.empty((7,)))


def test_null_data():
    null = runtime.NDArray(0, (3,), "float32", runtime.cpu(0))
    with pytest.raises(
        ArgumentError, match=re.escape("argument 'B' (#2): expected a non-NULL data pointer, got NULL")
    ):
        ADD_ONE(nd.empty((3,)), null)


def test_wrong_python_types():
    with pytest.raises(
        ArgumentTypeError,
        match=re.escape(
            "add_one: argument 'B' (#2): expected an array (NDArray, numpy array or DLPack tensor), got list"
        ),
    ):
        ADD_ONE(f32(3), [1.0, 2.0, 3.0])
    with pytest.raises(
        ArgumentTypeError, match=re.escape("axpy: argument 'n' (#1): expected an int, got float")
    ):
        AXPY(4.0, 1.0, np.ones(4), np.ones(4))
    with pytest.raises(
        ArgumentTypeError, match=re.escape("axpy: argument 'alpha' (#2): expected a float, got str")
    ):
        AXPY(4, "2", np.ones(4), np.ones(4))
    with pytest.raises(ArgumentTypeError, match="argument 'n' \\(#1\\): .*does not fit in 64 bits"):
        AXPY(1 << 70, 1.0, np.ones(4), np.ones(4))
    assert issubclass(ArgumentTypeError, TypeError) and issubclass(ArgumentError, ValueError)


def test_torch_export_failure_names_the_argument():
    torch = pytest.importorskip("torch")
    a = torch.zeros(3, requires_grad=True)
    with pytest.raises(ArgumentTypeError, match="add_one: argument 'A' \\(#1\\): .*"):
        ADD_ONE(a, torch.zeros(3))


def test_fallback_to_static_check_message():
    params = [buffer("X", "float32", ("n",))]
    always = build("always_fails", params, "  ret i32 3")  # the explainer finds nothing wrong
    assert always.info.checks[2] == "X.dtype == float32"
    with pytest.raises(ArgumentError, match=re.escape("always_fails: X.dtype == float32")):
        always(f32(2))
    odd = build("odd_code", params, "  ret i32 99")
    with pytest.raises(ArgumentError, match=re.escape("odd_code: native argument check #99 failed")):
        odd(f32(2))


def test_alignment_explained():
    params = [ParamInfo("X", "buffer", "float32", ("n",), 1, 64)]
    info = FunctionInfo("aligned", tuple(params), ("X.data is 64-byte aligned",))
    inner = build("aligned", params, "  ret i32 6")  # pretend the alignment check (#6) failed
    f = CompiledFunction(inner.address, info, keepalive=inner)
    misaligned = np.zeros(17, "float32")[1:]
    with pytest.raises(
        ArgumentError,
        match=r"argument 'X' \(#1\): expected data aligned to 64 bytes, got address 0x[0-9a-f]+ \(misaligned by \d+\)",
    ):
        f(misaligned)


def test_expression_shapes_are_explained():
    params = [buffer("A", "float32", ("n",)), buffer("B", "float32", ("n * 2 + 1",))]
    info = FunctionInfo("expr", tuple(params), ("B.shape[0] == n * 2 + 1",))
    inner = build("expr", [buffer("A", "float32", ("n",))], "  ret i32 1")
    f = CompiledFunction(inner.address, FunctionInfo("expr", tuple(params), info.checks), keepalive=inner)
    with pytest.raises(
        ArgumentError, match=re.escape("argument 'B' (#2): expected shape[0] == 7 (n * 2 + 1), got 6")
    ):
        f(f32(3), f32(6))


def test_info_validation():
    with pytest.raises(ValueError, match="kind must be one of"):
        ParamInfo("x", "tensor", "float32")
    with pytest.raises(ValueError, match="only buffer parameters have a shape"):
        ParamInfo("x", "int", "int64", (3,))
    with pytest.raises(ValueError, match="non-NULL function pointer"):
        CompiledFunction(0, FunctionInfo("f", ()))


def test_declared_strides_are_explained():
    params = [
        ParamInfo("A", "buffer", "float32", ("n", 4), strides=("s", 1)),
        buffer("B", "float32", ("n", 4)),
    ]
    inner = build("strided", [], "  ret i32 1")  # no native checks: always reports check #1
    f = CompiledFunction(inner.address, FunctionInfo("strided", tuple(params), ("A.strides[1] == 1",)), inner)
    wide = np.zeros((3, 8), "float32")[:, :4]  # strides (8, 1): fine, s binds to 8
    with pytest.raises(ArgumentError, match=re.escape("strided: A.strides[1] == 1")):
        f(wide, f32(3, 4))  # nothing wrong: falls back to the static message
    with pytest.raises(ArgumentError, match=re.escape("argument 'A' (#1): expected strides[1] == 1, got 2")):
        f(np.zeros((3, 8), "float32")[:, ::2], f32(3, 4))
    with pytest.raises(ValueError, match="differ in length"):
        ParamInfo("A", "buffer", "float32", ("n", 4), strides=(1,))


def test_null_data_is_fine_for_empty_arrays():
    params = [buffer("X", "float32", ("n",))]
    inner = build("empty_ok", params, "  ret i32 5")
    with pytest.raises(ArgumentError, match=re.escape("empty_ok: X.data != NULL")):
        inner(runtime.NDArray(0, (0,), "float32", runtime.cpu(0)))
