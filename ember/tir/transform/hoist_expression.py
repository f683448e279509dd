"""HoistExpression: move loop-invariant conditions and let bindings out of loops.

For each loop (innermost first), the first hoistable item of its body, in program
order, is pulled out:

* a condition — of an ``if`` statement, of a ``T.if_then_else`` expression, or one
  ``and``-term of either — that does not depend on the loop variable or on anything
  defined inside the loop and reads no memory: the loop becomes
  ``if c: <loop, c known true> else: <loop, c known false>``; in each copy every
  condition the analyzer can decide under that knowledge is folded, and empty
  copies are dropped;
* a ``LetStmt`` or ``Let`` expression with such a value: it is bound once, outside.

This repeats on each copy until nothing more is hoistable, then continues at the
enclosing loop, so an item rises to just inside the innermost loop it depends on.
``thread_extent`` attributes count as loops over their thread variable.  Which items
may move is configured under ``PassContext(config={"tir.HoistExpression":
{"hoisted_conditionals": HoistedConditionals…, "hoisted_let_bindings": …}})``.
HoistIfThenElse is the same rewrite restricted to ``if`` statements that are, through
nested loops, a loop's whole body (TVM's older pass).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

from ember.arith import Analyzer
from ember.ir import And, IntImm, Let, Not, Var, const, replace, structural_equal
from ember.transform import Pass, PassContext

from ..function import PrimFunc
from ..functor import IRMutator, collect
from ..stmt import AttrStmt, BlockRealize, For, ForKind, IfThenElse, IterVar, LetStmt
from ._common import call_op_name, is_no_op, make_pass
from .convert_ssa import _SSAConverter
from .remove_no_op import _NoOpRemover
from .rewrite_unsafe_select import is_unsafe_to_evaluate

__all__ = ["HoistedConditionals", "HoistedLetBindings", "HoistExpression", "HoistIfThenElse",
           "hoist_expression"]


class HoistedConditionals(enum.IntFlag):
    """Which conditions HoistExpression may move (TVM's bit values)."""

    Never = 0
    IfElseStmt = 1  # conditions of ``if`` statements
    IfElseExpr = 2  # conditions of ``T.if_then_else`` expressions
    BooleanExpression = 4  # single ``and``-terms of a condition
    UsingBlockVar = 8  # conditions using thread variables; hoisting across thread launches
    All = 15


class HoistedLetBindings(enum.IntFlag):
    """Which let bindings HoistExpression may move (TVM's bit values)."""

    Never = 0
    RequiredByConditional = 1  # a binding a hoistable condition uses
    LetStmt = 2
    LetExpr = 4
    All = 7


_DEFAULT_CONDITIONALS = (HoistedConditionals.IfElseStmt | HoistedConditionals.IfElseExpr
                         | HoistedConditionals.BooleanExpression)
_DEFAULT_LETS = HoistedLetBindings.All


def _and_terms(cond) -> list:
    if isinstance(cond, And):
        return _and_terms(cond.a) + _and_terms(cond.b)
    return [cond]


def _free_vars(expr) -> set:
    return {id(v) for v in collect(expr, lambda x: isinstance(x, Var))}


class _Candidates:
    """Finds, in program order, the items of a loop body that may move out of the loop."""

    def __init__(self, conditionals, lets, blocked: set, block_vars: set, nest_only: bool = False):
        self.conditionals, self.lets = conditionals, lets
        self.nest_only = nest_only  # only ifs reached through nested loops (HoistIfThenElse)
        self.blocked = blocked  # ids of Vars the item must not use (loop var + inner definitions)
        self.block_vars = block_vars  # ids of thread Vars (excluded without UsingBlockVar)

    def movable(self, expr, inner: frozenset) -> bool:
        used = _free_vars(expr)
        if used & self.blocked or used & inner:
            return False
        if not (self.conditionals & HoistedConditionals.UsingBlockVar) and used & self.block_vars:
            return False
        return not is_unsafe_to_evaluate(expr)

    def conditions(self, cond, inner) -> Iterator:
        terms = _and_terms(cond) if self.conditionals & HoistedConditionals.BooleanExpression \
            else [cond]
        for term in terms:
            if not isinstance(term, IntImm) and self.movable(term, inner):
                yield ("cond", term)

    def in_expr(self, expr, inner: frozenset) -> Iterator:
        for node in _pre_order(expr):
            if call_op_name(node) == "tir.if_then_else" \
                    and self.conditionals & HoistedConditionals.IfElseExpr:
                yield from self.conditions(node.args[0], inner)
            elif isinstance(node, Let) and self.lets & HoistedLetBindings.LetExpr \
                    and self.movable(node.value, inner):
                yield ("let", node)

    def in_stmt(self, stmt, inner: frozenset) -> Iterator:
        if stmt is None or isinstance(stmt, BlockRealize):
            return  # blocks keep their own bodies
        if self.nest_only and not isinstance(stmt, IfThenElse | For | AttrStmt):
            return
        if isinstance(stmt, IfThenElse):
            if self.conditionals & HoistedConditionals.IfElseStmt:
                yield from self.conditions(stmt.condition, inner)
            if self.nest_only:
                return
            yield from self.in_expr(stmt.condition, inner)
            yield from self.in_stmt(stmt.then_case, inner)
            yield from self.in_stmt(stmt.else_case, inner)
        elif isinstance(stmt, LetStmt):
            yield from self.in_expr(stmt.value, inner)
            if self.movable(stmt.value, inner) and self._let_stmt_allowed(stmt):
                yield ("let", stmt)
            yield from self.in_stmt(stmt.body, inner | {id(stmt.var)})
        elif isinstance(stmt, For):
            yield from self.in_stmt(stmt.body, inner | {id(stmt.loop_var)})
        elif isinstance(stmt, AttrStmt) and stmt.attr_key == "thread_extent" \
                and isinstance(stmt.node, IterVar):
            if self.conditionals & HoistedConditionals.UsingBlockVar:  # else: never across a launch
                yield from self.in_stmt(stmt.body, inner | {id(stmt.node.var)})
        else:
            defined = {id(getattr(stmt, "buffer_var", None))} if hasattr(stmt, "buffer_var") else set()
            for name in ("value", "indices", "condition", "message"):
                if hasattr(stmt, name):
                    yield from self.in_expr(getattr(stmt, name), inner)
            for name in ("seq",):
                for s in getattr(stmt, name, ()):
                    yield from self.in_stmt(s, inner | defined)
            if hasattr(stmt, "body"):
                yield from self.in_stmt(stmt.body, inner | defined)

    def _let_stmt_allowed(self, let: LetStmt) -> bool:
        if self.lets & HoistedLetBindings.LetStmt:
            return True
        if not self.lets & HoistedLetBindings.RequiredByConditional:
            return False
        conds = [s.condition for s in collect(let.body, lambda x: isinstance(x, IfThenElse))]
        return any(id(let.var) in _free_vars(c) for c in conds)


def _pre_order(expr) -> list:
    out = []

    def visit(x):
        out.append(x)

    from ..functor import pre_order_visit

    pre_order_visit(expr, visit)
    return out


class _Resolver(IRMutator):
    """Folds every condition the analyzer decides (under the constraints in scope)."""

    def __init__(self, analyzer: Analyzer, known, value: bool):
        super().__init__()
        self.analyzer = analyzer
        self.known, self.value = known, value  # the hoisted condition and its value here

    def prove(self, term) -> bool | None:
        if structural_equal(term, self.known, map_free_vars=False):
            return self.value
        if self.analyzer.can_prove(term):
            return True
        if self.analyzer.can_prove(Not(term)):
            return False
        return None

    def decide(self, cond):
        whole = self.prove(cond)
        if whole is not None:
            return const(whole, "bool")
        terms, kept = _and_terms(cond), []
        for term in terms:
            known = self.prove(term)
            if known is False:
                return const(False, "bool")
            if known is None:
                kept.append(term)
        if len(kept) == len(terms):
            return cond
        out = const(True, "bool")
        for i, term in enumerate(kept):
            out = term if i == 0 else And(out, term)
        return out

    def visit_IfThenElse(self, stmt: IfThenElse):
        cond = self.decide(self.visit(stmt.condition))
        if isinstance(cond, IntImm):
            branch = stmt.then_case if cond.value else stmt.else_case
            return None if branch is None else self.visit(branch)
        return replace(stmt, condition=cond, then_case=self.visit(stmt.then_case),
                       else_case=self.visit(stmt.else_case) if stmt.else_case is not None else None)

    def visit_Call(self, call):
        if call_op_name(call) != "tir.if_then_else":
            return self.generic_visit(call)
        cond = self.decide(self.visit(call.args[0]))
        if isinstance(cond, IntImm):
            return self.visit(call.args[1] if cond.value else call.args[2])
        return replace(call, args=(cond, self.visit(call.args[1]), self.visit(call.args[2])))

    def visit_SeqStmt(self, stmt):
        from ..stmt import seq

        kept = [s for s in (self.visit(s) for s in stmt.seq) if s is not None]
        return seq(*kept) if kept else None


class _Unbinder(IRMutator):
    """Removes one LetStmt / Let node (its variable becomes bound outside)."""

    def __init__(self, target):
        super().__init__()
        self.target = target

    def visit(self, x):
        if x is self.target:
            return self.visit(x.body)
        return super().visit(x)


class _Hoister(IRMutator):
    def __init__(self, conditionals, lets, nest_only: bool = False):
        super().__init__()
        self.conditionals, self.lets, self.nest_only = conditionals, lets, nest_only
        self.analyzer = Analyzer()
        self.block_vars: set[int] = set()

    def visit_For(self, loop: For):
        if loop.kind == ForKind.THREAD_BINDING:
            self.block_vars.add(id(loop.loop_var))
        return self.hoist_from(self.generic_visit(loop), loop.loop_var)

    def visit_AttrStmt(self, stmt: AttrStmt):
        launch = stmt.attr_key == "thread_extent" and isinstance(stmt.node, IterVar)
        if launch:
            self.block_vars.add(id(stmt.node.var))
        stmt = self.generic_visit(stmt)
        if launch:
            if self.conditionals & HoistedConditionals.UsingBlockVar:
                return self.hoist_from(stmt, stmt.node.var)
        return stmt

    def hoist_from(self, scope, var: Var):
        finder = _Candidates(self.conditionals, self.lets, {id(var)}, self.block_vars,
                             self.nest_only)
        item = next(finder.in_stmt(scope.body, frozenset()), None)
        if item is None:
            return scope
        kind, node = item
        if kind == "let":
            inner = replace(scope, body=_Unbinder(node).visit(scope.body))
            return LetStmt(node.var, node.value, self.hoist_from(inner, var))
        branches = []
        for known, value in ((node, True), (Not(node), False)):
            with self.analyzer.constraint_scope(known):
                body = _Resolver(self.analyzer, node, value).visit(scope.body)
                copy = None if body is None or is_no_op(body) else replace(scope, body=body)
                if copy is not None:
                    copy = _NoOpRemover().visit(copy)
                    copy = None if is_no_op(copy) else self.hoist_from(copy, var)
            branches.append(copy)
        then_case, else_case = branches
        if then_case is None and else_case is None:
            return _NoOpRemover().visit(replace(scope, body=IfThenElse(node, scope.body, None)))
        if then_case is None:
            return IfThenElse(Not(node), else_case, None)
        return IfThenElse(node, then_case, else_case)


def _config() -> tuple:
    cfg = PassContext.current().config.get("tir.HoistExpression", {}) or {}
    get = cfg.get if isinstance(cfg, dict) else (lambda k, d: getattr(cfg, k, d))
    return (HoistedConditionals(int(get("hoisted_conditionals", _DEFAULT_CONDITIONALS))),
            HoistedLetBindings(int(get("hoisted_let_bindings", _DEFAULT_LETS))))


def hoist_expression(func: PrimFunc, conditionals=None, lets=None, nest_only: bool = False) -> PrimFunc:
    """``func`` with loop-invariant conditions and bindings moved out of its loops."""
    if conditionals is None or lets is None:
        cfg_conditionals, cfg_lets = _config()
        conditionals = cfg_conditionals if conditionals is None else conditionals
        lets = cfg_lets if lets is None else lets
    body = _Hoister(HoistedConditionals(conditionals), HoistedLetBindings(lets), nest_only).visit(func.body)
    if body is func.body:
        return func
    return _SSAConverter().convert(func.with_body(body))  # the two copies of a loop share its Var


def HoistExpression() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`hoist_expression` (configured through the PassContext)."""
    return make_pass(hoist_expression, "tir.HoistExpression")


def _hoist_if_then_else(func: PrimFunc) -> PrimFunc:
    cfg = PassContext.current().config.get("tir.HoistIfThenElse", {}) or {}
    across_threads = bool(cfg.get("support_block_scope_hosting", False)) \
        if isinstance(cfg, dict) else False
    conditionals = HoistedConditionals.IfElseStmt
    if across_threads:
        conditionals |= HoistedConditionals.UsingBlockVar
    return hoist_expression(func, conditionals, HoistedLetBindings.Never, nest_only=True)


def HoistIfThenElse() -> Pass:  # noqa: N802 - TVM's name
    """Hoist loop-invariant ``if`` statements only (whole conditions, no let bindings), and only
    out of perfect loop nests (an ``if`` that is, through nested loops, a loop's whole body);
    ``PassContext(config={"tir.HoistIfThenElse": {"support_block_scope_hosting": True}})``
    also hoists across thread launches."""
    return make_pass(_hoist_if_then_else, "tir.HoistIfThenElse")
