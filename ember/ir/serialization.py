"""``save_json`` / ``load_json``: any IR value (PrimExpr, Stmt, PrimFunc, Relax expression,
struct info, IRModule) to a JSON text and back.

Nodes are written once each, in a table, and referred to by index, so a variable used
in many places is one variable again after loading (structural equality holds and
bindings stay bindings). Node classes are named by module and class; loading builds
them field by field without re-running their constructors (which may validate or
normalise differently than the IR being restored). Arrays (Relax constants) are stored
as base64 bytes with their dtype and shape.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import importlib
import json
import math

import numpy as np

from ember.runtime.dtype import DataType

from .module import IRModule
from .node import Node
from .op import Op

__all__ = ["save_json", "load_json"]

_FORMAT = "ember.ir.json/1"


class _Writer:
    def __init__(self):
        self.nodes: list = []
        self.index: dict[int, int] = {}
        self.keep: list = []

    def value(self, v):
        if isinstance(v, enum.Enum):
            return {"enum": [f"{type(v).__module__}:{type(v).__qualname__}", v.value]}
        if v is None or isinstance(v, bool | int | str):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"float": repr(v)}
        if isinstance(v, DataType):
            return {"dtype": str(v)}
        if isinstance(v, Op):
            return {"op": v.name}
        if isinstance(v, tuple):
            return {"tuple": [self.value(x) for x in v]}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {"dict": [[self.value(k), self.value(x)] for k, x in v.items()]}
        if isinstance(v, np.ndarray | np.generic) or hasattr(v, "numpy") and not isinstance(v, Node):
            arr = np.ascontiguousarray(v.numpy() if hasattr(v, "numpy") else v)
            return {"array": {"dtype": str(arr.dtype), "shape": list(arr.shape),
                              "data": base64.b64encode(arr.tobytes()).decode()}}
        if isinstance(v, IRModule):
            return {"module": {"functions": self.value({gv: f for gv, f in v.functions.items()}),
                               "attrs": self.value(v.attrs), "global_infos": self.value(v.global_infos)}}
        if isinstance(v, Node):
            return {"node": self.node(v)}
        if type(v).__name__ == "Target":
            return {"target": str(v)}
        raise TypeError(f"save_json: cannot serialise a {type(v).__module__}.{type(v).__name__}")

    def node(self, n: Node) -> int:
        key = id(n)
        if key in self.index:
            return self.index[key]
        slot = len(self.nodes)
        self.index[key] = slot
        self.keep.append(n)
        self.nodes.append(None)
        cls = type(n)
        fields = {f.name: self.value(getattr(n, f.name)) for f in dataclasses.fields(cls)}
        entry = {"type": f"{cls.__module__}:{cls.__qualname__}", "fields": fields}
        if "_sinfo" in _all_slots(cls):  # Relax expressions keep inferred struct info aside
            sinfo = getattr(n, "_sinfo", None)
            if sinfo is not None and "struct_info" not in fields:
                entry["struct_info"] = self.value(sinfo)
        self.nodes[slot] = entry
        return slot


class _Reader:
    def __init__(self, nodes: list):
        self.nodes = nodes
        self.built: dict[int, object] = {}

    def value(self, v):
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict):
            return v
        (kind, body), = v.items()
        if kind == "node":
            return self.node(body)
        if kind == "tuple":
            return tuple(self.value(x) for x in body)
        if kind == "dict":
            return {self.value(k): self.value(x) for k, x in body}
        if kind == "dtype":
            return DataType(body)
        if kind == "enum":
            return _resolve(body[0])(body[1])
        if kind == "op":
            return Op.get(body)
        if kind == "float":
            return float(body)
        if kind == "array":
            arr = np.frombuffer(base64.b64decode(body["data"]), dtype=_np_dtype(body["dtype"]))
            return arr.reshape(body["shape"]).copy()
        if kind == "module":
            return IRModule(self.value(body["functions"]), self.value(body["attrs"]),
                            self.value(body["global_infos"]))
        if kind == "target":
            from ember.target import Target

            return Target(body)
        raise ValueError(f"load_json: unknown value kind {kind!r}")

    def node(self, index: int):
        if index in self.built:
            return self.built[index]
        entry = self.nodes[index]
        cls = _resolve(entry["type"])
        obj = object.__new__(cls)
        self.built[index] = obj
        for name, raw in entry["fields"].items():
            value = self.value(raw)
            if name == "data" and isinstance(value, np.ndarray):
                value = _as_runtime_array(value)
            object.__setattr__(obj, name, value)
        if "struct_info" in entry:
            object.__setattr__(obj, "_sinfo", self.value(entry["struct_info"]))
        elif "_sinfo" in _all_slots(cls):
            object.__setattr__(obj, "_sinfo", None)
        return obj


def _resolve(path: str):
    """The class named ``module:Qual.Name``."""
    module_name, _, qualname = path.partition(":")
    obj = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _all_slots(cls) -> set:
    return {s for k in cls.__mro__ for s in getattr(k, "__slots__", ())}


def _np_dtype(name: str):
    if name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    return np.dtype(name)


def _as_runtime_array(arr: np.ndarray):
    try:
        from ember.runtime.ndarray import array

        return array(arr)
    except Exception:  # noqa: BLE001 - a dtype the runtime lacks stays a numpy array
        return arr


def save_json(node) -> str:
    """A JSON text from which ``load_json`` rebuilds a structurally equal ``node``."""
    writer = _Writer()
    root = writer.value(node)
    return json.dumps({"format": _FORMAT, "root": root, "nodes": writer.nodes})


def load_json(text: str):
    """The IR value saved by ``save_json``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"load_json: not JSON ({err})") from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise ValueError(f"load_json: not an ember IR document (expected format {_FORMAT!r})")
    return _Reader(data["nodes"]).value(data["root"])
