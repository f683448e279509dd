"""Simplify: simplify every expression with ``ember.arith.Analyzer``, knowing loop ranges.

Each loop variable is bound to its ``[min, min + extent)`` range before its body is
simplified, and each ``if`` branch is simplified under its condition (the analyzer's
``constraint_scope``), so bound checks such as ``i < n`` that always hold vanish; an
``if`` whose condition becomes constant is replaced by its branch, and a store of an
element into itself (``A[i] = A[i]``, perhaps only after simplification) is removed.
Let bindings of constants, Vars and pure integer expressions are inlined (unless a
buffer's shape uses them); thread indices range over their launch extent; a condition
that reads memory is not assumed inside its branches (they may change that memory).
Unsigned and narrow integer values (which wrap around) are not rewritten, only the
indices inside them.
"""

from __future__ import annotations

import contextlib

from ember.arith import Analyzer
from ember.ir import Call, FloatImm, IntImm, Not, PrimExpr, Range, Var, const, replace, structural_equal
from ember.transform import Pass

from ..buffer import Buffer, BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, collect, substitute
from ..stmt import AttrStmt, BufferStore, For, IfThenElse, IterVar, LetStmt
from ._common import call_op_name, logger, make_pass, no_op

__all__ = ["simplify", "Simplify", "make_analyzer"]


def make_analyzer() -> Analyzer:
    """A new ``ember.arith.Analyzer``."""
    return Analyzer()


def _wraps_around(dtype) -> bool:
    """Unsigned and narrow integer data wrap around on overflow (as numpy's do), while the
    analyzer's rewrite rules assume index arithmetic that never overflows: for uint8
    ``max(a + b, b)`` is not ``a + b``.  Such expressions are left as written."""
    return (dtype.is_uint or dtype.is_int and dtype.bits < 32) and not dtype.is_bool


def _options() -> dict:
    """The ``tir.Simplify`` options of the current PassContext (TVM's config keys)."""
    from ember.transform import PassContext

    cfg = PassContext.current().config.get("tir.Simplify") or {}
    if not isinstance(cfg, dict):
        cfg = {k: getattr(cfg, k) for k in dir(cfg) if not k.startswith("_")}
    return {k: bool(v) for k, v in cfg.items()}


class _Simplifier(IRMutator):
    def __init__(self, analyzer, options=None):
        super().__init__()
        self.analyzer = analyzer
        self.options = options or {}
        self.conditions: list = []  # branch conditions known to hold here
        self.bool_lets: dict = {}  # boolean let Var -> its value
        self.facts = None  # known buffer contents, with the propagate_knowns_* options
        if self.options.get("propagate_knowns_to_prove_conditional") or \
                self.options.get("propagate_knowns_to_simplify_expressions"):
            from .simplify_buffer_facts import BufferFacts

            self.facts = BufferFacts(analyzer)
        self._known = None

    def _knowledge(self):
        """The comparisons of the enclosing branch conditions (built once per scope)."""
        if self._known is None:
            from ember.arith.known_comparisons import KnownComparisons

            known = KnownComparisons(self.options.get("transitively_prove_inequalities", False))
            for cond in self.conditions:
                known.add(cond)
            self._known = known
        return self._known

    @contextlib.contextmanager
    def _assuming(self, cond):
        self.conditions.append(cond)
        self._known = None
        try:
            with self.analyzer.constraint_scope(cond):
                yield
        finally:
            self.conditions.pop()
            self._known = None

    def visit(self, x):
        if isinstance(x, PrimExpr) and not isinstance(x, Var):
            if _wraps_around(x.dtype):  # only its (index) sub-expressions are simplified
                return super().visit(x)
            out = self.analyzer.simplify(x)
            if self.conditions and out.dtype.is_bool:
                narrowed = self._knowledge().rewrite(out)
                if narrowed is not out:
                    out = self.analyzer.simplify(narrowed)
            if out.dtype.is_bool and self.options.get("convert_boolean_to_and_of_ors"):
                from ember.arith.and_of_ors import simplify_as_and_of_ors

                out = simplify_as_and_of_ors(out, self.analyzer)
            return out
        return super().visit(x)

    def visit_Buffer(self, buf):
        return buf  # buffer shapes are declarations, left as written

    def visit_For(self, loop: For):
        lo, extent = self.visit(loop.min), self.visit(loop.extent)
        try:
            self.analyzer.bind(loop.loop_var, Range(lo, extent))
        except ValueError:  # this Var already names another loop: give this loop its own
            fresh = Var(loop.loop_var.name, loop.loop_var.dtype)
            logger.debug("Simplify: loop var %s reused by two loops; renamed", fresh.name)
            loop = replace(loop, loop_var=fresh, body=substitute(loop.body, {loop.loop_var: fresh}))
            self.analyzer.bind(fresh, Range(lo, extent))
        if self.facts is None:
            return replace(loop, min=lo, extent=extent, body=self.visit(loop.body))
        saved = self.facts.enter_loop(loop)
        body = self.visit(loop.body)
        self.facts.exit_loop(loop, body, saved)
        return replace(loop, min=lo, extent=extent, body=body)

    def visit_SeqStmt(self, stmt):
        items = []
        with contextlib.ExitStack() as scopes:
            for child in stmt.seq:
                items.append(self.visit(child))
                cond = _assumed(items[-1])
                if cond is not None and not collect(cond, lambda x: isinstance(x, BufferLoad)):
                    scopes.enter_context(self._assuming(cond))  # holds for the statements after
        if all(a is b for a, b in zip(items, stmt.seq)):
            return stmt
        return replace(stmt, seq=tuple(items))

    def visit_Evaluate(self, stmt):
        stmt = self.generic_visit(stmt)
        cond = _assumed(stmt)
        if cond is not None and self.facts is not None:
            self.facts.assume(cond)
        return stmt

    def visit_LetStmt(self, let: LetStmt):
        value = self.visit(let.value)
        if value.dtype.is_bool and not isinstance(value, IntImm):
            self.bool_lets[let.var] = value  # kept as a Var, but known when proving conditions
        if _can_inline(value) and not _used_in_buffer_definition(let.var, let.body):
            # constants, Vars and pure integer expressions are substituted, as TVM does
            return self.visit(substitute(let.body, {let.var: value}))
        body = self.visit(let.body)
        if value is let.value and body is let.body:
            return let
        return replace(let, value=value, body=body)

    def visit_AttrStmt(self, stmt: AttrStmt):
        if stmt.attr_key in ("thread_extent", "virtual_thread") and isinstance(stmt.node, IterVar):
            value = self.visit(stmt.value)
            try:  # the thread index ranges over [0, extent)
                self.analyzer.bind(stmt.node.var, Range(const(0, value.dtype), value))
            except ValueError:  # launched again with another extent: nothing learned
                pass
            body = self.visit(stmt.body)
            return stmt if value is stmt.value and body is stmt.body else \
                replace(stmt, value=value, body=body)
        return self.generic_visit(stmt)

    def _branches_with_facts(self, stmt: IfThenElse, cond):
        """Both branches with the buffer facts of this point (the then-branch also knows
        ``A[i] == v`` from its condition); afterwards facts of buffers they write are gone."""
        from ember.ir import And as AndExpr

        saved = list(self.facts.facts)
        has_load = collect(cond, lambda x: isinstance(x, BufferLoad))
        atoms, todo = [], [cond]
        while todo:
            c = todo.pop()
            if isinstance(c, AndExpr):
                todo += [c.a, c.b]
            else:
                atoms.append(c)
        for atom in atoms:
            self.facts.assume(atom)
        if has_load:
            then_case = self.visit(stmt.then_case)
        else:
            with self._assuming(cond):
                then_case = self.visit(stmt.then_case)
        self.facts.facts = list(saved)
        else_case = stmt.else_case
        if else_case is not None:
            if has_load:
                else_case = self.visit(else_case)
            else:
                with self._assuming(Not(cond)):
                    else_case = self.visit(else_case)
        self.facts.facts = saved
        self.facts.forget_written(stmt)
        return replace(stmt, condition=cond, then_case=then_case, else_case=else_case)

    def visit_BufferStore(self, store: BufferStore):
        store = self.generic_visit(store)
        if self.facts is not None:
            if self.options.get("propagate_knowns_to_simplify_expressions"):
                value = self.facts.resolve(store.value)
                if value is not store.value:
                    store = replace(store, value=self.analyzer.simplify(value))
            self.facts.store(store)
        return no_op() if _is_self_store(store) else store  # A[i] = A[i] does nothing

    def visit_IfThenElse(self, stmt: IfThenElse):
        cond = self.visit(stmt.condition)
        if not isinstance(cond, IntImm) and self.bool_lets and collect(cond, lambda x: x in self.bool_lets):
            proved = self.visit(substitute(cond, self.bool_lets))  # ``if c:`` with ``c = i < 3``
            if isinstance(proved, IntImm):
                cond = proved
        if not isinstance(cond, IntImm) and self.facts is not None and self.facts.facts:
            proved = self.visit(self.facts.resolve(cond))  # known buffer contents decide it
            if isinstance(proved, IntImm):
                cond = proved
        if isinstance(cond, IntImm):
            branch = stmt.then_case if cond.value else stmt.else_case
            return no_op() if branch is None else self.visit(branch)
        if self.facts is not None:
            return self._branches_with_facts(stmt, cond)
        if collect(cond, lambda x: isinstance(x, BufferLoad)):
            # memory the branch may change: the condition need not hold inside it
            then_case = self.visit(stmt.then_case)
            else_case = self.visit(stmt.else_case) if stmt.else_case is not None else None
            return replace(stmt, condition=cond, then_case=then_case, else_case=else_case)
        known = cond if cond.dtype.is_bool else cond != const(0, cond.dtype)  # ``if i:`` is ``i != 0``
        with self._assuming(known):
            then_case = self.visit(stmt.then_case)
        else_case = stmt.else_case
        if else_case is not None:
            with self._assuming(Not(known)):
                else_case = self.visit(else_case)
        return replace(stmt, condition=cond, then_case=then_case, else_case=else_case)


def _assumed(stmt):
    """The condition of ``T.evaluate(T.assume(cond))``, else None."""
    from ..stmt import Evaluate

    if isinstance(stmt, Evaluate) and call_op_name(stmt.value) == "tir.assume":
        return stmt.value.args[0]
    return None


def _can_inline(value) -> bool:
    if isinstance(value, IntImm | FloatImm | Var):
        return True
    if not value.dtype.is_int or collect(value, lambda x: isinstance(x, BufferLoad | Call)):
        return False
    return True


def _used_in_buffer_definition(var: Var, body) -> bool:
    buffers = collect(body, lambda x: isinstance(x, Buffer))
    return any(v is var for buf in buffers
               for e in (buf.data, *buf.shape, *buf.strides, buf.elem_offset) if e is not None
               for v in collect(e, lambda x: isinstance(x, Var)))


def _is_self_store(store: BufferStore) -> bool:
    value = store.value
    return (isinstance(value, BufferLoad) and value.buffer is store.buffer
            and structural_equal(value.indices, store.indices, map_free_vars=False))


def simplify(func: PrimFunc) -> PrimFunc:
    """Simplify ``func``'s expressions, knowing loop ranges and branch conditions."""
    analyzer = make_analyzer()
    simplifier = _Simplifier(analyzer, _options())
    with contextlib.ExitStack() as scopes:
        for buf in func.buffer_map.values():  # a buffer's extents are never negative
            for dim in buf.shape:
                if not isinstance(dim, IntImm) and dim.dtype.is_int:
                    scopes.enter_context(analyzer.constraint_scope(dim >= const(0, dim.dtype)))
        return func.with_body(simplifier.visit(func.body))


def Simplify() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`simplify`."""
    return make_pass(simplify, "tir.Simplify")
