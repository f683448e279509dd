"""``tvm.contrib.cc``: drive the system C compiler (``$CC``, else ``cc``).

``create_shared(output, objects, options)`` links objects or sources into a shared
library, ``create_staticlib(output, inputs)`` archives objects with ``ar``,
``create_executable`` links a program; each raises ``RuntimeError`` with the compiler's
output when it fails.  ``cross_compiler(compile_func, options)`` makes a variant with
extra options.
"""

from __future__ import annotations

import os
import shutil
import subprocess

__all__ = ["get_cc", "create_shared", "create_staticlib", "create_executable", "cross_compiler"]


def get_cc() -> str | None:
    """The C compiler used: ``$CC``, else the first of cc/gcc/clang on PATH (None if none)."""
    if os.environ.get("CC"):
        return os.environ["CC"]
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    return None


def _run(cmd: list[str], what: str, cwd: str | None = None) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({' '.join(cmd)}):\n{proc.stdout}{proc.stderr}")


def _as_list(value) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [os.fspath(v) for v in value]


def _compiler(cc: str | None) -> str:
    found = cc or get_cc()
    if found is None:
        raise RuntimeError("no C compiler found: set $CC or install cc/gcc/clang")
    return found


def create_shared(output: str, objects, options=None, cc: str | None = None, cwd: str | None = None,
                  ccache_env=None) -> None:
    """Link ``objects`` (object files, archives, C sources or linker flags) into the shared
    library ``output``."""
    cmd = [_compiler(cc), "-shared", "-fPIC", "-o", os.fspath(output), *_as_list(objects), *_as_list(options)]
    _run(cmd, "create_shared", cwd)


def create_executable(output: str, objects, options=None, cc: str | None = None, cwd: str | None = None,
                      ccache_env=None) -> None:
    """Link ``objects`` into the program ``output``."""
    _run([_compiler(cc), "-o", os.fspath(output), *_as_list(objects), *_as_list(options)], "create_executable", cwd)


def create_staticlib(output: str, inputs, ar: str | None = None) -> None:
    """Archive the object files ``inputs`` into the static library ``output``."""
    tool = ar or os.environ.get("AR") or "ar"
    output = os.fspath(output)
    if os.path.exists(output):
        os.remove(output)
    _run([tool, "crs", output, *_as_list(inputs)], "create_staticlib")


create_shared.output_format = "so"
create_executable.output_format = ""
create_staticlib.output_format = "a"


def cross_compiler(compile_func, options=None, output_format: str | None = None, get_target_triple=None,
                   add_files=None):
    """``compile_func`` (a function like ``create_shared``, or a compiler command) with
    ``options`` and ``add_files`` appended to every call."""
    base_options, extra_files = _as_list(options), _as_list(add_files)
    if isinstance(compile_func, str):
        command = compile_func

        def compile_func(output, objects, options=None, cc=None, **kwargs):
            create_shared(output, objects, options, cc=command, **kwargs)

    def compile_with(output, objects, options=None, **kwargs):
        compile_func(output, _as_list(objects) + extra_files, base_options + _as_list(options), **kwargs)

    compile_with.output_format = output_format or getattr(compile_func, "output_format", "so")
    if get_target_triple is not None:
        compile_with.get_target_triple = get_target_triple
    return compile_with
