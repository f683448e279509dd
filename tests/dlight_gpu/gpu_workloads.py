"""Kernels the GPU rule tests schedule: TE-built PrimFuncs (static and symbolic sizes) and
legalized Relax modules (an MLP, softmax, layer norm, matmul), as IRModules."""

from __future__ import annotations

from ember import relax, te, tir, topi
from ember.ir import IRModule


def prim(*tensors, name: str = "main") -> IRModule:
    func = te.create_prim_func(list(tensors))
    return IRModule({name: func.with_attr("global_symbol", name)})


def matmul(m=256, n=256, k=128, dtype="float32", out_dtype=None, batch=None, transpose_b=False,
           epilogue=None) -> IRModule:
    """C = A @ B (B as (N, K) when ``transpose_b``); ``m`` may be a str (symbolic)."""
    m = tir.Var(m, "int64") if isinstance(m, str) else m
    shape_a = ((batch,) if batch else ()) + (m, k)
    a = te.placeholder(shape_a, dtype, name="A")
    b = te.placeholder((n, k) if transpose_b else (k, n), dtype, name="B")
    r = te.reduce_axis((0, k), name="k")
    acc = out_dtype or dtype

    def load_b(j, kk):
        return b[j, kk] if transpose_b else b[kk, j]

    if batch:
        c = te.compute((batch, m, n), lambda z, i, j: te.sum(
            (a[z, i, r].astype(acc) * load_b(j, r).astype(acc)), axis=r), name="C")
    else:
        c = te.compute((m, n), lambda i, j: te.sum(a[i, r].astype(acc) * load_b(j, r).astype(acc), axis=r),
                       name="C")
    tensors = [a, b, c]
    if epilogue == "bias_relu":
        bias = te.placeholder((n,), acc, name="bias")
        out = te.compute(c.shape, lambda *ax: te.max(c(*ax) + bias[ax[-1]], tir.const(0, acc)), name="D")
        tensors = [a, b, bias, out]
    return prim(*tensors)


def softmax(rows=64, cols=256, dtype="float32") -> IRModule:
    rows = tir.Var(rows, "int64") if isinstance(rows, str) else rows
    x = te.placeholder((rows, cols), dtype, name="X")
    return prim(x, topi.nn.softmax(x, axis=-1))


def layer_norm(rows=64, cols=256, dtype="float32") -> IRModule:
    rows = tir.Var(rows, "int64") if isinstance(rows, str) else rows
    x = te.placeholder((rows, cols), dtype, name="X")
    g = te.placeholder((cols,), dtype, name="gamma")
    b = te.placeholder((cols,), dtype, name="beta")
    return prim(x, g, b, topi.nn.layer_norm(x, g, b, axis=[-1]))


def rms_norm(rows=64, cols=256, dtype="float32") -> IRModule:
    rows = tir.Var(rows, "int64") if isinstance(rows, str) else rows
    x = te.placeholder((rows, cols), dtype, name="X")
    w = te.placeholder((cols,), dtype, name="W")
    return prim(x, w, topi.nn.rms_norm(x, w, axis=[-1]))


def row_sum(rows=64, cols=256, dtype="float32") -> IRModule:
    rows = tir.Var(rows, "int64") if isinstance(rows, str) else rows
    x = te.placeholder((rows, cols), dtype, name="X")
    return prim(x, topi.sum(x, axis=[-1]))


def elementwise(shape=(64, 100), dtype="float32") -> IRModule:
    x = te.placeholder(shape, dtype, name="X")
    return prim(x, topi.nn.relu(x))


def transpose(rows=256, cols=512, dtype="float32") -> IRModule:
    x = te.placeholder((rows, cols), dtype, name="X")
    return prim(x, topi.transpose(x, [1, 0]))


def relax_module(kind: str, dtype: str = "float32") -> IRModule:
    """A legalized Relax module: "mlp" (matmul, bias, relu, matmul), "softmax",
    "layer_norm" or "matmul"; batch dim symbolic ("n") for the MLP."""
    from ember.relax.transform import LegalizeOps

    bb = relax.BlockBuilder()
    if kind == "mlp":
        n = tir.Var("n", "int64")
        x = relax.Var("x", relax.TensorStructInfo((n, 64), dtype))
        w1 = relax.Var("w1", relax.TensorStructInfo((64, 128), dtype))
        b1 = relax.Var("b1", relax.TensorStructInfo((128,), dtype))
        w2 = relax.Var("w2", relax.TensorStructInfo((128, 32), dtype))
        with bb.function("main", [x, w1, b1, w2]):
            with bb.dataflow():
                h = bb.emit(relax.op.matmul(x, w1))
                h = bb.emit(relax.op.add(h, b1))
                h = bb.emit(relax.op.nn.relu(h))
                out = bb.emit_output(bb.emit(relax.op.matmul(h, w2)))
            bb.emit_func_output(out)
    elif kind in ("softmax", "layer_norm"):
        x = relax.Var("x", relax.TensorStructInfo((32, 256), dtype))
        params = [x]
        if kind == "layer_norm":
            params += [relax.Var("g", relax.TensorStructInfo((256,), dtype)),
                       relax.Var("b", relax.TensorStructInfo((256,), dtype))]
        with bb.function("main", params):
            with bb.dataflow():
                if kind == "softmax":
                    y = bb.emit(relax.op.nn.softmax(x, axis=-1))
                else:
                    y = bb.emit(relax.op.nn.layer_norm(x, params[1], params[2], axes=[-1]))
                out = bb.emit_output(y)
            bb.emit_func_output(out)
    elif kind == "matmul":
        a = relax.Var("a", relax.TensorStructInfo((4, 128, 64), dtype))
        b = relax.Var("b", relax.TensorStructInfo((64, 96), dtype))
        with bb.function("main", [a, b]):
            with bb.dataflow():
                out = bb.emit_output(bb.emit(relax.op.matmul(a, b)))
            bb.emit_func_output(out)
    else:
        raise ValueError(f"relax_module: kind must be mlp/softmax/layer_norm/matmul, got {kind!r}")
    return LegalizeOps()(bb.get())
