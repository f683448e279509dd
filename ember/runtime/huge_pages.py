"""Host memory on 2 MiB pages for the large arrays that kernels stream through.

A model's weights are read once per inference, layer after layer: ResNet-50 streams 118 MB
of them.  On 4 KiB pages every 4 KiB of a layer's weights costs a TLB miss, and under
virtualisation each miss walks two page tables.  Linux backs a range with transparent huge
pages when it is asked to (``madvise(MADV_HUGEPAGE)``, honoured when
``/sys/kernel/mm/transparent_hugepage/enabled`` is ``always`` or ``madvise``).  numpy already
asks for its own allocations of 4 MiB and more, but not from a 2 MiB boundary and not for
the 1–4 MiB arrays most layers have.

``empty(nbytes)``: a byte array starting on a 2 MiB boundary, its whole range advised, for
``nbytes >= MIN_BYTES``; smaller ones are 64-byte aligned numpy memory.  ``EMBER_HUGE_PAGES=0``
turns the advice off (the arrays stay aligned).  Elsewhere than Linux it is only alignment.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys

import numpy as np

__all__ = ["empty", "enabled", "HUGE_PAGE", "MIN_BYTES"]

HUGE_PAGE = 2 << 20
MIN_BYTES = 1 << 20  # below this, a huge page would be mostly padding
_ALIGN = 64
_MADV_HUGEPAGE = 14


def enabled() -> bool:
    """Whether ``empty`` advises huge pages (``EMBER_HUGE_PAGES``, default on, Linux only)."""
    return sys.platform.startswith("linux") and os.environ.get("EMBER_HUGE_PAGES", "1") != "0"


@functools.cache
def _madvise():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.madvise
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


def empty(nbytes: int) -> np.ndarray:
    """An uninitialised ``uint8`` array of ``nbytes``: on 2 MiB pages (see the module docstring)
    from ``MIN_BYTES`` up, else 64-byte aligned."""
    nbytes = int(nbytes)
    if nbytes < MIN_BYTES or not enabled():
        raw = np.empty(nbytes + _ALIGN, np.uint8)
        start = (-raw.ctypes.data) % _ALIGN
        return raw[start:start + nbytes]
    span = -(-nbytes // HUGE_PAGE) * HUGE_PAGE  # the last page whole: it is ours either way
    raw = np.empty(span + HUGE_PAGE, np.uint8)
    address = raw.ctypes.data
    start = (-address) % HUGE_PAGE
    advise = _madvise()
    if advise is not None:
        advise(address + start, span, _MADV_HUGEPAGE)  # a refusal (EINVAL: THP off) leaves small pages
    return raw[start:start + nbytes]
