"""Parsing ``@R.function`` source into a ``relax.Function``.

The function's statements are read in order: ``n = T.int64()`` declares a symbolic
dim (names used in annotations but never declared become int64 dims too);
``x: ann = value`` binds through a BlockBuilder (so values are normalised and their
struct info inferred; an annotation, when given, becomes the variable's struct info);
``with R.dataflow():`` opens a dataflow block whose ``R.output(...)`` names are the
block's outputs; ``if c: … else: …`` builds an ``If`` whose branches end by assigning
the same name; ``R.func_attr({...})`` sets attributes; ``return`` gives the body.
Registered with the script parser's dispatch so ``@I.ir_module`` classes can mix
``@R.function`` and ``@T.prim_func`` methods.
"""

from __future__ import annotations

import ast

from ember import relax
from ember.ir import GlobalVar, IntImm
from ember.ir import Var as TirVar
from ember.relax.block_builder import BlockBuilder
from ember.relax.expr import (
    DataflowVar, Expr, Function, If, MatchCast, SeqExpr, Var, VarBinding,
)
from ember.relax.op.base import as_operand
from ember.relax.struct_info import is_base_of
from ember.script.parser.entry import DeferredFunction, _captured, _first, _is_method
from ember.script.parser.evaluator import _MISSING, Evaluator, Scope
from ember.script.parser.module import MODULE_EXTRAS, ModuleRef
from ember.script.errors import ParserError
from ember.script.parser.source import Source

from . import words
from .words import MatchCastMarker, as_sinfo

__all__ = ["function", "parse_relax_function"]


class _RelaxEvaluator(Evaluator):
    """Python evaluation plus: unknown names in annotations become int64 dims; calling a
    GlobalVar or a function-valued Var builds a Relax call."""

    auto_symbolic = False
    bb = None  # the function's BlockBuilder, for R.emit_te
    module_extras = None  # where PrimFuncs made by R.emit_te go (a dict the module parser reads)

    def eval_Name(self, node: ast.Name):
        value = self.scope.lookup(node.id)
        if value is _MISSING and self.auto_symbolic:
            value = TirVar(node.id, "int64")
            self.scope.define(node.id, value)
        if value is _MISSING:
            raise self.error(node, f"name {node.id!r} is not defined")
        return value

    def eval_Call(self, node: ast.Call):
        func = self.eval(node.func)
        if func in words.PARSER_WORDS.values():
            raise self.error(node, f"R.{func.__name__} is a statement and cannot be used inside an expression")
        args, kwargs = self.eval_args(node)
        if self.auto_symbolic and func is words.Prim and isinstance(kwargs.get("value"), str):
            kwargs["value"] = self._dim(kwargs["value"])  # R.Prim(value="n")
        if isinstance(func, GlobalVar | Var):
            return relax.Call(func, [as_operand(a) for a in args])
        if func is words.emit_te:
            return self._emit_te(node, *args, **kwargs)
        return func(*args, **kwargs)

    def _emit_te(self, node, te_func, *args, **kwargs):
        """``R.emit_te``: the PrimFunc joins the function's BlockBuilder module (the module
        parser collects it, named ``primfunc_name_hint`` or after ``te_func``)."""
        if self.bb is None or self.module_extras is None:
            raise self.error(node, "R.emit_te can only be used inside an @R.function of an @I.ir_module")
        kwargs.setdefault("primfunc_name_hint", getattr(te_func, "__name__", None))
        return self.bb.call_te(te_func, *args, **kwargs)

    def eval_Tuple(self, node: ast.Tuple):
        return tuple(self._dims(super().eval_Tuple(node)))

    def eval_List(self, node: ast.List):
        return list(self._dims(super().eval_List(node)))

    def _dims(self, values):
        """In annotations, strings inside a shape are symbolic dims: ``("n", 4)``."""
        if not self.auto_symbolic:
            return values
        return [self._dim(v) if isinstance(v, str) else v for v in values]

    def _dim(self, text: str):
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as err:
            raise ValueError(f"cannot read the shape dim {text!r}") from err
        return self.eval(tree.body)

    def annotation(self, node) -> relax.StructInfo:
        self.auto_symbolic = True
        try:
            return as_sinfo(self.eval(node))
        except TypeError as err:
            raise self.error(node, str(err)) from err
        finally:
            self.auto_symbolic = False


def _fresh_var_dtype(ev: Evaluator, node) -> str | None:
    """The dtype of ``T.int64()`` (a call making a fresh scalar var), else None."""
    if not (isinstance(node, ast.Call) and not node.args and not node.keywords and isinstance(node.func, ast.Attribute)):
        return None
    try:
        value = ev.eval(node)
    except Exception:  # noqa: BLE001 - not a declaration
        return None
    return str(value.dtype) if isinstance(value, TirVar) else None


def _symbolic_decls(ev: Evaluator, stmt) -> list[tuple[str, str]] | None:
    """(name, dtype) pairs declared by ``n = T.int64()`` or ``n, m = T.int64(), T.int64()`` (in a
    tuple, a constant such as ``T.int64(16)`` comes as (name, the IntImm))."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name):
        targets, values = [target], [value]
    elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        targets, values = target.elts, value.elts
    else:
        return None
    out = []
    for t, v in zip(targets, values):
        dtype = _fresh_var_dtype(ev, v)
        if dtype is None and len(targets) > 1:
            dtype = _constant_dim(ev, v)  # `N, C = T.int64(), T.int64(16)`: C names the constant
        if not isinstance(t, ast.Name) or dtype is None:
            return None
        out.append((t.id, dtype))
    return out


def _constant_dim(ev: Evaluator, node):
    """The integer constant ``T.int64(16)`` evaluates to, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    try:
        value = ev.eval(node)
    except Exception:  # noqa: BLE001 - not a declaration
        return None
    return value if isinstance(value, IntImm) else None


def _is_word_call(ev: Evaluator, stmt, word) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    try:
        return ev.eval(stmt.value.func) is word
    except Exception:  # noqa: BLE001
        return False


class _FunctionParser:
    def __init__(self, source: Source, fdef: ast.FunctionDef, outer: dict):
        self.source, self.fdef = source, fdef
        self.ev = _RelaxEvaluator(source, Scope(dict(outer)))
        self.bb = BlockBuilder(outer.get("__ember_module_functions__"))  # calls of cls.f know f's signature
        self.ev.bb, self.ev.module_extras = self.bb, outer.get(MODULE_EXTRAS)
        self.blocks: list = []
        self.attrs: dict = {}
        self.outputs: set[str] | None = None  # names R.output(...) exports from the open dataflow block
        pre = outer.get("__ember_module_functions__")
        self.source_functions = set() if pre is None else {gv.name_hint for gv in pre.functions}

    def error(self, node, msg: str):
        return self.ev.error(node, msg)

    # -- the function ---------------------------------------------------------------------
    def signature(self, pure: bool):
        """The function's struct info from its annotations alone (for recursive local functions)."""
        from ember.relax.struct_info import FuncStructInfo

        body = list(self.fdef.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        while body and (decls := _symbolic_decls(self.ev, body[0])) is not None:
            self.declare(decls)
            body = body[1:]
        params = [self.ev.annotation(arg.annotation) for arg in self.fdef.args.args]
        return FuncStructInfo(params, self.ev.annotation(self.fdef.returns), pure)

    def parse(self, pure: bool, private: bool) -> Function:
        fdef = self.fdef
        body = list(fdef.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # docstring
        while body and (decls := _symbolic_decls(self.ev, body[0])) is not None:
            self.declare(decls)
            body = body[1:]
        params = []
        for arg in fdef.args.args:
            if arg.annotation is None:
                raise self.error(arg, f"parameter {arg.arg!r} needs a struct info annotation, e.g. R.Tensor((n,), \"float32\")")
            var = Var(arg.arg, self.ev.annotation(arg.annotation))
            self.ev.scope.define(arg.arg, var)
            params.append(var)
        ret = self.ev.annotation(fdef.returns) if fdef.returns is not None else None
        self.bb.begin_scope()
        self.bb.begin_binding_block()
        result = self.statements(body)
        if result is None:
            raise self.error(fdef, f"function {fdef.name!r} has no return statement")
        self.close_block()
        self.bb.end_scope()
        attrs = dict(self.attrs)
        if not private and "global_symbol" not in attrs:
            attrs = {"global_symbol": fdef.name, **attrs}  # first, as TVMScript's convention
        self._hand_over_emitted_functions()
        seq = SeqExpr(self.blocks, result)
        return Function(params, seq, ret if ret is not None else result.struct_info, pure, attrs)

    def _hand_over_emitted_functions(self) -> None:
        """PrimFuncs that R.emit_te added to the BlockBuilder's module go to the module parser."""
        extras = self.ev.module_extras
        if extras is None:
            return
        known = self.source_functions
        for gv, func in self.bb.get().functions.items():
            if gv.name_hint not in known:
                extras[gv] = func

    def declare(self, decls) -> None:
        for name, dtype in decls:
            if not isinstance(dtype, str):  # a name for a constant dim
                self.ev.scope.define(name, dtype)
                continue
            known = self.ev.scope.local.get(name)
            if isinstance(known, TirVar) and str(known.dtype) == dtype:
                continue  # `n = T.int64()` after the parameters named n: the same symbolic var
            self.ev.scope.define(name, TirVar(name, dtype))

    def close_block(self) -> None:
        block = self.bb.end_block()
        if block.bindings:
            self.blocks.append(block)

    # -- statements -------------------------------------------------------------------------
    def statements(self, stmts) -> Expr | None:
        """Parse ``stmts``; return the returned expression (None if there is no return)."""
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Return):
                if i != len(stmts) - 1:
                    raise self.error(stmts[i + 1], "statements after return are not allowed")
                if stmt.value is None:
                    raise self.error(stmt, "a Relax function must return a value")
                try:
                    return self.bb.normalize(as_operand(self.ev.eval(stmt.value)))
                except ParserError:
                    raise
                except Exception as err:  # noqa: BLE001
                    raise self.error(stmt, str(err)) from err
            self.statement(stmt)
        return None

    def statement(self, stmt) -> None:
        try:
            self._statement(stmt)
        except ParserError:
            raise
        except Exception as err:  # noqa: BLE001 - every failure is reported at its statement
            raise self.error(stmt, str(err)) from err

    def _statement(self, stmt) -> None:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            self.assign(stmt)
        elif isinstance(stmt, ast.With):
            self.with_dataflow(stmt)
        elif isinstance(stmt, ast.If):
            self.if_stmt(stmt)
        elif isinstance(stmt, ast.Expr):
            self.expr_stmt(stmt)
        elif isinstance(stmt, ast.FunctionDef):
            self.local_function(stmt)
        elif isinstance(stmt, ast.Pass | ast.Nonlocal | ast.Global):
            return  # `nonlocal dtype` only makes Python capture the name; the scope already has it
        else:
            raise self.error(stmt, f"{type(stmt).__name__} statements are not supported in a Relax function")

    def _target(self, stmt) -> str:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            raise self.error(stmt, "assign to a single name, e.g. `lv = R.add(x, y)`")
        return targets[0].id

    def new_var(self, name: str, sinfo) -> Var:
        local = self.outputs is not None and name not in self.outputs
        return (DataflowVar if local else Var)(name, sinfo)

    def assign(self, stmt) -> None:
        decls = _symbolic_decls(self.ev, stmt)
        if decls is not None:
            self.declare(decls)
            return
        name = self._target(stmt)
        if stmt.value is None:
            raise self.error(stmt, f"{name!r} is annotated but never assigned")
        if _is_match_cast(stmt.value, self.ev):
            marker = self._eval_match_cast(stmt.value)
            value = self.bb.normalize(as_operand(marker.value))
            var = self.new_var(name, marker.struct_info)
            self.bb.emit_normalized(MatchCast(var, value, marker.struct_info))
            self.ev.scope.define(name, var)
            return
        evaluated = self.ev.eval(stmt.value)
        if isinstance(evaluated, ModuleRef):  # `cls = MyModule`: an alias, not a binding
            self.ev.scope.define(name, evaluated)
            return
        value = self.bb.normalize(as_operand(evaluated))
        sinfo = value.struct_info
        if isinstance(stmt, ast.AnnAssign):
            ann = self.ev.annotation(stmt.annotation)
            if not (is_base_of(ann, sinfo) or is_base_of(sinfo, ann)):
                raise self.error(stmt.annotation, f"the annotation of {name!r} does not match the value's struct info "
                                                  f"({ann!r} vs {sinfo!r})")
            sinfo = ann
        var = self.new_var(name, sinfo)
        self.bb.emit_normalized(VarBinding(var, value))
        self.ev.scope.define(name, var)

    def _eval_match_cast(self, node) -> MatchCastMarker:
        self.ev.auto_symbolic = True
        try:
            return self.ev.eval(node)
        finally:
            self.ev.auto_symbolic = False

    def with_dataflow(self, stmt: ast.With) -> None:
        if len(stmt.items) != 1 or self.ev.eval(stmt.items[0].context_expr.func
                                                if isinstance(stmt.items[0].context_expr, ast.Call)
                                                else stmt.items[0].context_expr) is not words.dataflow:
            raise self.error(stmt, "only `with R.dataflow():` blocks are supported in a Relax function")
        if self.outputs is not None:
            raise self.error(stmt, "dataflow blocks cannot be nested")
        body = list(stmt.body)
        outputs: set[str] = set()
        if body and _is_word_call(self.ev, body[-1], words.output):
            for a in body[-1].value.args:
                if not isinstance(a, ast.Name):
                    raise self.error(a, "R.output takes variable names")
                outputs.add(a.id)
            body = body[:-1]
        self.close_block()
        self.bb.begin_dataflow_block()
        self.outputs = outputs
        try:
            for s in body:
                if isinstance(s, ast.Return):
                    raise self.error(s, "return is not allowed inside a dataflow block")
                self.statement(s)
        finally:
            self.outputs = None
        self.close_block()
        self.bb.begin_binding_block()

    def if_stmt(self, stmt: ast.If) -> None:
        if self.outputs is not None:
            raise self.error(stmt, "if/else is not allowed inside a dataflow block")
        cond = self.bb.normalize(as_operand(self.ev.eval(stmt.test)))
        branches, names, anns = [], [], []
        for body in (stmt.body, stmt.orelse):
            if not body:
                raise self.error(stmt, "an if in a Relax function needs an else branch")
            last = body[-1]
            if not isinstance(last, ast.Assign | ast.AnnAssign):
                raise self.error(last, "each branch must end by assigning its result, e.g. `y = lv`")
            names.append(self._target(last))
            self.bb.begin_scope()
            self.bb.begin_binding_block()
            try:
                for s in body[:-1]:
                    self.statement(s)
                value = self.bb.normalize(as_operand(self.ev.eval(last.value)))
                block = self.bb.end_block()
            finally:
                self.bb.end_scope()
            branches.append(SeqExpr([block], value) if block.bindings else SeqExpr([], value))
            anns.append(self.ev.annotation(last.annotation) if isinstance(last, ast.AnnAssign) else None)
        if names[0] != names[1]:
            raise self.error(stmt, f"both branches must assign the same name, got {names[0]!r} and {names[1]!r}")
        expr = self.bb.normalize(If(cond, branches[0], branches[1]))
        var = Var(names[0], anns[0] or expr.struct_info)
        self.bb.emit_normalized(VarBinding(var, expr))
        self.ev.scope.define(names[0], var)

    def local_function(self, fdef: ast.FunctionDef) -> None:
        """A nested ``@R.function``: parsed with the enclosing names visible, bound to its name."""
        if len(fdef.decorator_list) != 1:
            raise self.error(fdef, f"local function {fdef.name!r} needs the decorator @R.function")
        dec = fdef.decorator_list[0]
        kwargs = {}
        if isinstance(dec, ast.Call):
            kwargs = {kw.arg: self.ev.eval(kw.value) for kw in dec.keywords}
            dec = dec.func
        from . import function as r_function

        if self.ev.eval(dec) is not r_function:
            raise self.error(dec, "local functions must be decorated with @R.function")
        scope = dict(self.ev.scope.outer)
        scope.update(self.ev.scope.local)
        var = None
        if fdef.returns is not None and any(isinstance(n, ast.Name) and n.id == fdef.name for n in ast.walk(fdef)):
            # a recursive local function: its name is bound (with the annotated signature) in its body
            sig = _FunctionParser(self.source, fdef, scope).signature(kwargs.get("pure", True))
            var = self.new_var(fdef.name, sig)
            scope[fdef.name] = var
        inner = _FunctionParser(self.source, fdef, scope)
        func = inner.parse(kwargs.get("pure", True), private=True)
        if var is None:
            var = self.new_var(fdef.name, func.struct_info)
        self.bb.emit_normalized(VarBinding(var, func))
        self.ev.scope.define(fdef.name, var)

    def expr_stmt(self, stmt: ast.Expr) -> None:
        if isinstance(stmt.value, ast.Constant):
            return  # a string comment
        if _is_word_call(self.ev, stmt, words.func_attr):
            args, _ = self.ev.eval_args(stmt.value)
            self.attrs.update(args[0] if args else {})
            return
        if _is_word_call(self.ev, stmt, words.output):
            raise self.error(stmt, "R.output must be the last statement of a dataflow block")
        value = self.bb.normalize(as_operand(self.ev.eval(stmt.value)))
        self.bb.emit_normalized(VarBinding(self.new_var("_", value.struct_info), value))


def _is_match_cast(node, ev: Evaluator) -> bool:
    if not isinstance(node, ast.Call):
        return False
    try:
        return ev.eval(node.func) is words.match_cast
    except Exception:  # noqa: BLE001
        return False


def parse_relax_function(source: Source, fdef: ast.FunctionDef, outer: dict, pure: bool = True,
                         private: bool = False, check_well_formed: bool = True) -> Function:
    """The function parser registered for ``R.function`` (see module docstring)."""
    func = _FunctionParser(source, fdef, outer).parse(pure, private)
    if check_well_formed:
        from ember.relax.analysis import well_formed
        from ember.relax.analysis.well_formed import _errors

        if not well_formed(func):
            raise source.error(fdef, "the parsed Relax function is not well formed: " + "; ".join(_errors(func, None)))
    return func


def function(func=None, *, pure: bool = True, private: bool = False, check_well_formed: bool = True, frame=None):
    """``@R.function``: parse now, or defer to ``@I.ir_module`` when ``func`` is a method."""

    def decorate(f):
        if _is_method(f):
            return DeferredFunction(f, {"pure": pure, "private": private})
        source = Source.from_object(f)
        fdef = _first(source, ast.FunctionDef)
        return parse_relax_function(source, fdef, _captured(f, frame), pure=pure, private=private,
                                    check_well_formed=check_well_formed)

    return decorate if func is None else decorate(func)
