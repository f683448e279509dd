"""Printing an IRModule as an ``@I.ir_module`` class with one method per function."""

from __future__ import annotations

from ember.ir import IRModule

from .dispatch import PrintConfig, find_printer, mark_whole

__all__ = ["print_ir_module"]


def print_ir_module(mod: IRModule, config: PrintConfig) -> str:
    names = frozenset(gv.name_hint for gv in mod.functions)
    lines = ["@I.ir_module", "class Module:"]
    if mod.attrs:
        from .tir_expr import ExprPrinter

        lines.append(f"    I.module_attrs({ExprPrinter().value(dict(mod.attrs))})")
    for i, (gv, func) in enumerate(mod.functions.items()):
        entry = find_printer(func)
        sub = PrintConfig(name=gv.name_hint, in_module=True, module_funcs=names, options=config.options)
        text = entry.fn(func, sub) if entry is not None else f"# unprintable {type(func).__name__}"
        text = mark_whole(func, text, config.options.get("_marks"))
        if i or mod.attrs:
            lines.append("")
        lines.extend(("    " + line) if line else "" for line in text.split("\n"))
    if not mod.functions and not mod.attrs:
        lines.append("    pass")
    return "\n".join(lines)
