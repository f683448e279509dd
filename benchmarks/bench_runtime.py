"""The runtime's fixed costs: creating arrays, calling compiled code, running the VM.

For small models these Python-side costs dominate, so each is shown next to the
closest numpy / PyTorch equivalent, in µs per operation (median of rounds):

- array creation: ``ember.runtime.empty`` / ``array`` / ``from_dlpack`` vs ``np.empty``,
  ``np.array``, ``torch.empty``, ``torch.from_numpy``;
- a compiled 3-buffer kernel (``C = A + B`` on 4 floats, negligible native work) called
  with NDArrays, numpy arrays and torch tensors vs ``np.add(a, b, out=c)`` and
  ``torch.add(a, b, out=c)``;
- the Relax VM: the slope over a chain of K tiny relu kernels is the cost per kernel
  call, the intercept the fixed cost per ``vm["main"](x)`` (NDArray, numpy and torch
  input; static and symbolic shape),
  next to ``torch.clamp(x, min=0, out=y)`` (relu with ``out=``).

Run: python benchmarks/bench_runtime.py [--quick]
"""

from __future__ import annotations

import argparse

from common import machine, set_threads, table, time_call


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.2f}"


def _row(what: str, ember_fn, ref_name: str = "", ref_fn=None, min_seconds: float = 0.3) -> dict:
    row = {"operation": what, "ember µs": _us(time_call(ember_fn, min_seconds))}
    if ref_fn is not None:
        ref = time_call(ref_fn, min_seconds)
        row["reference"] = ref_name
        row["reference µs"] = _us(ref)
    return row


def array_rows(min_seconds: float) -> list[dict]:
    import numpy as np

    from ember import runtime

    torch = _torch()
    src = np.ones((4, 4), "float32")
    nd = runtime.array(src)
    rows = [
        _row("empty((4, 4))", lambda: runtime.empty((4, 4)), "np.empty", lambda: np.empty((4, 4), "float32"),
             min_seconds),
        _row("array(numpy 4x4)", lambda: runtime.array(src), "np.array (copy)", lambda: np.array(src), min_seconds),
        _row("from_dlpack(numpy 4x4)", lambda: runtime.from_dlpack(src), "np.asarray view",
             lambda: src.view(), min_seconds),
        _row("NDArray.numpy()", nd.numpy, "ndarray.copy", src.copy, min_seconds),
    ]
    if torch is not None:
        t = torch.ones(4, 4)
        rows += [
            _row("empty((4, 4)) vs torch", lambda: runtime.empty((4, 4)), "torch.empty",
                 lambda: torch.empty((4, 4)), min_seconds),
            _row("from_dlpack(torch 4x4)", lambda: runtime.from_dlpack(t), "torch.from_numpy",
                 lambda: torch.from_numpy(src), min_seconds),
        ]
    return rows


def add_kernel():
    import ember
    from ember import te

    n = 4
    A = te.placeholder((n,), "float32", name="A")
    B = te.placeholder((n,), "float32", name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    mod = ember.build(te.create_prim_func([A, B, C]), target="llvm")
    return mod[mod.entry_name or mod.function_names[0]]


def call_rows(min_seconds: float) -> list[dict]:
    import numpy as np

    from ember import runtime

    torch = _torch()
    add = add_kernel()
    nps = [np.ones(4, "float32") for _ in range(3)]
    nds = [runtime.array(a) for a in nps]
    rows = [
        _row("kernel(A, B, C) with NDArrays", lambda: add(*nds), "np.add(a, b, out=c)",
             lambda: np.add(nps[0], nps[1], out=nps[2]), min_seconds),
        _row("kernel(A, B, C) with numpy", lambda: add(*nps), min_seconds=min_seconds),
    ]
    if torch is not None:
        ts = [torch.ones(4) for _ in range(3)]
        rows.append(_row("kernel(A, B, C) with torch", lambda: add(*ts), "torch.add(a, b, out=c)",
                         lambda: torch.add(ts[0], ts[1], out=ts[2]), min_seconds))
    return rows


def relu_chain(length: int, symbolic: bool = False):
    from ember import relax, tir, topi
    from ember.relax import BlockBuilder

    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([tir.Var("n", "int64") if symbolic else 8], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            h = x
            for _ in range(length):
                h = bb.emit_te(topi.nn.relu, h)
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    return relax.build(bb.get(), "llvm")


def vm_rows(min_seconds: float, chain: int) -> list[dict]:
    import numpy as np

    import ember
    from ember import relax

    torch = _torch()
    x_np = np.linspace(-1, 1, 8, dtype="float32")
    x_nd = ember.nd.array(x_np)
    inputs = [("NDArray", x_nd, False), ("numpy", x_np, False), ("NDArray, symbolic n", x_nd, True)]
    if torch is not None:
        inputs.append(("torch", torch.from_numpy(x_np.copy()), False))
    rows = []
    for label, x, symbolic in inputs:
        times = {}
        for k in (1, chain):
            vm = relax.VirtualMachine(relu_chain(k, symbolic), ember.cpu())
            np.testing.assert_allclose(vm["main"](x).numpy(), np.maximum(x_np, 0))
            times[k] = time_call(lambda vm=vm, x=x: vm["main"](x), min_seconds)
        slope = (times[chain] - times[1]) / (chain - 1)
        rows.append({"operation": f"VM per kernel call ({label} input)", "ember µs": _us(slope)})
        rows.append({"operation": f"VM fixed per vm['main'] ({label} input)", "ember µs": _us(times[1] - slope)})
    if torch is not None:
        tx, ty = torch.linspace(-1, 1, 8), torch.empty(8)
        rows[0]["reference"] = "torch.clamp(x, min=0, out=y)"
        rows[0]["reference µs"] = _us(time_call(lambda: torch.clamp(tx, min=0, out=ty), min_seconds))
    return rows


def _torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="shorter timings (noisier)")
    parser.add_argument("--chain", type=int, default=32, help="kernels in the long VM chain")
    args = parser.parse_args()
    set_threads(1)
    min_seconds = 0.1 if args.quick else 0.5
    rows = array_rows(min_seconds) + call_rows(min_seconds) + vm_rows(min_seconds, args.chain)
    print(f"# ember runtime overhead ({machine()})\n")
    print(table(rows, ["operation", "ember µs", "reference", "reference µs"]))


if __name__ == "__main__":
    main()
