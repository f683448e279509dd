"""Small whole-function checks: ``verify_ssa``, ``expr_deep_equal``, ``is_pure_function``.

``verify_ssa(func)``: every variable is defined once (parameters, ``LetStmt`` / ``Let``,
loops, allocations, block iterators); one ``Let`` expression used in two places is still
one definition.  ``expr_deep_equal(a, b)``: the expressions have the same tree over the
same variables.  ``is_pure_function(func)``: the function writes no buffer it was given
and calls no operation with side effects (``T.ret`` is how it returns, not an effect);
``assert_pure_function`` raises an AssertionError naming the first effect.
"""

from __future__ import annotations

from ember.ir.expr import Call, Let, Var
from ember.tir.functor import IRVisitor
from ember.tir.stmt import Allocate, BlockRealize, BufferStore, For, LetStmt

__all__ = ["verify_ssa", "expr_deep_equal", "is_pure_function", "assert_pure_function"]


class _Definitions(IRVisitor):
    def __init__(self) -> None:
        self.sites: dict[int, int] = {}  # id(var) -> id(defining node)
        self.ok = True

    def define(self, var, site) -> None:
        old = self.sites.setdefault(id(var), id(site))
        if old != id(site):
            self.ok = False

    def visit_LetStmt(self, s: LetStmt) -> None:  # noqa: N802
        self.define(s.var, s)
        self.generic_visit(s)

    def visit_Let(self, e: Let) -> None:  # noqa: N802
        self.define(e.var, e)
        self.generic_visit(e)

    def visit_For(self, s: For) -> None:  # noqa: N802
        self.define(s.loop_var, s)
        self.generic_visit(s)

    def visit_Allocate(self, s: Allocate) -> None:  # noqa: N802
        self.define(s.buffer_var, s)
        self.generic_visit(s)

    def visit_BlockRealize(self, s: BlockRealize) -> None:  # noqa: N802
        for iv in s.block.iter_vars:
            self.define(iv.var, s.block)
        self.generic_visit(s)


def verify_ssa(func) -> bool:
    """Whether each variable of ``func`` is defined at one place only."""
    d = _Definitions()
    for p in func.params:
        d.define(p, func)
    d.visit(func.body)
    return d.ok


def expr_deep_equal(lhs, rhs) -> bool:
    """Whether ``lhs`` and ``rhs`` are the same tree over the same variables."""
    from ember.ir import structural_equal

    return structural_equal(lhs, rhs, map_free_vars=False)


class _Effects(IRVisitor):
    def __init__(self, params: set) -> None:
        self.params = params
        self.effects: list[str] = []

    def visit_BufferStore(self, s: BufferStore) -> None:  # noqa: N802
        if id(s.buffer.data) in self.params:
            self.effects.append(f"writes the argument buffer {s.buffer.name!r}")
        self.generic_visit(s)

    def visit_Call(self, e: Call) -> None:  # noqa: N802
        name = getattr(e.op, "name", "")
        get = getattr(e.op, "get_attr", None)
        if name != "tir.ret" and get is not None and get("pure") is False:
            callee = e.args[0].value if name.endswith("extern") and e.args else name
            self.effects.append(f"calls {callee!r}, which has side effects")
        self.generic_visit(e)


def _effects(func) -> list[str]:
    params = {id(b.data) for b in func.buffer_map.values()}
    params |= {id(p) for p in func.params if isinstance(p, Var) and p.dtype.is_handle}
    e = _Effects(params)
    e.visit(func.body)
    return e.effects


def is_pure_function(func) -> bool:
    return not _effects(func)


def assert_pure_function(func) -> bool:
    effects = _effects(func)
    if effects:
        raise AssertionError(f"the function is not pure: it {effects[0]}")
    return True
