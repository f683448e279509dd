"""Block dependences inside a scope (TVM's ``BlockScope``, ``Dependency``, ``DepKind``).

The child blocks of a scope block (those whose nearest enclosing block is the scope)
are taken in program order; a later block depends on an earlier one through a buffer
that the earlier block writes and the later reads (RAW) or writes (WAW), or that the
earlier reads and the later writes (WAR).  Regions are not compared: any shared buffer
counts, as in TVM.
"""

from __future__ import annotations

import enum

from ember.tir.stmt import Block, BlockRealize

from .state import StmtSRef

__all__ = ["DepKind", "Dependency", "BlockScope", "BlockDependenceInfo"]


class DepKind(enum.IntEnum):
    RAW = 0
    WAW = 1
    WAR = 2
    OPAQUE = 3


class Dependency:
    """``dst`` depends on ``src`` (both StmtSRefs of blocks) for the reason ``kind``."""

    __slots__ = ("src", "dst", "kind")

    def __init__(self, src: StmtSRef, dst: StmtSRef, kind: DepKind) -> None:
        self.src, self.dst, self.kind = src, dst, kind

    def __repr__(self) -> str:
        return f"Dependency({self.src.stmt.name_hint} -> {self.dst.stmt.name_hint}, {self.kind.name})"


class BlockScope:
    """The dependences among the child blocks of the scope block ``root``."""

    def __init__(self, func, root: Block, owner=None) -> None:
        self.root = root
        children = _child_realizes(root.body)
        srefs = [StmtSRef.of(func, r) for r in children]
        for sref in srefs:
            sref.owner = owner
        self.src2deps: dict[int, list] = {}
        self.dst2deps: dict[int, list] = {}
        writers: dict[int, list] = {}
        readers: dict[int, list] = {}
        for sref in srefs:
            block = sref.stmt
            found: list = []
            for region in block.reads:
                found += [(w, DepKind.RAW) for w in writers.get(id(region.buffer), ())]
            for region in block.writes:
                found += [(w, DepKind.WAW) for w in writers.get(id(region.buffer), ())]
                found += [(r, DepKind.WAR) for r in readers.get(id(region.buffer), ())]
            seen = set()
            for src, kind in found:
                if src.stmt is block or (id(src.stmt), kind) in seen:
                    continue
                seen.add((id(src.stmt), kind))
                dep = Dependency(src, sref, kind)
                self.src2deps.setdefault(id(src.stmt), []).append(dep)
                self.dst2deps.setdefault(id(block), []).append(dep)
            for region in block.reads:
                readers.setdefault(id(region.buffer), []).append(sref)
            for region in block.writes:
                writers.setdefault(id(region.buffer), []).append(sref)

    def get_deps_by_src(self, block_sref: StmtSRef) -> list:
        """The dependences whose source is ``block_sref``."""
        return list(self.src2deps.get(id(_block_of(block_sref)), ()))

    def get_deps_by_dst(self, block_sref: StmtSRef) -> list:
        """The dependences whose destination is ``block_sref``."""
        return list(self.dst2deps.get(id(_block_of(block_sref)), ()))


def _block_of(sref) -> Block:
    stmt = getattr(sref, "stmt", sref)
    if not isinstance(stmt, Block):
        raise TypeError(f"expected the StmtSRef of a block, got {sref!r}")
    return stmt


def _child_realizes(stmt) -> list:
    """The BlockRealizes under ``stmt`` that are not inside another block, in order."""
    from ember.tir.functor import IRVisitor

    out: list = []

    class _Visit(IRVisitor):
        def visit_BlockRealize(self, s: BlockRealize) -> None:  # noqa: N802
            out.append(s)

    _Visit().visit(stmt)
    return out


class _BlockSRef(StmtSRef):
    """A block's sref whose parent is the enclosing block (BlockDependenceInfo has no loop srefs)."""

    __slots__ = ()

    @property
    def parent(self):
        from ember.tir.stmt import BlockRealize

        for k in range(len(self._path) - 1, -1, -1):
            s = self._path[k]
            if isinstance(s, BlockRealize):
                return _BlockSRef(s.block, self._func, self._path[:k], self.owner)
            if isinstance(s, Block) and k == 0:
                return _BlockSRef(s, self._func, [], self.owner)
        return None


class BlockDependenceInfo:
    """TVM's ``tir.BlockDependenceInfo``: block srefs (blocks only, each one's parent is the
    enclosing block) and the dependences inside every scope block of a function."""

    def __init__(self, mod) -> None:
        from ember.ir import IRModule
        from ember.tir.function import PrimFunc

        if isinstance(mod, IRModule):
            funcs = [f for f in mod.functions.values() if isinstance(f, PrimFunc)]
            if len(funcs) != 1:
                raise ValueError(f"BlockDependenceInfo: expected a module with one PrimFunc, got {len(funcs)}")
            mod = funcs[0]
        if not isinstance(mod, PrimFunc):
            raise TypeError(f"BlockDependenceInfo: expected a PrimFunc or an IRModule, got {type(mod).__name__}")
        self.func = mod
        self._scopes: dict = {}

    def get_sref(self, block: Block):
        from .analysis import path_to

        func = self.func
        if func.body is block or (isinstance(func.body, BlockRealize) and func.body.block is block):
            return _BlockSRef(block, func, [], self)
        for realize in _all_realizes(func.body):
            if realize.block is block:
                return _BlockSRef(block, func, path_to(func.body, realize) or [], self)
        raise ValueError(f"BlockDependenceInfo.get_sref: block {getattr(block, 'name_hint', block)!r} is not "
                         "in the function")

    def get_block_scope(self, block_sref) -> BlockScope:
        block = _block_of(block_sref)
        scope = self._scopes.get(id(block))
        if scope is None:
            scope = self._scopes[id(block)] = BlockScope(self.func, block, owner=self)
        return scope


def _all_realizes(stmt) -> list:
    from ember.tir.functor import collect

    return collect(stmt, lambda n: isinstance(n, BlockRealize))
