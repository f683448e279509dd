"""ember.tir: TensorIR — loop programs over buffers, their schedules and lowering passes."""

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod,
    IntImm, Let, Max, Min, Mod, Mul, Not, Op, Or, PointerType, PrimExpr, Ramp, Range, Select,
    SizeVar, StringImm, Sub, Var, const,
)
from ember.ir.expr import Shuffle

from . import op
from .buffer import Buffer, BufferLoad, BufferRegion, MatchBufferRegion, decl_buffer
from .function import PrimFunc
from .functor import (
    IRMutator, IRVisitor, collect, ir_transform, post_order_visit, pre_order_visit, substitute,
)
from .op import *  # noqa: F403 - the intrinsic builders (exp, log, if_then_else, …)
from .stmt import (
    Allocate, AssertStmt, AttrStmt, Block, BlockRealize, BufferRealize, BufferStore, DeclBuffer, Evaluate, Prefetch, stmt_list,
    For, ForKind, IfThenElse, IterVar, IterVarType, LetStmt, SeqStmt, Stmt, While, seq,
)

from . import analysis, transform  # noqa: E402 - lowering passes and analyses (tvm.tir.transform.X)
from .bijective_layout import BijectiveLayout, bijective_layout  # noqa: E402 - TVM's data-layout API
from .comm_reducer import CommReducer, Reduce  # noqa: E402 - tvm.tir.Reduce / CommReducer
from .data_layout import Layout, layout  # noqa: E402
from . import expr, stmt_functor  # noqa: E402 - TVM's module paths tvm.tir.expr / tvm.tir.stmt_functor
from . import ir_builder  # noqa: E402 - tvm.tir.ir_builder (imperative TIR construction)
from .schedule import IndexMap, Schedule, ScheduleError, ScheduleState, TensorIntrin  # noqa: E402 - tvm.tir.Schedule & co
from .schedule.block_scope import BlockDependenceInfo, BlockScope, DepKind  # noqa: E402
from .schedule.state import StmtSRef  # noqa: E402
