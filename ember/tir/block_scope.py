"""``tvm.tir.block_scope``: the module path of block dependences (they live in
``ember.tir.schedule.block_scope``) and of ``StmtSRef``."""

from .schedule.block_scope import BlockDependenceInfo, BlockScope, DepKind, Dependency
from .schedule.state import StmtSRef

__all__ = ["BlockDependenceInfo", "BlockScope", "DepKind", "Dependency", "StmtSRef"]
