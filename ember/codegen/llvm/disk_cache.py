"""On-disk cache of JIT object code, so a new process reuses earlier compilations.

Entries live in ``$EMBER_CACHE_DIR`` (default ``~/.cache/ember``) under ``llvm/``,
keyed by a hash of the unoptimised LLVM IR, the target machine (triple, CPU,
features), the optimisation level and the LLVM version.  Each entry is the object
file plus the optimised IR text (for ``get_source``).  ``EMBER_DISK_CACHE=0`` turns
the cache off.  Writes go to a temporary file first and are renamed into place, so
concurrent processes never see half an entry.
"""

from __future__ import annotations

import hashlib
import os
import tempfile

__all__ = ["cache_key", "load", "store", "enabled", "cache_dir"]

_VERSION = "ember-llvm-cache-1"


def enabled() -> bool:
    return os.environ.get("EMBER_DISK_CACHE", "1") not in ("0", "false", "off", "")


def cache_dir() -> str:
    root = os.environ.get("EMBER_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "ember")
    return os.path.join(root, "llvm")


def cache_key(text: str, triple: str, cpu: str, features: str, opt_level: int) -> str:
    import llvmlite.binding as llvm

    h = hashlib.sha256()
    for part in (_VERSION, str(llvm.llvm_version_info), triple, cpu, features, str(opt_level), text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def load(key: str) -> tuple[bytes, str] | None:
    """(object code, optimised IR) for ``key``, or None."""
    if not enabled():
        return None
    base = os.path.join(cache_dir(), key)
    try:
        with open(base + ".o", "rb") as f:
            obj = f.read()
        with open(base + ".ll", encoding="utf-8") as f:
            ll = f.read()
    except OSError:
        return None
    return obj, ll


def store(key: str, obj: bytes, ll: str) -> None:
    """Save an entry; failures (read-only home, full disk) are ignored."""
    if not enabled() or not obj:
        return
    directory = cache_dir()
    try:
        os.makedirs(directory, exist_ok=True)
        for ext, data in ((".ll", ll.encode()), (".o", obj)):  # .o last: its presence marks completeness
            fd, tmp = tempfile.mkstemp(dir=directory, suffix=ext + ".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, os.path.join(directory, key + ext))
    except OSError:
        pass
