"""The C API: ``ember_runtime.h`` and the small runtime library C programs link against.

``build_runtime()`` compiles ``ember_runtime.c`` with the system C compiler on first use
and caches the result (``$EMBER_CACHE_DIR/c_api/<hash of the sources>/``); it returns
the paths a build needs.  ``include_dir()`` is the folder holding the header (the
exporter also compiles a model's native entry point against it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pathlib
import subprocess

__all__ = ["HEADER", "SOURCE", "CRuntime", "build_runtime", "include_dir", "cache_root"]

_HERE = pathlib.Path(__file__).resolve().parent
HEADER = _HERE / "ember_runtime.h"
SOURCE = _HERE / "ember_runtime.c"


def cache_root() -> pathlib.Path:
    """ember's cache folder (``EMBER_CACHE_DIR``, default ``~/.cache/ember``)."""
    return pathlib.Path(os.environ.get("EMBER_CACHE_DIR") or pathlib.Path.home() / ".cache" / "ember")


def include_dir() -> str:
    return str(_HERE)


@dataclasses.dataclass(frozen=True)
class CRuntime:
    include_dir: str
    library: str  # libember_runtime.so
    link_flags: tuple[str, ...]  # what a program linking ``library`` adds


def build_runtime(cc: str | None = None) -> CRuntime:
    """Compile (once; cached by the sources' hash) and return the C runtime library."""
    digest = hashlib.sha256(HEADER.read_bytes() + SOURCE.read_bytes()).hexdigest()[:16]
    folder = cache_root() / "c_api" / digest
    library = folder / "libember_runtime.so"
    if not library.exists():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"libember_runtime.{os.getpid()}.so"
        cmd = [cc or os.environ.get("CC", "cc"), "-O2", "-fPIC", "-shared", "-I", str(_HERE), str(SOURCE),
               "-o", str(tmp), "-ldl"]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"building the ember C runtime failed ({' '.join(cmd)}):\n{done.stderr}")
        os.replace(tmp, library)
    return CRuntime(str(_HERE), str(library), (str(library), f"-Wl,-rpath,{folder}", "-ldl"))
