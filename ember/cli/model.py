"""Models for the command line: read ONNX files, compile them (through the compile cache),
load compiled libraries, and move inputs/outputs in and out of ``.npz`` files.

The compile cache (``$EMBER_CACHE_DIR/compiled``) keys a compiled library by the model's
bytes, the input shapes, the target, the tuning database's contents and the compiler's
own source, so a second ``ember compile`` of the same model is a file copy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import shutil

import numpy as np

from .ui import ModelError, Progress, UsageError

__all__ = ["parse_input_shapes", "load_onnx", "compile_model", "CompiledModel", "load_compiled"]

_EMBER_ROOT = pathlib.Path(__file__).resolve().parents[1]


def parse_input_shapes(specs: list[str] | None) -> dict[str, list[int]]:
    """``["x:1x3x224x224", "y:1x10"]`` (or comma-separated) → ``{"x": [1, 3, 224, 224], ...}``."""
    shapes: dict[str, list[int]] = {}
    for spec in specs or []:
        for item in filter(None, spec.split(",")):
            name, sep, dims = item.rpartition(":")
            if not sep or not name:
                raise UsageError(f"--input-shapes: expected NAME:D1xD2x..., got {item!r}")
            try:
                shapes[name] = [int(d) for d in dims.lower().split("x")] if dims else []
            except ValueError:
                raise UsageError(f"--input-shapes: dimensions of {name!r} must be integers separated by 'x', "
                                 f"got {dims!r}") from None
            if any(d < 0 for d in shapes[name]):
                raise UsageError(f"--input-shapes: dimensions of {name!r} must be >= 0, got {dims!r}")
    return shapes


def load_onnx(path: str):
    """The ``onnx.ModelProto`` in ``path`` (a clear error for a missing or broken file)."""
    if not os.path.isfile(path):
        raise UsageError(f"model file {path!r} does not exist")
    try:
        import onnx
    except ImportError:
        raise ModelError("reading ONNX models needs the onnx package: pip install 'ember[onnx]'") from None
    try:
        return onnx.load(path)
    except Exception as err:  # noqa: BLE001 - protobuf raises several types for a bad file
        raise ModelError(f"{path!r} is not a readable ONNX model ({type(err).__name__}: {err})") from None


def _graph_inputs(model) -> list:
    initializers = {t.name for t in model.graph.initializer}
    return [vi for vi in model.graph.input if vi.name not in initializers]


def _source_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted(_EMBER_ROOT.rglob("*.py")):
        digest.update(str(path.relative_to(_EMBER_ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _folder_fingerprint(folder: str | None) -> str:
    if not folder:
        return ""
    digest = hashlib.sha256()
    for path in sorted(pathlib.Path(folder).rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(model_path: str, shapes: dict, target: str, tuning_db: str | None) -> str:
    digest = hashlib.sha256()
    digest.update(pathlib.Path(model_path).read_bytes())
    digest.update(json.dumps([sorted(shapes.items()), target, _folder_fingerprint(tuning_db)]).encode())
    digest.update(_source_fingerprint().encode())
    return digest.hexdigest()[:32]


def _cache_dir() -> pathlib.Path:
    from ember.runtime.c_api import cache_root

    return cache_root() / "compiled"


def meta_schedule_entry(name: str):
    """``ember.meta_schedule.<name>`` (``tune_relax`` / ``compile_relax``), or None while the
    Relax integration of MetaSchedule is not part of this version."""
    import importlib.util

    try:
        if importlib.util.find_spec("ember.meta_schedule.relax_integration") is None:
            return None
        module = importlib.import_module("ember.meta_schedule.relax_integration")
    except ImportError:
        return None
    return getattr(module, name, None)


def _apply_tuning_db(mod, target, tuning_db: str, progress: Progress):
    from ember import meta_schedule

    compile_relax = meta_schedule_entry("compile_relax")
    if compile_relax is None:
        raise ModelError("--tuning-db: applying a tuning database needs ember.meta_schedule.compile_relax, "
                         "which is not available yet in this version of ember")
    if not os.path.isdir(tuning_db):
        raise UsageError(f"--tuning-db: {tuning_db!r} is not a folder")
    database = meta_schedule.database.JSONDatabase(work_dir=tuning_db)
    with progress.step(f"compiling with the tuning records in {tuning_db}"):
        return compile_relax(database, mod, target)


def _import(model, shapes: dict, progress: Progress, name: str):
    from ember.relax.frontend.onnx import ONNXImportError, OpNotImplemented, from_onnx

    inputs = {vi.name for vi in _graph_inputs(model)}
    unknown = sorted(set(shapes) - inputs)
    if unknown:
        raise UsageError(f"--input-shapes: the model has no input(s) {', '.join(map(repr, unknown))} "
                         f"(inputs: {', '.join(sorted(inputs))})")
    with progress.step(f"importing {name}"):
        try:
            return from_onnx(model, shape_dict=shapes or None)
        except (OpNotImplemented, ONNXImportError) as err:
            raise ModelError(str(err)) from err


def compile_model(model_path: str, output: str, shapes: dict | None = None, target: str = "llvm",
                  tuning_db: str | None = None, progress: Progress | None = None, use_cache: bool = True) -> dict:
    """Compile the ONNX model at ``model_path`` into the library ``output``; returns a summary
    (``cached``: whether the compile cache served it, ``entry``: the native entry summary)."""
    progress = progress or Progress(quiet=True)
    shapes = shapes or {}
    model = load_onnx(model_path)
    key = cache_key(model_path, shapes, target, tuning_db)
    cached = _cache_dir() / f"{key}.so"
    if use_cache and cached.exists():
        shutil.copyfile(cached, output)
        info = json.loads(cached.with_suffix(".json").read_text())
        progress.note(f"  served from the compile cache ({cached})")
        return {**info, "cached": True}
    from ember import relax
    from ember.runtime.graph_executor import graph_json
    from ember.target import Target

    name = os.path.basename(model_path)
    mod = _import(model, shapes, progress, name)
    try:
        target_obj = Target(target)
    except Exception as err:  # noqa: BLE001 - the target parser's error, one line
        raise UsageError(f"--target: {err}") from None
    if tuning_db:
        exe = _apply_tuning_db(mod, target_obj, tuning_db, progress)
    else:
        with progress.step(f"compiling for {target} (optimise, legalize, fuse, schedule, generate code)"):
            exe = relax.build(mod, target_obj)
    meta = _io_metadata(model, mod)
    exe.metadata["ember_model"] = meta
    exe.metadata["graph_json"] = graph_json("main", [(i["name"], i["shape"], i["dtype"]) for i in meta["inputs"]],
                                            [(o["shape"], o["dtype"]) for o in meta["outputs"]], {})
    with progress.step(f"writing {output}"):
        entry = exe.export_library(output)
    info = {"model": name, "target": target, "inputs": meta["inputs"], "outputs": meta["outputs"],
            "native_entry": entry.source is not None, "entry": entry.reason,
            "kernels": len(exe.kernels.function_names) if exe.kernels is not None else 0}
    if use_cache:
        _cache_dir().mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        shutil.copyfile(output, tmp)
        cached.with_suffix(".json").write_text(json.dumps(info))
        os.replace(tmp, cached)
        _evict(_cache_dir(), keep=cached)
    return {**info, "cached": False}


def _evict(folder: pathlib.Path, keep: pathlib.Path) -> None:
    """Remove the least recently written libraries beyond ``EMBER_COMPILE_CACHE_MB`` (2048)."""
    limit = float(os.environ.get("EMBER_COMPILE_CACHE_MB", "2048")) * 1e6
    entries = sorted(folder.glob("*.so"), key=lambda p: p.stat().st_mtime, reverse=True)
    total = 0
    for path in entries:
        total += path.stat().st_size
        if total > limit and path != keep:
            for stale in (path, path.with_suffix(".json")):
                stale.unlink(missing_ok=True)


def _static_dims(sinfo) -> list:
    from ember.tir import IntImm

    shape = getattr(sinfo, "shape", None)
    if shape is None:
        return []
    return [int(d.value) if isinstance(d, IntImm) else str(d) for d in shape.values]


def _io_metadata(model, mod) -> dict:
    """Input names (ONNX and Relax), shapes and dtypes; output names, shapes and dtypes."""
    from ember.relax import TupleStructInfo

    main = mod["main"]
    onnx_inputs = _graph_inputs(model)
    inputs = []
    for i, var in enumerate(main.params[: len(onnx_inputs)]):
        sinfo = var.struct_info
        inputs.append({"name": var.name_hint, "onnx_name": onnx_inputs[i].name, "shape": _static_dims(sinfo),
                       "dtype": str(sinfo.dtype)})
    ret = main.ret_struct_info
    fields = ret.fields if isinstance(ret, TupleStructInfo) else [ret]
    names = [o.name for o in model.graph.output]
    outputs = [{"name": names[i] if i < len(names) else f"output{i}", "shape": _static_dims(s),
                "dtype": str(getattr(s, "dtype", ""))} for i, s in enumerate(fields)]
    return {"inputs": inputs, "outputs": outputs}


@dataclasses.dataclass
class CompiledModel:
    """A loaded library with what the CLI knows about its inputs and outputs."""

    executable: object
    inputs: list[dict]
    outputs: list[dict]
    function: str = "main"

    def __post_init__(self):
        from ember.runtime import cpu
        from ember.runtime.vm import VirtualMachine

        self.vm = VirtualMachine(self.executable, cpu())
        self.entry = self.vm[self.function]

    def arrange(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The entry's arguments from ``feeds`` (keyed by ONNX or ember input names, or
        ``arr_0`` … in order)."""
        args = []
        for i, spec in enumerate(self.inputs):
            for key in (spec.get("onnx_name"), spec["name"], f"arr_{i}"):
                if key is not None and key in feeds:
                    args.append(np.ascontiguousarray(feeds[key]))
                    break
            else:
                raise UsageError(f"--inputs: no array for input {spec.get('onnx_name', spec['name'])!r} "
                                 f"(arrays given: {', '.join(feeds) or 'none'})")
            shape = spec.get("shape")
            if shape and all(isinstance(d, int) for d in shape) and list(args[-1].shape) != shape:
                raise UsageError(f"--inputs: input {spec.get('onnx_name', spec['name'])!r}: expected shape "
                                 f"{tuple(shape)}, got {args[-1].shape}")
        return args

    def random_inputs(self, seed: int = 0) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(seed)
        feeds = {}
        for spec in self.inputs:
            shape = spec.get("shape") or []
            if "dtype" not in spec or not all(isinstance(d, int) for d in shape):
                raise UsageError(f"input {spec['name']!r} has symbolic shape {shape}; pass --inputs")
            dtype = np.dtype(spec["dtype"])
            value = rng.standard_normal(shape) if dtype.kind == "f" else rng.integers(0, 10, size=shape)
            feeds[spec.get("onnx_name", spec["name"])] = np.asarray(value).astype(dtype)
        return feeds

    def run(self, args: list[np.ndarray]) -> list[np.ndarray]:
        result = self.entry(*args)
        values = list(result) if isinstance(result, tuple | list) else [result]
        return [v.numpy() if hasattr(v, "numpy") else np.asarray(v) for v in values]

    def output_names(self, count: int) -> list[str]:
        names = [o["name"] for o in self.outputs]
        return [names[i] if i < len(names) else f"output{i}" for i in range(count)]


def load_compiled(path: str) -> CompiledModel:
    """A library written by ``ember compile`` (or any exported executable with ``main``)."""
    from ember.runtime import load_module
    from ember.runtime.vm import Executable

    if not os.path.isfile(path):
        raise UsageError(f"compiled model {path!r} does not exist")
    try:
        exe = load_module(path)
    except (ValueError, OSError) as err:
        raise ModelError(str(err)) from None
    from ember.runtime.export.aot_c import entry_function_name

    entry = entry_function_name(exe) if isinstance(exe, Executable) else None
    if entry is None:
        raise ModelError(f"{path!r} holds no model (a VM function 'main', or a single function); compile one "
                         "with `ember compile`")
    meta = exe.metadata.get("ember_model") or {"inputs": _inputs_from_program(exe.functions[entry]), "outputs": []}
    return CompiledModel(exe, meta["inputs"], meta["outputs"], entry)


def _inputs_from_program(func) -> list[dict]:
    """Input specs of a library exported without CLI metadata, read from the argument checks
    at the start of its VM function (static dims only; others stay names)."""
    from ember.runtime.vm.executable import Call

    specs = [{"name": name} for name in func.params]
    for instr in func.instrs:
        if not isinstance(instr, Call) or not instr.args or instr.args[0].kind != "reg":
            continue
        reg = instr.args[0].value
        if reg >= len(specs):
            continue
        values = [a.value for a in instr.args]
        if instr.func == "vm.builtin.check_tensor_info" and len(values) == 4:
            specs[reg]["dtype"] = values[2]
        elif instr.func == "vm.builtin.match_shape":
            spec = values[3:]
            specs[reg]["shape"] = [spec[i + 1] if spec[i] == 0 else spec[i + 2] or "?" for i in range(0, len(spec), 3)]
    return specs
