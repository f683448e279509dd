"""How many threads compiled kernels use: ``set_num_threads(n)`` / ``get_num_threads()``.

The count is ``EMBER_NUM_THREADS``, else ``TVM_NUM_THREADS``, else ``OMP_NUM_THREADS``,
else the number of physical cores.  Parallel loops run on the OpenMP runtime (libgomp);
kernels compiled without an explicit ``-num-cores`` ask it for its current team size, so
``set_num_threads`` changes already-compiled kernels too (from the calling thread on),
and targets created afterwards plan their schedules for the new count.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

__all__ = ["set_num_threads", "get_num_threads", "apply_to_openmp"]

_ENV = ("EMBER_NUM_THREADS", "TVM_NUM_THREADS", "OMP_NUM_THREADS")


def _physical_cores() -> int:
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "core_id") as f, open(base + "physical_package_id") as g:
                cores.add((g.read().strip(), f.read().strip()))
        except OSError:
            return len(cpus) or 1
    return len(cores) or 1


def get_num_threads() -> int:
    """Threads a parallel kernel uses (see the module docstring for the order of sources)."""
    for var in _ENV:
        value = os.environ.get(var, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return _physical_cores()


def _libgomp():
    name = ctypes.util.find_library("gomp") or "libgomp.so.1"
    try:  # only a copy already in the process (the one compiled kernels call)
        return ctypes.CDLL(name, mode=getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_GLOBAL)
    except OSError:
        return None


def apply_to_openmp() -> None:
    """Give the loaded OpenMP runtime the current count (the JIT calls this once it loads
    libgomp; ``set_num_threads`` calls it on every change)."""
    lib = _libgomp()
    if lib is not None:
        lib.omp_set_num_threads(ctypes.c_int(get_num_threads()))


def set_num_threads(n: int) -> None:
    """Run parallel kernels on ``n`` threads from now on (and plan new schedules for ``n``)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_threads: n must be a positive int, got {n!r}")
    os.environ["EMBER_NUM_THREADS"] = str(n)
    apply_to_openmp()
