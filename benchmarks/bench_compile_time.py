"""Import and compile time of whole models: ``from_onnx`` → ``relax.build(mod, "llvm")``.

For each model: import seconds, a cold build (LLVM disk cache pointed at a fresh temporary
directory, in-memory caches empty), then a second build of the same module in the same
process (``relax.build``'s kernel cache, see ``ember.relax.build_cache``).  Every figure is
given as CPU seconds of this process (``time.process_time``) and wall seconds, with the
load average, because a shared machine inflates wall time; the CPU seconds of the cold
build are split by phase (dlight default schedules, TIR lowering, LLVM IR emission, LLVM
optimisation, the rest of LLVM).  ``EMBER_BUILD_CACHE=0`` shows the second build without
the kernel cache.

Run: python benchmarks/bench_compile_time.py [--models resnet50,bert,bert_dyn]
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import time

os.environ["EMBER_CACHE_DIR"] = tempfile.mkdtemp(prefix="ember-compile-time-")  # cold disk cache

import bench_model_zoo as zoo  # noqa: E402


def _instrument(phases: dict) -> None:
    """Add each wrapped function's CPU seconds to ``phases[label]``."""
    import ember.codegen.llvm.build as llvm_build
    import ember.codegen.llvm.codegen as llvm_codegen
    import ember.codegen.llvm.jit as jit
    import ember.relax.vm_build as vm_build
    import ember.tir.transform as tir_transform

    def wrap(owner, name, label):
        func = getattr(owner, name)

        @functools.wraps(func)
        def timed(*args, **kwargs):
            start = time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                phases[label] = phases.get(label, 0.0) + time.process_time() - start

        setattr(owner, name, timed)

    wrap(vm_build, "_default_schedule", "schedule")
    wrap(tir_transform, "lower_for_codegen", "lower")
    wrap(llvm_codegen.CodeGenLLVM, "add_function", "llvm emit")
    wrap(jit, "optimize", "llvm opt")
    wrap(llvm_build, "_build_llvm", "llvm all")


def measure(name: str) -> None:
    import onnx

    from ember import relax
    from ember.relax.frontend.onnx import from_onnx

    w = zoo.workload(name, 1)
    phases: dict = {}
    _instrument(phases)
    cpu, wall = time.process_time(), time.perf_counter()
    mod = from_onnx(onnx.load_from_string(w.onnx_bytes))
    print(f"{name}: import {time.process_time() - cpu:.2f} s CPU ({time.perf_counter() - wall:.1f} s wall)")
    for run in ("cold", "again"):
        phases.clear()
        cpu, wall = time.process_time(), time.perf_counter()
        relax.build(mod, "llvm")
        split = ", ".join(f"{k} {v:.2f}" for k, v in phases.items())
        print(f"{name}: build {run} {time.process_time() - cpu:.2f} s CPU ({time.perf_counter() - wall:.1f} s wall, "
              f"load {os.getloadavg()[0]:.1f}){': ' + split if split else ''}", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,bert", help="comma-separated: resnet50, bert, bert_dyn, ...")
    args = parser.parse_args(argv)
    for name in args.models.split(","):
        measure(name.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
