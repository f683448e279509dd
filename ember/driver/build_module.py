"""``ember.lower`` and ``ember.build``: from a PrimFunc / IRModule (or TE) to a runtime Module.

``lower`` normalises the input to an IRModule of PrimFuncs and runs the TIR lowering
pipeline (``tir.transform.lower_for_codegen``).  ``build`` lowers, then hands the
module to the code generator of the target's kind (a table, kind → builder).
"""

from __future__ import annotations

import importlib
from typing import Any

from ember.ir import IRModule
from ember.target import Target
from ember.tir import PrimFunc

__all__ = ["lower", "build", "BUILDERS", "normalize_inputs"]

# target kind → "module:function" building a runtime Module from a lowered IRModule
BUILDERS = {
    "llvm": "ember.codegen.llvm:build_llvm",
    "c": "ember.codegen.c:build_c",
    "cuda": "ember.codegen.cuda:build_cuda",
}


def _from_te(inputs, args, name: str) -> IRModule | None:
    """Hook for TE inputs: a list of te.Tensors, or a legacy ``te.Schedule`` with ``args``."""
    te_tensor = _optional("ember.te", "Tensor")
    if isinstance(inputs, list | tuple) and inputs and te_tensor and all(isinstance(t, te_tensor) for t in inputs):
        from ember.te import create_prim_func

        return IRModule({name: create_prim_func(list(inputs)).with_attr("global_symbol", name)})
    schedule_cls = _optional("ember.te", "Schedule")
    if schedule_cls is not None and isinstance(inputs, schedule_cls):
        if args is None:
            raise ValueError("build/lower of a te.Schedule needs args: the list of input and output tensors")
        # the te engineer's adapter: Schedule + args → PrimFunc (legacy stage API over tir.Schedule)
        to_func = getattr(inputs, "to_prim_func", None)
        if to_func is None:
            raise NotImplementedError("te.Schedule → PrimFunc conversion (Schedule.to_prim_func) is not available yet")
        return IRModule({name: to_func(list(args), name=name).with_attr("global_symbol", name)})
    return None


def _optional(module: str, attr: str):
    try:
        return getattr(importlib.import_module(module), attr, None)
    except ImportError:
        return None


def normalize_inputs(inputs: Any, args=None, name: str = "main") -> IRModule:
    """An IRModule of PrimFuncs from a PrimFunc, an IRModule, TE tensors or a te.Schedule."""
    if isinstance(inputs, PrimFunc):
        func = inputs
        if "global_symbol" not in func.attrs:
            func = func.with_attr("global_symbol", name)
        return IRModule({func.attrs["global_symbol"]: func})
    if isinstance(inputs, IRModule):
        return inputs
    mod = _from_te(inputs, args, name)
    if mod is not None:
        return mod
    raise TypeError(
        "build/lower: inputs must be a PrimFunc, an IRModule of PrimFuncs, a list of te.Tensors "
        f"or a te.Schedule with args, got {type(inputs).__name__}"
    )


def lower(inp: Any, args=None, name: str = "main", binds=None, simple_mode: bool = False,
          target: Any = None) -> IRModule:
    """The lowered IRModule of ``inp`` (what the code generators consume); prints as TVMScript."""
    from ember.tir.transform import lower_for_codegen

    mod = normalize_inputs(inp, args, name)
    return lower_for_codegen(mod, _target(target))


def _target(target: Any) -> Target | None:
    if target is None:
        return Target.current()
    return target if isinstance(target, Target) else Target(target)


def build(inputs: Any, args=None, target: Any = None, target_host: Any = None, runtime=None,
          name: str = "main", binds=None):
    """Compile ``inputs`` for ``target`` (default: the current target, else ``"llvm"``).

    ``inputs``: a PrimFunc, an IRModule of PrimFuncs, TE tensors, or a ``te.Schedule``
    with ``args``.  Returns a runtime Module: ``mod(a, b)``, ``mod["name"](a, b)``,
    ``mod.time_evaluator("name", ember.cpu())``, ``mod.get_source("ll")``.
    """
    if isinstance(args, str | Target | dict):  # build(func, "llvm")
        target, args = args, None
    target = _target(target) or Target("llvm")
    if target_host is not None:
        target = Target(target, target_host)
    mod = normalize_inputs(inputs, args, name)
    for gv, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            raise TypeError(f"build: function {gv.name_hint!r} is a {type(func).__name__}, not a PrimFunc; "
                            "build Relax programs with ember.relax.build")
    from ember.tir.transform import lower_for_codegen

    lowered = lower_for_codegen(mod, target)
    return _builder(target)(lowered, target)


def _builder(target: Target):
    spec = BUILDERS.get(target.kind.name)
    if spec is None:
        raise ValueError(f"build: no code generator for target kind {target.kind.name!r}; "
                         f"supported: {', '.join(sorted(BUILDERS))}")
    module_name, func_name = spec.split(":")
    try:
        return getattr(importlib.import_module(module_name), func_name)
    except (ImportError, AttributeError) as err:
        raise NotImplementedError(
            f"build: the code generator for target kind {target.kind.name!r} ({spec}) is not available: {err}"
        ) from None
