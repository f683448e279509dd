"""The classic graph-executor interface (``GraphModule``) over a compiled Relax VM executable.

TVM's graph executor ran a JSON graph of fused kernels.  ember compiles every model to
the Relax VM, so ``GraphModule`` is a thin face over ``VirtualMachine``: ``set_input``
stores inputs by name or index, ``run`` calls the entry function, ``get_output(i)`` reads
the flattened results.  The *graph JSON* that ``relay.build`` returns keeps TVM's
top-level fields (nodes, arg_nodes, heads, attrs.shape/dltype) and adds an ``"ember"``
section: the entry function, its inputs and outputs, and the parameters bound into the
library at build time (with a CRC-32 of their bytes, so ``set_input`` of a bound
parameter is checked rather than silently ignored).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import numpy as np

from .device import Device, DeviceType, cpu
from .ndarray import NDArray, array
from .param_dict import load_param_dict
from .profiling import time_evaluator as _time_evaluator
from .vm.executable import Executable
from .vm.vm import VirtualMachine

__all__ = ["GraphModule", "create", "graph_json", "param_checksum"]


def param_checksum(value) -> int:
    data = value.numpy() if isinstance(value, NDArray) else np.asarray(value)
    return zlib.crc32(np.ascontiguousarray(data).tobytes())


def graph_json(entry: str, inputs: list[tuple[str, tuple, str]], outputs: list[tuple[tuple, str]],
               bound: dict[str, Any]) -> str:
    """The graph JSON for an entry function with ``inputs`` (name, shape, dtype), ``outputs``
    (shape, dtype) and the parameters ``bound`` into the library (name → array)."""
    nodes = [{"op": "null", "name": name, "inputs": []} for name, _, _ in inputs]
    nodes.append({"op": "tvm_op", "name": entry, "inputs": [[i, 0, 0] for i in range(len(inputs))],
                  "attrs": {"func_name": entry, "num_inputs": str(len(inputs)),
                            "num_outputs": str(len(outputs)), "flatten_data": "0"}})
    shapes = [list(s) for _, s, _ in inputs] + [list(s) for s, _ in outputs]
    dtypes = [d for _, _, d in inputs] + [d for _, d in outputs]
    bound_info = {}
    for name, value in bound.items():
        data = value.numpy() if isinstance(value, NDArray) else np.asarray(value)
        bound_info[name] = {"shape": list(data.shape), "dtype": str(data.dtype), "crc32": param_checksum(data)}
    return json.dumps({
        "nodes": nodes,
        "arg_nodes": list(range(len(inputs))),
        "heads": [[len(inputs), i, 0] for i in range(len(outputs))],
        "node_row_ptr": list(range(len(nodes))) + [len(nodes) - 1 + len(outputs)],
        "attrs": {"shape": ["list_shape", shapes], "dltype": ["list_str", dtypes]},
        "ember": {"entry": entry,
                  "inputs": [{"name": n, "shape": list(s), "dtype": d} for n, s, d in inputs],
                  "outputs": [{"shape": list(s), "dtype": d} for s, d in outputs],
                  "bound_params": bound_info},
    })


def _parse_graph(graph: str | dict, exe: Executable) -> dict:
    if isinstance(graph, str):
        try:
            graph = json.loads(graph)
        except json.JSONDecodeError as err:
            raise ValueError(f"graph_executor.create: graph_json is not valid JSON ({err})") from None
    if not isinstance(graph, dict):
        raise TypeError(f"graph_executor.create: graph_json must be the JSON text relay.build returned, got "
                        f"{type(graph).__name__}")
    meta = graph.get("ember")
    if meta is None:
        raise ValueError("graph_executor.create: this graph JSON was not written by ember's relay.build (it has "
                         "no 'ember' section); TVM graph files cannot be run, rebuild the model with ember")
    if meta["entry"] not in exe.functions:
        raise ValueError(f"graph_executor.create: the library has no function {meta['entry']!r} named by the "
                         f"graph (functions: {', '.join(exe.functions)}); graph and library do not belong together")
    return meta


def _executable(lib) -> Executable:
    exe = getattr(lib, "executable", lib)
    if not isinstance(exe, Executable):
        raise TypeError(f"graph_executor: lib must be the library relay.build returned or load_module loaded, "
                        f"got {type(lib).__name__}")
    return exe


class GraphModule:
    """``GraphModule(lib["default"](dev))``; ``set_input``, ``run``, ``get_output``."""

    def __init__(self, module, graph: str | dict | None = None, device: Device | None = None):
        if isinstance(module, GraphModule):
            self.__dict__.update(module.__dict__)
            return
        exe = _executable(module)
        if graph is None:
            graph = exe.metadata.get("graph_json")
            if graph is None:
                raise ValueError("GraphModule: the library carries no graph; pass the graph JSON "
                                 "(graph_executor.create(graph_json, lib, dev))")
        self._meta = _parse_graph(graph, exe)
        self.device = device or cpu(0)
        if self.device.device_type != DeviceType.CPU:
            raise ValueError(f"GraphModule: the library runs on the CPU (ember's VM compiles for llvm targets), "
                             f"got device {self.device}; pass ember.cpu()")
        self._vm = VirtualMachine(exe, self.device)
        self._entry = self._vm[self._meta["entry"]]
        self._names = [i["name"] for i in self._meta["inputs"]]
        self._inputs: list[NDArray | None] = [None] * len(self._names)
        self._outputs: list[NDArray] = []

    # -- inputs -----------------------------------------------------------------------------
    def _index(self, key) -> int:
        if isinstance(key, int):
            if not 0 <= key < len(self._names):
                raise IndexError(f"GraphModule: input index {key} out of range ({len(self._names)} inputs)")
            return key
        if key in self._names:
            return self._names.index(key)
        return -1

    def set_input(self, key: str | int | None = None, value=None, **params) -> None:
        """Set input ``key`` (a name or an index) to ``value``, and each of ``params``."""
        if key is not None:
            self._set(key, value)
        for name, param in params.items():
            self._set(name, param)

    def _set(self, key, value) -> None:
        if value is None:
            raise ValueError(f"GraphModule.set_input: no value given for {key!r}")
        index = self._index(key)
        if index < 0:
            bound = self._meta["bound_params"].get(key)
            if bound is None:
                raise KeyError(f"GraphModule.set_input: the model has no input named {key!r} "
                               f"(inputs: {', '.join(self._names)})")
            if param_checksum(value) != bound["crc32"]:
                raise ValueError(f"GraphModule.set_input: parameter {key!r} was bound into the library by "
                                 "relay.build and the value given differs; rebuild with the new parameters")
            return
        spec = self._meta["inputs"][index]
        arr = value if isinstance(value, NDArray) else array(np.asarray(value))
        if tuple(arr.shape) != tuple(spec["shape"]) or str(arr.dtype) != spec["dtype"]:
            raise ValueError(f"GraphModule.set_input: input {spec['name']!r}: expected shape "
                             f"{tuple(spec['shape'])} dtype {spec['dtype']}, got shape {tuple(arr.shape)} "
                             f"dtype {arr.dtype}")
        self._inputs[index] = arr

    def load_params(self, data: bytes) -> None:
        """Set every parameter of a ``save_param_dict`` blob."""
        self.set_input(**load_param_dict(bytes(data)))

    def get_input(self, key: str | int) -> NDArray | None:
        index = self._index(key)
        if index < 0:
            raise KeyError(f"GraphModule.get_input: no input named {key!r} (inputs: {', '.join(self._names)})")
        return self._inputs[index]

    def get_input_index(self, name: str) -> int:
        return self._index(name)

    def get_num_inputs(self) -> int:
        return len(self._names)

    # -- running ----------------------------------------------------------------------------
    def run(self, **inputs) -> None:
        if inputs:
            self.set_input(**inputs)
        missing = [n for n, v in zip(self._names, self._inputs) if v is None]
        if missing:
            raise ValueError(f"GraphModule.run: input(s) {', '.join(map(repr, missing))} were not set "
                             "(set_input(name, value))")
        result = self._entry(*self._inputs)
        self._outputs = _flatten(result)

    def get_num_outputs(self) -> int:
        return len(self._meta["outputs"])

    def get_output(self, index: int, out: NDArray | None = None) -> NDArray:
        if not self._outputs:
            raise RuntimeError("GraphModule.get_output: call run() first")
        if not 0 <= index < len(self._outputs):
            raise IndexError(f"GraphModule.get_output: index {index} out of range "
                             f"({len(self._outputs)} outputs)")
        value = self._outputs[index]
        if out is not None:
            out.copyfrom(value)
            return out
        return value

    def benchmark(self, device: Device | None = None, func_name: str = "run", repeat: int = 5, number: int = 5,
                  min_repeat_ms: float = 0, end_to_end: bool = False, **kwargs):
        missing = [n for n, v in zip(self._names, self._inputs) if v is None]
        if missing:
            raise ValueError(f"GraphModule.benchmark: set input(s) {', '.join(missing)} first")
        return self._vm.time_evaluator(self._meta["entry"], device or self.device, number=number, repeat=repeat,
                                       min_repeat_ms=min_repeat_ms)(*self._inputs)

    def __getitem__(self, name: str):
        return getattr(self, name)

    @property
    def module(self) -> GraphModule:
        """TVM scripts time ``m.module.time_evaluator("run", dev, ...)``; the module is this object."""
        return self

    def time_evaluator(self, func_name: str, device: Device | None = None, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, **kwargs):
        """A timer of ``run`` (with the inputs set): ``timer().mean``, ``timer().results``."""
        if func_name != "run":
            raise ValueError(f"GraphModule.time_evaluator: only 'run' can be timed, got {func_name!r}")
        return _time_evaluator(lambda: self.run(), device or self.device, number=number, repeat=repeat,
                               min_repeat_ms=min_repeat_ms)


def _flatten(value) -> list:
    if isinstance(value, tuple | list):
        out = []
        for v in value:
            out += _flatten(v)
        return out
    return [value]


def create(graph_json_str: str, libmod, device: Device | list) -> GraphModule:
    """TVM's ``graph_executor.create(graph_json, lib, dev)``."""
    if isinstance(device, list | tuple):
        device = device[0]
    return GraphModule(libmod, graph_json_str, device)
