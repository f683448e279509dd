"""IRModule: a named collection of functions (PrimFuncs, Relax functions), and GlobalVar."""

from __future__ import annotations

from .node import Node, node

__all__ = ["GlobalVar", "BaseFunc", "IRModule"]


@node
class GlobalVar(Node):
    """The name of a function in an IRModule; compared structurally by name."""

    name_hint: str

    def __repr__(self) -> str:
        return f'I.GlobalVar("{self.name_hint}")'  # as TVM prints it


class BaseFunc(Node):
    """Base of functions stored in an IRModule (``tir.PrimFunc``, ``relax.Function``)."""

    __slots__ = ()

    def with_attr(self, key, value=None):
        attrs = dict(self.attrs)
        if isinstance(key, dict):
            attrs.update(key)
        else:
            attrs[key] = value
        from .node import replace

        return replace(self, attrs=attrs)

    def with_attrs(self, attrs: dict):
        """A copy with every attribute of ``attrs`` set (TVM's ``BaseFunc.with_attrs``)."""
        return self.with_attr(dict(attrs))

    def without_attr(self, key):
        from .node import replace

        return replace(self, attrs={k: v for k, v in self.attrs.items() if k != key})


class IRModule(Node):
    """Functions keyed by GlobalVar (insertion-ordered) plus module attributes.

    An IRModule is treated as a value: passes return new modules.  Mutating helpers
    (``__setitem__``, ``update_func``) exist for builders and tests, like TVM's.
    """

    __slots__ = ("functions", "attrs", "global_infos")

    def __init__(self, functions=None, attrs=None, global_infos=None):
        funcs: dict[GlobalVar, BaseFunc] = {}
        for key, func in (functions or {}).items():
            gv = key if isinstance(key, GlobalVar) else GlobalVar(str(key))
            funcs[gv] = func
        self.functions = funcs
        self.attrs = dict(attrs or {})
        self.global_infos = dict(global_infos or {})

    @staticmethod
    def from_expr(expr, functions=None) -> IRModule:
        """Wrap a function as the module's ``main`` (named by its ``global_symbol`` if set)."""
        name = "main"
        attrs = getattr(expr, "attrs", None) or {}
        if "global_symbol" in attrs:
            name = attrs["global_symbol"]
        elif not getattr(expr, "_is_function", True):
            raise TypeError(f"IRModule.from_expr expects a function, got {type(expr).__name__}")
        mod = IRModule(functions)
        mod[name] = expr  # as TVM: the function is not given a global_symbol it does not have
        return mod

    # -- lookup ---------------------------------------------------------------------
    def get_global_var(self, name: str) -> GlobalVar:
        for gv in self.functions:
            if gv.name_hint == name:
                return gv
        names = ", ".join(gv.name_hint for gv in self.functions) or "none"
        raise KeyError(f"IRModule has no function named {name!r} (functions: {names})")

    def get_global_vars(self) -> list[GlobalVar]:
        return list(self.functions)

    def __getitem__(self, key):
        gv = key if isinstance(key, GlobalVar) else self.get_global_var(key)
        try:
            return self.functions[gv]
        except KeyError:
            return self.functions[self.get_global_var(gv.name_hint)]

    def __setitem__(self, key, func) -> None:
        name = key.name_hint if isinstance(key, GlobalVar) else str(key)
        for gv in self.functions:
            if gv.name_hint == name:
                self.functions[gv] = func
                return
        self.functions[key if isinstance(key, GlobalVar) else GlobalVar(name)] = func

    def __delitem__(self, key) -> None:
        gv = key if isinstance(key, GlobalVar) else self.get_global_var(key)
        del self.functions[gv]

    def __contains__(self, key) -> bool:
        name = key.name_hint if isinstance(key, GlobalVar) else key
        return any(gv.name_hint == name for gv in self.functions)

    def __iter__(self):
        return iter(self.functions.items())

    def __len__(self) -> int:
        return len(self.functions)

    def items(self):
        return self.functions.items()

    def functions_items(self):
        """(GlobalVar, function) pairs, as TVM's ``IRModule.functions_items()``."""
        return list(self.functions.items())

    # -- copying --------------------------------------------------------------------
    def update_func(self, gv, func) -> None:
        self[gv] = func

    def update(self, other: IRModule) -> None:
        for gv, func in other.functions.items():
            self[gv] = func

    def copy(self) -> IRModule:
        return IRModule(self.functions, self.attrs, self.global_infos)

    def with_attr(self, key, value) -> IRModule:
        mod = self.copy()
        mod.attrs[key] = value
        return mod

    def with_attrs(self, attrs: dict) -> IRModule:
        mod = self.copy()
        mod.attrs.update(attrs)
        return mod

    def without_attr(self, key) -> IRModule:
        mod = self.copy()
        mod.attrs.pop(key, None)
        return mod

    def get_attr(self, key, default=None):
        """The module attribute ``key`` (``default`` when absent), as TVM's ``mod.get_attr``."""
        return self.attrs.get(key, default)

    def with_functions(self, functions: dict) -> IRModule:
        """A copy with the same attributes and the given functions."""
        return IRModule(functions, self.attrs, self.global_infos)

    # structural comparison sees these as the module's fields
    _structural_fields = ("functions", "attrs")
