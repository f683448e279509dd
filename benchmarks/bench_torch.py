"""PyTorch models through ember: eager PyTorch vs torch.compile (inductor) vs
torch.compile(backend="ember") vs the imported module on ember's VM, same process, same
thread count, batch 1; plus the time to export + import and to compile.  Compile times are
cold: ember's on-disk kernel cache and inductor's FX-graph caches are off, and ember's
in-memory caches (relax.build's kernels, LLVM machine code) are emptied before each compile, so torch.compile(ember)'s first call
builds every kernel again.

usage: python benchmarks/bench_torch.py [--threads 2] [--models bert,mobilenet]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "relax_frontend_torch"))

from common import machine, set_threads, table, time_call  # noqa: E402


def _models():
    import torch

    import torch_models as tm

    return {
        "bert": lambda: (tm.seeded(tm.BertEncoder, vocab=1000, d=128, heads=4, ff=512, layers=2, max_len=128),
                         (torch.randint(0, 1000, (1, 64)), torch.ones(1, 64, dtype=torch.int64))),
        "mobilenet": lambda: (tm.seeded(tm.MobileNetV2), (torch.randn(1, 3, 64, 64),)),
    }


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _cold(clear_llvm_cache, build_cache) -> None:
    """Forget every compiled kernel (ember's in-memory caches of schedules and machine code)."""
    clear_llvm_cache()
    build_cache.clear()


def bench_one(name: str, make, min_seconds: float) -> dict:
    import numpy as np
    import torch

    import ember
    from ember import relax
    from ember.codegen.llvm.build import clear_cache as clear_llvm_cache
    from ember.relax import build_cache
    from ember.relax.frontend.torch import from_exported_program

    model, args = make()
    row = {"model": name}
    with torch.no_grad():
        ref = model(*args)
        ref = ref[0] if isinstance(ref, tuple) else ref
        _cold(clear_llvm_cache, build_cache)
        mod, row["import s"] = _timed(lambda: from_exported_program(torch.export.export(model, args)))
        ex, row["ember build s"] = _timed(lambda: relax.build(mod, "llvm"))
        vm = relax.VirtualMachine(ex, ember.cpu())
        out = vm["main"](*args)[0].numpy()
        np.testing.assert_allclose(out, ref.numpy(), rtol=1e-3, atol=1e-4)

        torch._dynamo.reset()
        inductor = torch.compile(model)
        _, row["inductor compile s"] = _timed(lambda: inductor(*args))
        torch._dynamo.reset()
        _cold(clear_llvm_cache, build_cache)
        with_ember = torch.compile(model, backend="ember", dynamic=False)
        _, row["torch.compile(ember) first call s"] = _timed(lambda: with_ember(*args))
        # time the four side by side, interleaved rounds
        fns = {"eager": lambda: model(*args), "inductor": lambda: inductor(*args),
               "compile(ember)": lambda: with_ember(*args), "ember VM": lambda: vm["main"](*args)}
        samples = {k: [] for k in fns}
        for _ in range(3):
            for k, fn in fns.items():
                samples[k].append(time_call(fn, min_seconds=min_seconds / 3, repeat=3))
    med = {k: statistics.median(v) for k, v in samples.items()}
    for k, v in med.items():
        row[f"{k} ms"] = f"{v * 1e3:.2f}"
    row["ember VM / eager"] = f"{med['ember VM'] / med['eager']:.2f}"
    row["compile(ember) / inductor"] = f"{med['compile(ember)'] / med['inductor']:.2f}"
    for k in ("import s", "ember build s", "inductor compile s", "torch.compile(ember) first call s"):
        row[k] = f"{row[k]:.1f}"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", default="bert,mobilenet")
    parser.add_argument("--min-seconds", type=float, default=1.5)
    args = parser.parse_args()
    # cold compile times: no on-disk kernel caches (ember's, inductor's FX-graph/AOT caches)
    os.environ["EMBER_DISK_CACHE"] = "0"
    os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "0"
    os.environ["TORCHINDUCTOR_AUTOGRAD_CACHE"] = "0"
    set_threads(args.threads)
    import torch

    import ember.relax.frontend.torch  # noqa: F401 - registers backend="ember"

    torch.set_num_threads(args.threads)
    makers = _models()
    rows = [bench_one(name, makers[name], args.min_seconds) for name in args.models.split(",")]
    print(f"# PyTorch models, batch 1 ({machine()}, {args.threads} threads)\n")
    print(table(rows, ["model", "eager ms", "inductor ms", "compile(ember) ms", "ember VM ms", "ember VM / eager",
                       "compile(ember) / inductor", "import s", "ember build s", "inductor compile s",
                       "torch.compile(ember) first call s"]))


if __name__ == "__main__":
    main()
