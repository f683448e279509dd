"""``Executable.export_library``: a compiled model as one shared library, or a tar of objects.

The library links together: the kernels' object code (the code generator's
``export_library``), the VM program with its constants (``vm.serialize``; an assembler
``.incbin`` under the symbol ``__ember_vm_program``), and, for static-shape models, the
native entry point of ``aot_c`` (symbol ``__ember_aot_entry``, for the C API).  The
finished file is sealed (``seal``).  A ``.tar`` holds the same objects unlinked plus a
manifest; ``load_tar`` links it with the system C compiler, as TVM does.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tarfile
import tempfile

from .. import safetensors
from ..vm.executable import Executable
from ..vm.serialize import PROGRAM_SYMBOL, encode_program
from . import aot_c
from .blob import blob_object, run_tool
from .seal import seal

__all__ = ["export_executable", "load_tar", "constant_offsets", "write_objects_tar"]

_log = logging.getLogger("ember.export")
_MANIFEST = "ember_manifest.json"


def _cc(cc: str | None) -> str:
    return cc or os.environ.get("CC", "cc")


def constant_offsets(program: bytes) -> dict[int, int]:
    """Constant-pool index → byte offset of its data inside the encoded VM program."""
    size = int.from_bytes(program[8:16], "little")
    start = 16 + size
    header, base = safetensors.read_header(memoryview(program)[start:], "VM program constants")
    kinds = json.loads(program[16:16 + size])["constants"]
    return {i: start + base + header[k["array"]]["data_offsets"][0] for i, k in enumerate(kinds) if "array" in k}


def _entry_object(exe: Executable, program: bytes, tmp: str, cc: str) -> tuple[str | None, aot_c.AotResult]:
    from ..c_api import include_dir

    result = aot_c.generate(exe, constant_offsets(program))
    if result.source is None:
        _log.info("no native entry point: %s", result.reason)
        return None, result
    src, obj = os.path.join(tmp, "entry.c"), os.path.join(tmp, "entry.o")
    with open(src, "w") as f:
        f.write(result.source)
    run_tool([cc, "-O2", "-fPIC", "-c", "-I", include_dir(), src, "-o", obj], "compiling the native entry point")
    return obj, result


def _has_kernels(exe: Executable) -> bool:
    return exe.kernels is not None and bool(getattr(exe.kernels, "function_names", None))


def export_executable(exe: Executable, path: str, cc: str | None = None,
                      native_entry: bool = True) -> aot_c.AotResult:
    """Write ``exe`` as ``path`` (``.so``, or ``.tar`` of objects); returns what the native
    entry point covers (or why there is none)."""
    path = os.fspath(path)
    cc = _cc(cc)
    fmt = path.rsplit(".", 1)[-1]
    if fmt not in ("so", "tar"):
        raise ValueError(f"export_library: path {path!r}: expected a .so or .tar file name, got format {fmt!r}")
    if _has_kernels(exe) and not hasattr(exe.kernels, "export_library"):
        raise NotImplementedError(f"export_library: kernels of type {type(exe.kernels).__name__} cannot be "
                                  "exported (a loaded library is already a file: copy it)")
    program = encode_program(exe)
    with tempfile.TemporaryDirectory() as tmp:
        objects = [blob_object(program, PROGRAM_SYMBOL, tmp, cc, "the VM program")]
        entry = aot_c.AotResult(None, "disabled (native_entry=False)")
        device = (exe.metadata or {}).get("kernel_device", "cpu")
        if native_entry and device != "cpu":
            entry = aot_c.AotResult(None, f"the kernels run on {device}: no native C entry point")
        elif native_entry:
            entry_obj, entry = _entry_object(exe, program, tmp, cc)
            objects += [entry_obj] if entry_obj else []
        if fmt == "tar":
            _write_tar(exe, path, objects, tmp)
        elif _has_kernels(exe):
            exe.kernels.export_library(path, cc=cc, options=tuple(objects))
            seal(path)
        else:
            run_tool([cc, "-shared", "-o", path, *objects], "linking")
            seal(path)
    return entry


def _write_tar(exe: Executable, path: str, objects: list[str], tmp: str) -> None:
    if _has_kernels(exe):
        kernels = os.path.join(tmp, "kernels.o")
        exe.kernels.export_library(kernels)
        objects = [kernels, *objects]
    write_objects_tar(path, objects)


def write_objects_tar(path: str, objects: list[str]) -> None:
    """A ``.tar`` of object files plus the manifest ``load_tar`` links them with."""
    libs = ["-lm"]
    for obj in objects:
        with open(obj, "rb") as f:
            if b"GOMP_" in f.read():
                libs.append("-lgomp")
                break
    with tempfile.TemporaryDirectory() as tmp:
        manifest = os.path.join(tmp, _MANIFEST)
        with open(manifest, "w") as f:
            json.dump({"objects": [os.path.basename(o) for o in objects], "libs": libs}, f)
        with tarfile.open(path, "w") as tar:
            for name in [manifest, *objects]:
                tar.add(name, arcname=os.path.basename(name))


def load_tar(path: str, cc: str | None = None) -> str:
    """Link the objects of an exported ``.tar`` into a sealed ``.so`` (cached by the tar's
    hash) and return its path."""
    from ..c_api import cache_root

    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:20]
    folder = cache_root() / "tar_libs" / digest
    library = folder / "model.so"
    if library.exists():
        return str(library)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(path) as tar, tempfile.TemporaryDirectory(dir=folder) as tmp:
            names = tar.getnames()
            if _MANIFEST not in names:
                raise ValueError(f"load_module: {path!r} is not a tar written by export_library (no {_MANIFEST})")
            for member in tar.getmembers():
                if not member.isfile() or os.path.basename(member.name) != member.name:
                    raise ValueError(f"load_module: {path!r} holds an unexpected entry {member.name!r}")
            tar.extractall(tmp)
            with open(os.path.join(tmp, _MANIFEST)) as f:
                manifest = json.load(f)
            objects = [os.path.join(tmp, o) for o in manifest["objects"] if o in names]
            out = os.path.join(tmp, "model.so")
            run_tool([_cc(cc), "-shared", "-o", out, *objects, *manifest["libs"]], "linking the tar's objects")
            seal(out)
            os.replace(out, library)
    except (tarfile.TarError, EOFError, json.JSONDecodeError, KeyError) as err:
        raise ValueError(f"load_module: {path!r} is truncated or corrupt ({err})") from None
    return str(library)
