"""Parsing an ``@I.ir_module`` class: one function per decorated method, plus attributes.

Every method's name becomes a GlobalVar before any body is parsed, so functions can
call each other through ``cls.name``.  The decorator of each method picks its parser
(see ``dispatch.py``), so Relax functions can live in the same class.
"""

from __future__ import annotations

import ast

from ember.ir import GlobalVar, IRModule

from .dispatch import check_decorator_keywords, function_parser
from .evaluator import Evaluator, Scope
from .source import Source

__all__ = ["parse_ir_module", "ModuleRef", "decorator_of", "MODULE_FUNCTIONS", "MODULE_EXTRAS"]

# scope key under which Relax function parsers find the module's (pre-parsed) functions
MODULE_FUNCTIONS = "__ember_module_functions__"
# scope key of a dict {GlobalVar: PrimFunc} that Relax parsers fill with R.emit_te's PrimFuncs
MODULE_EXTRAS = "__ember_module_extras__"


class ModuleRef:
    """``cls`` inside a module class: ``cls.f`` is the GlobalVar of function ``f``."""

    def __init__(self, global_vars: dict):
        self._gvs = global_vars

    def __getattr__(self, name: str) -> GlobalVar:
        try:
            return self._gvs[name]
        except KeyError:
            known = ", ".join(self._gvs) or "none"
            raise AttributeError(f"the module has no function {name!r} (functions: {known})") from None


def decorator_of(ev: Evaluator, fdef: ast.FunctionDef):
    """(decorator object, keyword arguments) of a function definition's decorator."""
    if len(fdef.decorator_list) != 1:
        raise ev.error(fdef, f"function {fdef.name!r} needs exactly one decorator such as "
                             "@T.prim_func")
    dec = fdef.decorator_list[0]
    if isinstance(dec, ast.Call):
        args, kwargs = ev.eval_args(dec)
        if args:
            raise ev.error(dec, "decorator arguments must be keywords, e.g. @T.prim_func(private=True)")
        return ev.eval(dec.func), kwargs
    return ev.eval(dec), {}


def parse_ir_module(source: Source, cdef: ast.ClassDef, outer: dict,
                    check_well_formed: bool = True) -> IRModule:
    from ember.script import ir as I

    gvs = {s.name: GlobalVar(s.name) for s in cdef.body if isinstance(s, ast.FunctionDef)}
    scope = dict(outer)
    scope["cls"] = ModuleRef(gvs)
    scope[cdef.name] = scope["cls"]
    ev = Evaluator(source, Scope(scope))
    scope[MODULE_EXTRAS] = {}  # the signature pre-parse's R.emit_te functions are dropped
    scope[MODULE_FUNCTIONS] = _relax_signatures(source, cdef, ev, scope, gvs)
    functions, attrs = {}, {}
    scope[MODULE_EXTRAS] = extras = {}
    for stmt in cdef.body:
        if isinstance(stmt, ast.FunctionDef):
            decorator, kwargs = decorator_of(ev, stmt)
            parse = function_parser(decorator)
            if parse is None:
                raise ev.error(stmt.decorator_list[0], f"unknown function decorator {decorator!r}; "
                                                      "expected @T.prim_func")
            check_decorator_keywords(ev, stmt.decorator_list[0], parse, kwargs)
            kwargs.setdefault("check_well_formed", check_well_formed)
            functions[gvs[stmt.name]] = parse(source, stmt, scope, **kwargs)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and ev.eval(stmt.value.func) is I.module_attrs:
            args, _ = ev.eval_args(stmt.value)
            attrs.update(args[0] if args else {})
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstring
        elif not isinstance(stmt, ast.Pass):
            raise ev.error(stmt, "an @I.ir_module class may only contain decorated functions and "
                                 "I.module_attrs(...)")
    for gv, func in extras.items():
        if gv.name_hint in gvs:
            raise ev.error(cdef, f"R.emit_te: a function named {gv.name_hint!r} is already defined in the module")
        functions[gv] = func
    return IRModule(functions, attrs)


def _calls_module_function(stmt: ast.FunctionDef, names: set) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
               and n.func.value.id in names for n in ast.walk(stmt))


def _relax_signatures(source: Source, cdef: ast.ClassDef, ev: Evaluator, scope: dict, gvs: dict) -> IRModule | None:
    """A first, forgiving parse of the Relax functions when one calls another through
    ``cls.f``, so that such calls get the callee's return struct info whatever the order
    of definition (as TVM declares every signature before parsing bodies)."""
    defs = [s for s in cdef.body if isinstance(s, ast.FunctionDef)]
    names = {"cls", cdef.name}
    if len(defs) < 2 or not any(_calls_module_function(s, names) for s in defs):
        return None
    found: dict = {}
    pending = list(defs)
    while pending:  # a function whose callee failed to parse may succeed once the callee is known
        scope[MODULE_FUNCTIONS] = IRModule(found) if found else None
        failed = []
        for stmt in pending:
            try:
                decorator, kwargs = decorator_of(ev, stmt)
                parse = function_parser(decorator)
                name = getattr(parse, "__name__", "")
                if name == "parse_prim_func" and stmt.returns is None:
                    found[gvs[stmt.name]] = _void_prim_signature()  # a call of it gives R.Tuple()
                    continue
                if name != "parse_relax_function" and name != "parse_prim_func":
                    continue
                kwargs["check_well_formed"] = False
                found[gvs[stmt.name]] = parse(source, stmt, scope, **kwargs)
            except Exception:  # noqa: BLE001 - the real parse below reports any error
                failed.append(stmt)
        if len(failed) == len(pending):
            break
        pending = failed
    return IRModule(found) if found else None


def _void_prim_signature():
    """Stand-in for a PrimFunc that returns nothing, while signatures are collected: Relax
    calls of it are typed ``R.Tuple()`` without parsing its body twice."""
    from ember.tir import Evaluate, PrimFunc

    return PrimFunc((), Evaluate(0))
