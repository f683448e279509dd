"""ScheduleState and random-variable handles.

Design (the simplest correct one we found): the state holds the current IRModule; IR
is immutable, so every primitive builds a new PrimFunc and the state swaps it in.
Random variables are plain handle objects; the schedule's table maps each one to a
*stable key* instead of a node:

* ``BlockRV`` → the block's name (block names are unique in a function; a primitive
  that renames a block, e.g. ``decompose_reduction``, updates the table),
* ``LoopRV``  → the loop's ``loop_var`` (untouched loops keep their Var object through
  every rewrite, because mutators rebuild only what changed; a primitive that
  replaces a loop, e.g. ``split``, makes new Vars, so handles of the old loop go stale,
  exactly as in TVM),
* ``ExprRV``  → its sampled integer value.

``Schedule.get(rv)`` looks the key up in the current function, so handles always see
the latest IR.
"""

from __future__ import annotations

import enum

from ember.ir import IRModule

from .cached_flags import CachedFlags

__all__ = ["BlockRV", "LoopRV", "ExprRV", "ScheduleState", "StmtSRef", "CachedFlags", "ROOT", "INLINE",
           "ScheduleDebugMask"]


class ScheduleDebugMask(enum.IntFlag):
    """What a schedule checks after each primitive (``Schedule(debug_mask=...)``).  ember
    checks the IR's well-formedness for any non-zero mask (its srefs are derived from the
    IR, so there is no separate sref tree to verify)."""

    VERIFY_SREF_TREE = 1
    VERIFY_CACHED_FLAGS = 2


class _RV:
    __slots__ = ("__weakref__",)
    prefix = "x"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(0x{id(self):x})"

    def same_as(self, other) -> bool:
        return self is other


class BlockRV(_RV):
    """A handle to a block in the schedule's current function."""

    __slots__ = ()
    prefix = "b"


class LoopRV(_RV):
    """A handle to a loop (or the special root / inline location)."""

    __slots__ = ()
    prefix = "l"


class ExprRV(_RV):
    """A handle to a sampled integer."""

    __slots__ = ()
    prefix = "v"

    def __int__(self):
        raise TypeError("an ExprRV has no value by itself; use sch.get(rv)")


ROOT = "<root>"      # LoopRV key of the "compute at root" location (sample_compute_location)
INLINE = "<inline>"  # LoopRV key of the "inline" location


class ScheduleState:
    """The module being scheduled and the name of the function primitives work on."""

    def __init__(self, mod, func_name: str | None = None, *, debug_mask="none", enable_check: bool = True):
        from ember.tir import PrimFunc

        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        if func_name is None:
            prims = [gv.name_hint for gv, f in mod.functions.items() if isinstance(f, PrimFunc)]
            func_name = prims[0] if len(prims) == 1 else None
        self.mod = mod
        self.func_name = func_name
        self.debug_mask, self.enable_check = debug_mask, enable_check

    @property
    def func(self):
        if self.func_name is None:
            from .errors import ScheduleError

            names = ", ".join(gv.name_hint for gv in self.mod.get_global_vars())
            raise ScheduleError(
                "the module has several functions and none is selected, so the schedule does not know "
                "which function to be working on; "
                f"call sch.work_on(name) or pass func_name= (functions: {names})"
            )
        return self.mod[self.func_name]

    def update(self, func) -> None:
        if func is self.func:
            return
        mod = self.mod.copy()
        mod[self.func_name] = func
        self.mod = mod

    def copy(self) -> ScheduleState:
        return ScheduleState(self.mod, self.func_name)

    def get_sref(self, stmt) -> StmtSRef | None:
        """The sref of the Block or For ``stmt`` (None if absent): in the current function, or,
        when none is selected, in whichever function of the module holds it."""
        for func in self._candidate_funcs():
            sref = _sref_in(func, stmt)
            if sref is not None:
                sref.owner = self
                return sref
        return None

    def _candidate_funcs(self) -> list:
        from ember.tir import PrimFunc

        if self.func_name is not None:
            return [self.func]
        return [f for f in self.mod.functions.values() if isinstance(f, PrimFunc)]

    def replace(self, src_sref: StmtSRef, tgt_stmt, block_sref_reuse: dict | None = None) -> None:
        """Replace the statement of ``src_sref`` (a For or Block) by ``tgt_stmt``.

        IR is immutable here, so the functions on the path are rebuilt (TVM writes in place
        when nothing else holds them; see docs/tvm_compat.md).  ``src_sref`` then refers to
        ``block_sref_reuse[old block]`` when given, stays valid when ``tgt_stmt`` still
        contains its statement, and otherwise refers to nothing (``stmt`` is None)."""
        from ember.tir import PrimFunc

        from .analysis import replace_stmts, walk

        old = src_sref.stmt
        if old is None:
            raise ValueError("ScheduleState.replace: the sref refers to a statement that was already replaced")
        owner = next(((gv, f) for gv, f in self.mod.functions.items()
                      if isinstance(f, PrimFunc) and _sref_in(f, old) is not None), None)
        if owner is None:
            raise ValueError(f"ScheduleState.replace: {type(old).__name__} of the sref is not in the module")
        new_func = replace_stmts(owner[1], {old: tgt_stmt})
        mod = self.mod.copy()
        mod[owner[0].name_hint] = new_func
        self.mod = mod
        reuse = {id(k): v for k, v in (block_sref_reuse or {}).items()}
        if id(old) in reuse:
            src_sref.stmt = reuse[id(old)]
        elif not any(x is old or getattr(x, "block", None) is old for x in walk(new_func.body)):
            src_sref.stmt = None

    def _get_cached_flags(self, block_sref: StmtSRef) -> CachedFlags:
        """The affine-binding, region-cover and stage-pipeline facts of a block (cached_flags.py)."""
        from ember.tir.stmt import Block

        from .cached_flags import cached_flags

        block = getattr(block_sref, "stmt", block_sref)
        if not isinstance(block, Block):
            raise TypeError(f"_get_cached_flags expects the sref of a block, got {block_sref!r}")
        return cached_flags(self.func, block)

    def get_block_scope(self, scope_root: StmtSRef):
        """The dependences among the child blocks of the block ``scope_root``."""
        from .block_scope import BlockScope

        return BlockScope(self.func, getattr(scope_root, "stmt", scope_root), owner=self)


class StmtSRef:
    """A snapshot reference to a Block or For of the current IR and its parent sref
    (the nearest enclosing Block or For), as ``Schedule.get_sref`` returns."""

    __slots__ = ("stmt", "_func", "_path", "owner")

    def __init__(self, stmt, func, path, owner=None):
        self.stmt, self._func, self._path = stmt, func, path
        self.owner = owner  # the ScheduleState it came from: srefs of two schedules differ

    @staticmethod
    def of(func, node) -> StmtSRef:
        from ember.tir.stmt import BlockRealize

        from .analysis import path_to

        stmt = node.block if isinstance(node, BlockRealize) else node
        return StmtSRef(stmt, func, path_to(func.body, node) or [])

    @property
    def parent(self) -> StmtSRef | None:
        from ember.tir.stmt import BlockRealize, For

        for k in range(len(self._path) - 1, -1, -1):
            s = self._path[k]
            if isinstance(s, BlockRealize | For):
                return StmtSRef(s.block if isinstance(s, BlockRealize) else s, self._func, self._path[:k])
        return None

    def same_as(self, other) -> bool:
        return isinstance(other, StmtSRef) and other.stmt is self.stmt and other.owner is self.owner

    def __eq__(self, other) -> bool:  # two lookups of one statement in one state are equal
        return self.same_as(other)

    def __hash__(self) -> int:
        return hash((id(self.stmt), id(self.owner)))

    def __repr__(self) -> str:
        return f"StmtSRef({type(self.stmt).__name__})"


def _sref_in(func, stmt) -> StmtSRef | None:
    from ember.tir.stmt import Block, BlockRealize, For

    from .analysis import path_to

    if isinstance(stmt, Block):
        found = _realizes_of(func.body, stmt)
        if found:
            return StmtSRef.of(func, found[0])
        if func.body is stmt:
            return StmtSRef(stmt, func, [])
    elif isinstance(stmt, For | BlockRealize) and path_to(func.body, stmt):
        return StmtSRef.of(func, stmt)
    return None


def _realizes_of(body, block) -> list:
    from ember.tir.functor import collect
    from ember.tir.stmt import BlockRealize

    return collect(body, lambda n: isinstance(n, BlockRealize) and n.block is block)
