"""Module: a named collection of callables (CompiledFunctions, Python functions, ...).

``mod["name"]`` looks a function up, ``mod(*args)`` calls the entry function (``main``,
or the only function), ``import_module`` links modules (e.g. a host module importing a
device module) and ``time_evaluator`` times one function.  Code generators either pass
their generated text as ``sources`` or subclass and override ``get_source``.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Mapping

from .device import Device
from .profiling import ProfileResult, time_evaluator


class Module:
    """Functions by name, plus imported modules and the generated source text."""

    def __init__(
        self,
        functions: Mapping[str, Callable] | None = None,
        type_key: str = "ember",
        sources: Mapping[str, str] | None = None,
        imports: list[Module] | tuple[Module, ...] = (),
    ):
        self._functions: dict[str, Callable] = dict(functions or {})
        for name, func in self._functions.items():
            if not callable(func):
                raise TypeError(f"Module: function {name!r} must be callable, got {type(func).__name__}")
        self._type_key = type_key
        self._sources = dict(sources or {})
        self._imports: list[Module] = []
        for module in imports:
            self.import_module(module)

    # -- lookup ------------------------------------------------------------------------------
    @property
    def type_key(self) -> str:
        return self._type_key

    @property
    def function_names(self) -> list[str]:
        return list(self._functions)

    @property
    def entry_name(self) -> str | None:
        """``"main"`` if present, else the only function's name, else None."""
        if "main" in self._functions:
            return "main"
        if len(self._functions) == 1:
            return next(iter(self._functions))
        return None

    def get_function(self, name: str, query_imports: bool = False) -> Callable:
        """The function ``name``; with ``query_imports``, also search imported modules."""
        found = self._find(name, query_imports)
        if found is None:
            where = " or its imports" if query_imports else ""
            known = ", ".join(self._functions) or "none"
            raise AttributeError(f"Module{where} has no function {name!r} (functions: {known})")
        return found

    def _find(self, name: str, query_imports: bool) -> Callable | None:
        found = self._functions.get(name)
        if found is None and query_imports:
            for module in self._imports:
                found = module._find(name, True)
                if found is not None:
                    break
        return found

    def __getitem__(self, name: str) -> Callable:
        if not isinstance(name, str):
            raise TypeError(f"Module: function name must be a str, got {type(name).__name__}")
        return self.get_function(name)

    def __contains__(self, name: str) -> bool:
        return name in self._functions

    def __call__(self, *args: Any) -> Any:
        entry = self.entry_name
        if entry is None:
            names = ", ".join(self._functions) or "none"
            raise RuntimeError(
                f"Module has no entry function: no 'main' and not exactly one function ({names}); use mod['name'](...)"
            )
        return self._functions[entry](*args)

    def add_function(self, name: str, func: Callable, override: bool = False) -> None:
        """Add ``func`` under ``name`` (for code generators assembling a module)."""
        if name in self._functions and not override:
            raise ValueError(f"Module already has a function {name!r}; pass override=True to replace it")
        self._functions[name] = func

    # -- imports and source ------------------------------------------------------------------
    @property
    def imported_modules(self) -> list[Module]:
        return list(self._imports)

    def import_module(self, module: Module) -> None:
        if not isinstance(module, Module):
            raise TypeError(f"import_module: expected a Module, got {type(module).__name__}")
        if module is self:
            raise ValueError("import_module: a module cannot import itself")
        self._imports.append(module)

    def get_source(self, fmt: str = "") -> str:
        """Generated source in format ``fmt`` ("ll", "asm", "c", "cu" ...); "" picks the first."""
        if not fmt:
            return next(iter(self._sources.values()), "")
        return self._sources.get(fmt, "")

    @property
    def source_formats(self) -> list[str]:
        return list(self._sources)

    # -- tools -------------------------------------------------------------------------------
    def time_evaluator(
        self,
        func_name: str,
        dev: Device,
        number: int = 10,
        repeat: int = 1,
        min_repeat_ms: float = 0,
        f_preproc: str = "",
        cooldown_interval_ms: float = 0,
        repeats_to_cooldown: int = 1,
    ) -> Callable[..., ProfileResult]:
        """Time ``func_name``; see ``ember.runtime.profiling.time_evaluator``."""
        func = self.get_function(func_name, query_imports=True)
        return time_evaluator(
            func, dev, number, repeat, min_repeat_ms, f_preproc, cooldown_interval_ms, repeats_to_cooldown
        )

    def export_library(self, file_name: str, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"export_library: {type(self).__name__} (type_key {self.type_key!r}) cannot be exported to a shared "
            "library yet; keep the module in-process"
        )

    def __repr__(self) -> str:
        return f"Module(type_key={self.type_key!r}, functions=[{', '.join(self._functions)}])"
