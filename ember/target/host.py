"""Facts about the CPU a target runs on: name, features, vector width and core count.

``llvm`` with no ``-mcpu`` means the host CPU, which LLVM reports through llvmlite.
For a named CPU we read its features from LLVM's target machine where we can and
fall back to a small table of well-known CPUs for the vector width.
"""

from __future__ import annotations

import functools
import os

__all__ = ["host_cpu_name", "host_cpu_features", "vector_width_bits", "default_num_cores"]

# features → widest native vector register in bits, first match wins
_VECTOR_WIDTH_RULES = (
    ("+avx512f", 512),
    ("+avx2", 256),
    ("+avx", 256),
    ("+sse2", 128),
    ("+neon", 128),
    ("+sve", 128),
    ("+simd128", 128),
)
# CPUs whose widest vectors we know without asking LLVM
_CPU_WIDTHS = {
    512: ("skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "icelake-client",
          "icelake-server", "tigerlake", "sapphirerapids", "emeraldrapids", "graniterapids",
          "znver4", "znver5", "x86-64-v4", "knl", "knm", "rocketlake"),
    256: ("haswell", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake",
          "znver1", "znver2", "znver3", "x86-64-v3", "sandybridge", "ivybridge", "bdver4"),
}


@functools.cache
def host_cpu_name() -> str:
    import llvmlite.binding as llvm

    return llvm.get_host_cpu_name()


@functools.cache
def host_cpu_features() -> tuple[str, ...]:
    """Host CPU features as ``+name`` / ``-name`` strings."""
    import llvmlite.binding as llvm

    try:
        text = llvm.get_host_cpu_features().flatten()
    except RuntimeError:  # some platforms cannot report features
        return ()
    return tuple(f for f in text.split(",") if f)


def vector_width_bits(cpu: str, features: tuple[str, ...]) -> int:
    """The widest vector register (bits) for ``cpu`` with ``features`` (+x/-x strings)."""
    enabled = {f[1:] for f in features if f.startswith("+")}
    disabled = {f[1:] for f in features if f.startswith("-")}
    for feature, bits in _VECTOR_WIDTH_RULES:
        if feature[1:] in enabled:
            return bits
    width = next((bits for bits, cpus in _CPU_WIDTHS.items() if cpu in cpus), 128)
    if width == 512 and "avx512f" in disabled:
        width = 256
    if width == 256 and "avx" in disabled:
        width = 128
    return width


def _physical_cores() -> int:
    """Physical cores available to this process (hyper-threads counted once)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "core_id") as f:
                core = f.read().strip()
            with open(base + "physical_package_id") as f:
                package = f.read().strip()
        except OSError:
            return len(cpus) or 1
        cores.add((package, core))
    return len(cores) or 1


def default_num_cores() -> int:
    """Cores to use when the target gives no ``-num-cores``: EMBER_NUM_THREADS (which
    ``ember.runtime.set_num_threads`` sets), TVM_NUM_THREADS, OMP_NUM_THREADS, then the
    number of physical cores."""
    for var in ("EMBER_NUM_THREADS", "TVM_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return _physical_cores()
