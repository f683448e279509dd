"""What a runner worker does with one built library: load it, allocate (or load reference)
arguments, check the outputs against the unscheduled program's, then time it.

Cold caches (``EvaluatorConfig.enable_cpu_cache_flush``): the worker keeps several copies of
the arguments and every call takes the next copy, so between two calls on the same copy the
others have streamed more than ``cold_bytes()`` (twice the L2 of all cores) through the
caches.  Each timed call, not only the first of a repeat, then reads its inputs and weights
from beyond L2, as a kernel in a model does; a flush buffer touched by the calling thread
alone would leave the other cores' L2 warm and cost a pass over the buffer per repeat.

``make_reference`` runs the unscheduled program once on seeded random inputs and saves
inputs, outputs and which arguments are outputs in a ``.npz``; ``measure`` compares a
candidate's outputs with it before timing, so a wrong schedule is a failed candidate.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from .config import EvaluatorConfig

RTOL, ATOL = 1e-3, 1e-3


def random_args(args_info, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for info in args_info:
        dtype = np.dtype(info.dtype) if info.dtype != "bfloat16" else np.float32
        if np.issubdtype(dtype, np.floating):
            out.append(rng.uniform(-1, 1, size=info.shape).astype(dtype))
        elif dtype == np.bool_:
            out.append(rng.integers(0, 2, size=info.shape).astype(dtype))
        else:
            out.append(rng.integers(0, 8, size=info.shape).astype(dtype))
    return out


def output_indices(func) -> list[int]:
    """Positions of the parameters whose buffers the function writes."""
    from ember.tir import BufferStore, post_order_visit

    written = set()
    post_order_visit(func.body, lambda n: written.add(id(n.buffer.data)) if isinstance(n, BufferStore) else None)
    return [n for n, p in enumerate(func.params)
            if p in func.buffer_map and id(func.buffer_map[p].data) in written]


def make_reference(mod, target, args_info, path: str, seed: int = 0) -> str:
    """Run the unscheduled ``mod`` once and save its inputs and outputs to ``path``."""
    import ember

    from ..utils import prim_func_of

    _, func = prim_func_of(mod)
    outs = output_indices(func)
    args = random_args(args_info, seed)
    for n in outs:
        args[n] = np.zeros_like(args[n])
    lib = ember.build(mod, target=target)
    nd = [ember.nd.array(a) for a in args]
    lib[lib.function_names[0] if hasattr(lib, "function_names") else "main"](*nd)
    np.savez(path, outputs=np.array(outs, dtype=np.int64), **{f"arg{n}": a for n, a in enumerate(args)},
             **{f"expected{n}": nd[n].numpy() for n in outs})
    return path


def cold_bytes() -> int:
    """Bytes to stream between two uses of one argument copy: ``EMBER_MS_COLD_BYTES`` if set,
    else twice the L2 of all cores (sysfs), else 16 MiB."""
    env = os.environ.get("EMBER_MS_COLD_BYTES")
    if env:
        return int(env)
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as f:
            text = f.read().strip()
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        l2 = int(text.rstrip("KMG")) * scale
        return 2 * l2 * (os.cpu_count() or 1)
    except (OSError, ValueError):
        return 16 << 20


def rotation_copies(arg_bytes: int, cold: int, limit: int = 4096) -> int:
    """How many copies of arguments of ``arg_bytes`` in all make each reuse come after at
    least ``cold`` bytes of the other copies (at most ``limit``)."""
    return min(limit, 1 + -(-cold // max(arg_bytes, 1)))



def measure_clock():
    """The clock candidates are timed with: the wall clock, or with ``EMBER_MS_CLOCK=thread``
    the CPU time of the calling thread — the whole kernel's time only when it runs on one
    thread, but then not inflated by time slices given to other processes (a loaded machine)."""
    mode = os.environ.get("EMBER_MS_CLOCK", "wall")
    if mode not in ("wall", "thread"):
        raise ValueError(f"EMBER_MS_CLOCK must be 'wall' or 'thread', got {mode!r}")
    return time.thread_time if mode == "thread" else time.perf_counter


def argument_copies(args: list, cold: int) -> list:
    """``args`` (NDArrays) and as many fresh copies of them as ``rotation_copies`` asks for."""
    import ember

    host = [a.numpy() for a in args]
    count = rotation_copies(sum(a.nbytes for a in host), cold)
    return [args] + [[ember.nd.array(a) for a in host] for _ in range(count - 1)]


def measure(artifact, args_info, config: EvaluatorConfig, reference: str | None) -> list:
    """Run-seconds per repeat of the library at ``artifact`` (a path, or the library's bytes)."""
    import ember
    from ember.codegen.llvm import load_library

    if isinstance(artifact, bytes):
        fd, path = tempfile.mkstemp(suffix=".so", prefix="ms_run_")
        with os.fdopen(fd, "wb") as f:
            f.write(artifact)
        artifact = path
    lib = load_library(artifact)
    names = lib.function_names
    fn = lib[names[0]]
    if reference is not None:
        ref = np.load(reference)
        outs = [int(n) for n in ref["outputs"]]
        args = [ember.nd.array(ref[f"arg{n}"]) for n in range(len(args_info))]
        fn(*args)
        for n in outs:
            got, want = args[n].numpy(), ref[f"expected{n}"]
            if not np.allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True):
                bad = np.abs(got.astype(np.float64) - want.astype(np.float64))
                raise AssertionError(f"wrong result: output {n} differs from the unscheduled program "
                                     f"(max abs diff {np.nanmax(bad):.3g}, "
                                     f"{int((bad > ATOL + RTOL * np.abs(want)).sum())} elements)")
    else:
        args = [ember.nd.array(a) for a in random_args(args_info)]
    copies = argument_copies(args, cold_bytes()) if config.enable_cpu_cache_flush else [args]
    for a in copies:  # warm up (code, page faults of every copy)
        fn(*a)
    secs = []
    number = config.number
    turn = 0
    clock = measure_clock()
    for _ in range(config.repeat):
        while True:
            start = clock()
            for _ in range(number):
                fn(*copies[turn])
                turn = (turn + 1) % len(copies)
            elapsed = clock() - start
            if elapsed * 1e3 >= config.min_repeat_ms or number >= 1 << 20:
                break
            number = max(number * 2, int(number * config.min_repeat_ms / max(elapsed * 1e3, 1e-3)) + 1)
        secs.append(elapsed / number)
    return secs
