"""The OpenMP settings ember chooses for the process before any OpenMP runtime starts."""

from __future__ import annotations

import os


def bound_openmp_spinning() -> None:
    """Unless the user chose an OpenMP wait policy, idle OpenMP threads spin only briefly
    before sleeping (``GOMP_SPINCOUNT``).  libgomp reads this once, when it starts, and a
    process has one libgomp (PyTorch brings its own copy, which the kernels then share), so
    it is set when ember is imported: import ember before torch for it to apply.  With
    libgomp's default (spin for a long time) a team waiting at the end of a parallel loop
    burns the core its other thread needs whenever the machine has other work — measured
    on a loaded 2-core machine: SqueezeNet at 2 threads 30x ONNX Runtime's time with the
    default, 0.7-0.8x with a bounded spin."""
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["GOMP_SPINCOUNT"] = "10000"

