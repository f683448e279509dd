"""ember.tir.schedule: TensorIR schedules (TVM's ``tir.Schedule``) and their traces.

``Schedule`` holds a ``ScheduleState`` (the current IRModule; every primitive returns a
new PrimFunc that is swapped in) and a table from handles (``BlockRV``, ``LoopRV``,
``ExprRV``) to stable keys — a block's name, a loop's Var, a sampled value — looked
up in the current IR on each use (see ``state.py``).  Every primitive is recorded in
a ``Trace`` that prints as Python, serialises to JSON and replays.  Illegal uses raise
``ScheduleError`` with the IR printed and the offending block or loop marked.

Known limits (each refused with a ScheduleError, never silently wrong): reindex works
on blocks of the root scope; compute_at / reverse_compute_at
move blocks whose accesses of the moved buffer are indexed by distinct block iterators;
rfactor needs ``C[...] = C[...] op value`` with op in +, *, min, max; IndexMap.inverse
handles permutations, tilings (``x // c``, ``x % c``) and mixed-radix fusions; tensorize
matches the description's loop ranges, expression tree and every access index (relative
to the block's regions), and needs contiguous regions for compact intrinsic buffers.
"""

from .block_scope import BlockScope, DepKind, Dependency
from .errors import ScheduleError
from .index_map import IndexMap
from .schedule import Schedule
from .state import BlockRV, ExprRV, LoopRV, ScheduleState, StmtSRef
from .tensor_intrin import TensorIntrin
from .trace import Instruction, InstructionKind, Trace

__all__ = [
    "Schedule", "ScheduleError", "ScheduleState", "BlockRV", "LoopRV", "ExprRV", "Trace",
    "Instruction", "InstructionKind", "IndexMap", "TensorIntrin", "BlockScope", "DepKind",
    "Dependency", "StmtSRef",
]
