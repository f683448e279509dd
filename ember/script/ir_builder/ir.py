"""``from ember.script.ir_builder import ir as I``: IRModule frames for the IR builder.

``with I.ir_module():`` collects functions: those built inside it (a ``T.prim_func``
frame named with ``T.func_name``) and those added with ``I.def_function``.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule

from .base import IRBuilder, IRBuilderFrame

__all__ = ["IRModuleFrame", "ir_module", "decl_function", "def_function", "module_attrs",
           "module_global_infos"]


class IRModuleFrame(IRBuilderFrame):
    def __init__(self) -> None:
        super().__init__()
        self.global_vars: dict[str, GlobalVar] = {}
        self.functions: dict[str, object] = {}
        self.attrs: dict = {}
        self.global_infos: dict = {}

    def take(self, node) -> bool:
        from ember.tir.function import PrimFunc

        if isinstance(node, PrimFunc):
            name = (node.attrs or {}).get("global_symbol")
            name = str(getattr(name, "value", name) or f"func{len(self.functions)}")
            def_function(name, node)
            return True
        return False

    def finish(self):
        funcs = {self.global_vars[name]: f for name, f in self.functions.items()}
        missing = [n for n in self.global_vars if n not in self.functions]
        if missing:
            raise ValueError(f"I.ir_module: functions declared but never defined: {missing}")
        mod = IRModule(funcs, attrs=self.attrs or None) if self.attrs else IRModule(funcs)
        if self.global_infos:
            mod = mod.with_attr("global_infos", self.global_infos) if hasattr(mod, "with_attr") else mod
        return mod


def ir_module() -> IRModuleFrame:
    """``with I.ir_module():`` an IRModule."""
    return IRModuleFrame()


def _module_frame(word: str) -> IRModuleFrame:
    frame = IRBuilder.current().find_frame(IRModuleFrame)
    if frame is None:
        raise ValueError(f"I.{word} must be used inside `with I.ir_module():`")
    return frame


def decl_function(name: str, func_signature=None) -> GlobalVar:
    """Declare the function ``name`` (so others can call it before it is defined)."""
    frame = _module_frame("decl_function")
    if name in frame.global_vars:
        raise ValueError(f"I.decl_function: function {name!r} is already declared")
    gv = GlobalVar(name)
    frame.global_vars[name] = gv
    return gv


def def_function(name: str, func) -> None:
    """Define the function ``name`` (declaring it when not yet declared)."""
    frame = _module_frame("def_function")
    if name not in frame.global_vars:
        frame.global_vars[name] = GlobalVar(name)
    frame.functions[name] = func


def module_attrs(attrs: dict) -> None:
    _module_frame("module_attrs").attrs.update(attrs)


def module_global_infos(infos: dict) -> None:
    _module_frame("module_global_infos").global_infos.update(infos)
