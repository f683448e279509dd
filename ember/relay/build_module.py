"""``relay.build``: compile an imported model (Relax) for the classic graph-executor flow.

``build(mod, target, params=params)`` binds ``params`` into ``mod["main"]`` as constants,
compiles with ``relax.build`` (which legalizes, fuses and schedules), and returns an
``ExecutorFactory``: it unpacks as ``graph_json, lib, params``; ``lib`` is the VM
executable (``export_library``, ``lib["default"](dev)``) carrying the graph JSON.
"""

from __future__ import annotations

from typing import Any

from ember.ir import IRModule
from ember.runtime.graph_executor import GraphModule, graph_json
from ember.runtime.ndarray import NDArray, array
from ember.transform import PassContext

__all__ = ["ExecutorFactory", "build", "build_config"]


def build_config(opt_level: int = 2, required_pass=(), disabled_pass=(), **kwargs) -> PassContext:
    """The classic ``relay.build_config(opt_level=3)``: a ``PassContext``."""
    return PassContext(opt_level=opt_level, required_pass=required_pass or (), disabled_pass=disabled_pass or (),
                       config=kwargs.get("config"))


class ExecutorFactory:
    """What ``relay.build`` returns (TVM's GraphExecutorFactoryModule)."""

    def __init__(self, graph_json_str: str, lib, params: dict[str, NDArray], mod_name: str = "default"):
        self.graph_json = graph_json_str
        self.lib = self.executable = lib
        self.params = params
        self.libmod_name = mod_name

    def __iter__(self):  # graph, lib, params = relay.build(...)
        return iter((self.graph_json, self.lib, self.params))

    def get_graph_json(self) -> str:
        return self.graph_json

    def get_lib(self):
        return self.lib

    def get_params(self) -> dict[str, NDArray]:
        return self.params

    def export_library(self, file_name: str, *args, **kwargs):
        return self.lib.export_library(file_name, *args, **kwargs)

    def __getitem__(self, name: str):
        if name == self.libmod_name:
            return lambda device=None: GraphModule(self.lib, self.graph_json, device)
        raise KeyError(f"relay.build result: no function {name!r} (use [{self.libmod_name!r}](dev))")


def _static(shape) -> list:
    from ember.tir import IntImm

    return [int(d.value) if isinstance(d, IntImm) else str(d) for d in shape]


def _tensor_infos(sinfo) -> list[tuple[list, str]]:
    from ember.relax import TensorStructInfo, TupleStructInfo

    if isinstance(sinfo, TupleStructInfo):
        out = []
        for field in sinfo.fields:
            out += _tensor_infos(field)
        return out
    if isinstance(sinfo, TensorStructInfo) and sinfo.shape is not None:
        from ember.relax.struct_info import shape_values

        return [(_static(shape_values(sinfo)), str(sinfo.dtype))]
    return [([], str(getattr(sinfo, "dtype", "")))]


def build(mod, target: Any = None, target_host: Any = None, params: dict | None = None,
          mod_name: str = "default", executor=None, runtime=None) -> ExecutorFactory:
    """Compile ``mod`` (from ``relay.frontend`` or ``relay.testing``) for ``target``."""
    from ember import relax
    from ember.relax.transform.bind_params import bind_params

    if isinstance(mod, relax.Function):
        mod = IRModule.from_expr(mod)
    if not isinstance(mod, IRModule):
        raise TypeError(f"relay.build: mod must be the IRModule a frontend returned, got {type(mod).__name__}")
    if "main" not in [gv.name_hint for gv in mod.functions]:
        raise ValueError("relay.build: mod has no 'main' function")
    if isinstance(target, dict):  # {"cpu": "llvm"} in old code
        target = next(iter(target.values()))
    params = {name: value if isinstance(value, NDArray) else array(value) for name, value in (params or {}).items()}
    known = {p.name_hint for p in mod["main"].params}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ValueError(f"relay.build: params {', '.join(map(repr, unknown))} are not parameters of main "
                         f"(parameters: {', '.join(sorted(known))})")
    if params:
        mod = bind_params(mod, params)
    main = mod["main"]
    inputs = []
    for var in main.params:
        (shape, dtype), = _tensor_infos(var.struct_info)
        inputs.append((var.name_hint, shape, dtype))
    outputs = _tensor_infos(main.ret_struct_info)
    exe = relax.build(mod, target or "llvm")
    exe.metadata["graph_json"] = graph_json("main", inputs, outputs, params)
    return ExecutorFactory(exe.metadata["graph_json"], exe, params, mod_name)
