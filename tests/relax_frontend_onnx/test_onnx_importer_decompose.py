"""relax.transform.DecomposeOpsForInference (run by TVM-style ONNX import flows): batch norm
becomes inference arithmetic with the moving statistics."""

import numpy as np

import ember
from ember import relax


def test_batch_norm_decomposed_and_numerically_right():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([2, 3, 4], "float32"))
    stats = [relax.Var(n, relax.TensorStructInfo([3], "float32")) for n in ("g", "b", "m", "v")]
    with bb.function("main", [x, *stats]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.batch_norm(x, *stats, axis=1, epsilon=1e-3, training=False))
            out = bb.emit_output(relax.TupleGetItem(y, 0))
        bb.emit_func_output(out)
    mod = relax.transform.DecomposeOpsForInference()(bb.get())
    assert "batch_norm" not in mod.script()
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
    rng = np.random.default_rng(0)
    xs = rng.random((2, 3, 4), dtype="float32")
    g, b, m, v = (rng.random(3, dtype="float32") for _ in range(4))
    got = vm["main"](*[ember.nd.array(a) for a in (xs, g, b, m, v)]).numpy()
    ref = (xs - m[:, None]) / np.sqrt(v[:, None] + 1e-3) * g[:, None] + b[:, None]
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
