"""ember quickstart: define computations with te, compile them for this CPU, run and check.

Run: python examples/quickstart.py
"""

import time

import numpy as np

import ember
from ember import te


def vector_add_one():
    n = te.var("n")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    func = te.create_prim_func([A, B])
    print("TensorIR of B[i] = A[i] + 1.0:")
    func.show()
    mod = ember.build(func, target="llvm")
    for size in (1, 7, 1_000_003):
        a = ember.nd.array(np.random.rand(size).astype("float32"))
        b = ember.nd.empty((size,), "float32")
        mod(a, b)
        np.testing.assert_array_equal(b.numpy(), a.numpy() + 1.0)
    print("vector add: correct for n = 1, 7, 1000003 with one compiled function")


def matmul(n=256):
    A = te.placeholder((n, n), "float32", name="A")
    B = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    mod = ember.build(te.create_prim_func([A, B, C]), target="llvm")
    a = np.random.rand(n, n).astype("float32")
    b = np.random.rand(n, n).astype("float32")
    c = ember.nd.empty((n, n), "float32")
    mod(ember.nd.array(a), ember.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)
    timer = mod.time_evaluator(mod.entry_name, ember.cpu(), number=3, repeat=3)
    seconds = timer(ember.nd.array(a), ember.nd.array(b), c).mean
    print(f"matmul {n}x{n}x{n} (unscheduled): correct, {2 * n**3 / seconds / 1e9:.2f} GFLOP/s")


def compile_a_model():
    """A model written with relax.frontend.nn, optimised, compiled and run on the VM."""
    from ember import relax
    from ember.relax.frontend import nn

    class MLP(nn.Module):
        def __init__(self):
            self.fc1 = nn.Linear(784, 256)
            self.relu = nn.ReLU()
            self.fc2 = nn.Linear(256, 10)

        def forward(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    spec = {"forward": {"x": nn.spec.Tensor(("batch", 784), "float32")}}
    mod, param_spec = MLP().export_tvm(spec=spec)
    mod = relax.get_pipeline("zero")(mod)  # legalize, fold, fuse
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), ember.cpu())
    rng = np.random.default_rng(0)
    params = [rng.uniform(-0.1, 0.1, size=s.shape).astype("float32") for _, s in param_spec]
    w1, b1, w2, b2 = params
    for batch in (1, 32):
        x = rng.standard_normal((batch, 784)).astype("float32")
        y = vm["forward"](x, *params).numpy()
        np.testing.assert_allclose(y, np.maximum(x @ w1.T + b1, 0) @ w2.T + b2, rtol=1e-4, atol=1e-5)
    kernels = [gv.name_hint for gv, f in mod.functions.items() if type(f).__name__ == "PrimFunc"]
    print(f"MLP 784→256→10: {len(kernels)} fused kernels ({', '.join(kernels)}); correct for batch 1 and 32")


def bad_input_is_reported():
    A = te.placeholder((4,), "float32", name="A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    mod = ember.build(te.create_prim_func([A, B]), target="llvm")
    try:
        mod(np.zeros(4, "float64"), np.zeros(4, "float32"))
    except ValueError as err:
        print(f"a wrong dtype is reported, not crashed on: {err}")


if __name__ == "__main__":
    start = time.perf_counter()
    print(f"ember {ember.__version__}")
    vector_add_one()
    matmul()
    compile_a_model()
    bad_input_is_reported()
    print(f"done in {time.perf_counter() - start:.1f} s")
