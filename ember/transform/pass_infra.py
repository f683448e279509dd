"""Pass infrastructure: PassContext, module/function passes, Sequential.

A pass is a callable ``IRModule → IRModule`` with a ``PassInfo`` (name, opt_level,
required passes).  ``Sequential`` runs passes in order, skipping those above the
context's ``opt_level`` or disabled by name.  ``PassContext`` carries the options
explicitly (opt_level, config, instruments) and is entered with ``with``; there is no
other global state.  Setting ``EMBER_DUMP_IR=1`` (or ``config={"dump_ir": True}``)
prints the module after every pass.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import threading
from collections.abc import Callable, Sequence

from ember.ir import IRModule

__all__ = [
    "PassContext", "PassInfo", "Pass", "ModulePass", "FunctionPass", "Sequential",
    "module_pass", "function_pass", "prim_func_pass", "PassInstrument", "pass_instrument", "PrintIR",
]


@dataclasses.dataclass(frozen=True)
class PassInfo:
    opt_level: int
    name: str
    required: tuple = ()
    traceable: bool = False


class PassInstrument:
    """Hooks called around passes; override any of the methods."""

    def enter_pass_ctx(self) -> None: ...
    def exit_pass_ctx(self) -> None: ...
    def should_run(self, mod: IRModule, info: PassInfo) -> bool:
        return True

    def run_before_pass(self, mod: IRModule, info: PassInfo) -> None: ...
    def run_after_pass(self, mod: IRModule, info: PassInfo) -> None: ...


def pass_instrument(cls):
    """Decorator making a plain class with some of the hook methods a PassInstrument."""
    return type(cls.__name__, (cls, PassInstrument), {})


_STACK = threading.local()


class PassContext:
    """Options for running passes: ``with PassContext(opt_level=3): ...``."""

    def __init__(self, opt_level: int = 2, required_pass: Sequence[str] = (),
                 disabled_pass: Sequence[str] = (), instruments: Sequence[PassInstrument] = (),
                 config: dict | None = None, trace=None, make_traceable=None, num_evals=0,
                 tuning_api_database=None):
        self.opt_level = opt_level
        self.required_pass = tuple(required_pass)
        self.disabled_pass = tuple(disabled_pass)
        self.instruments = list(instruments)
        self.config = dict(config or {})

    @staticmethod
    def current() -> PassContext:
        stack = getattr(_STACK, "stack", None)
        if not stack:
            return _DEFAULT
        return stack[-1]

    def __enter__(self) -> PassContext:
        if not hasattr(_STACK, "stack"):
            _STACK.stack = []
        _STACK.stack.append(self)
        for inst in self.instruments:
            inst.enter_pass_ctx()
        return self

    def __exit__(self, *exc) -> None:
        for inst in self.instruments:
            inst.exit_pass_ctx()
        _STACK.stack.pop()

    def override_instruments(self, instruments) -> None:
        self.instruments = list(instruments)

    def dump_ir(self) -> bool:
        return bool(self.config.get("dump_ir")) or os.environ.get("EMBER_DUMP_IR", "") not in ("", "0")

    def pass_enabled(self, info: PassInfo) -> bool:
        if info.name in self.disabled_pass:
            return False
        if info.name in self.required_pass:
            return True
        return info.opt_level <= self.opt_level


_DEFAULT = PassContext()


class Pass:
    """Base of passes: ``pass_(mod)`` returns the transformed module."""

    info: PassInfo

    def __call__(self, mod: IRModule) -> IRModule:
        ctx = PassContext.current()
        for inst in ctx.instruments:
            if not inst.should_run(mod, self.info):
                return mod
        for inst in ctx.instruments:
            inst.run_before_pass(mod, self.info)
        out = self.transform(mod, ctx)
        if not isinstance(out, IRModule):
            raise TypeError(f"pass {self.info.name} returned {type(out).__name__}, expected an IRModule")
        for inst in ctx.instruments:
            inst.run_after_pass(out, self.info)
        if ctx.dump_ir():
            print(f"# ---- IR after {self.info.name} ----")
            out.show()
        return out

    def transform(self, mod: IRModule, ctx: PassContext) -> IRModule:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.info.name})"


class ModulePass(Pass):
    def __init__(self, fn: Callable, info: PassInfo):
        self.fn, self.info = fn, info

    def transform(self, mod, ctx):
        return self.fn(mod, ctx)


class FunctionPass(Pass):
    """Applies ``fn(func, mod, ctx)`` to every function of type ``func_type`` in a module."""

    def __init__(self, fn: Callable, info: PassInfo, func_type: type | None = None):
        self.fn, self.info, self.func_type = fn, info, func_type

    def transform(self, mod, ctx):
        functions = {}
        changed = False
        for gv, func in mod.functions.items():
            if self.func_type is None or isinstance(func, self.func_type):
                new = self.fn(func, mod, ctx)
                changed |= new is not func
                if new is None:  # a function pass may delete a function
                    continue
                func = new
            functions[gv] = func
        return mod.with_functions(functions) if changed else mod


class Sequential(Pass):
    """Run ``passes`` in order (those enabled in the current PassContext)."""

    def __init__(self, passes: Sequence[Pass] = (), opt_level: int = 0, name: str = "sequential",
                 required: Sequence[str] = (), traceable: bool = False):
        self.passes = list(passes)
        self.info = PassInfo(opt_level, name, tuple(required), traceable)

    def transform(self, mod, ctx):
        for p in self.passes:
            if ctx.pass_enabled(p.info):
                mod = p(mod)
        return mod


def _make_decorator(kind: str, func_type=None):
    def decorator(pass_func=None, opt_level: int = 0, name: str | None = None,
                  required: Sequence[str] = (), traceable: bool = False):
        def create(fn):
            pass_name = name or getattr(fn, "__name__", type(fn).__name__)
            info = PassInfo(opt_level, pass_name, tuple(required), traceable)
            if inspect.isclass(fn):
                method = "transform_module" if kind == "module" else "transform_function"

                @functools.wraps(fn, updated=())
                def make_instance(*args, **kwargs):
                    inst = fn(*args, **kwargs)
                    impl = getattr(inst, method, None)
                    if impl is None:
                        raise TypeError(f"pass class {fn.__name__} must define {method}(self, …)")
                    return _build(kind, impl, info, func_type)

                return make_instance
            return _build(kind, fn, info, func_type)

        if pass_func is None:
            return create
        return create(pass_func)

    return decorator


def _build(kind, fn, info, func_type):
    if kind == "module":
        return ModulePass(lambda mod, ctx: fn(mod, ctx), info)
    return FunctionPass(lambda f, mod, ctx: fn(f, mod, ctx), info, func_type)


module_pass = _make_decorator("module")
function_pass = _make_decorator("function")


def prim_func_pass(pass_func=None, opt_level: int = 0, name: str | None = None,
                   required: Sequence[str] = (), traceable: bool = False):
    """A function pass over the module's ``tir.PrimFunc``s only."""
    from ember.tir.function import PrimFunc

    return _make_decorator("function", PrimFunc)(pass_func, opt_level, name, required, traceable)


def PrintIR(header: str = "", show_meta_data: bool = False) -> Pass:  # noqa: N802 - TVM's name
    """A pass that prints the module (after ``header``) and returns it unchanged; put it
    between the passes of a ``Sequential`` to see the IR at that point."""

    def print_ir(mod: IRModule, _ctx: PassContext) -> IRModule:
        if header:
            print(header)
        mod.show()
        return mod

    return ModulePass(print_ir, PassInfo(0, "PrintIR", (), False))
