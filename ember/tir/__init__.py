"""ember.tir: TensorIR — loop programs over buffers, their schedules and lowering passes."""

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod,
    IntImm, Let, Max, Min, Mod, Mul, Not, Op, Or, PointerType, PrimExpr, Ramp, Range, Select,
    SizeVar, StringImm, Sub, Var, const,
)

from . import op
from .buffer import Buffer, BufferLoad, BufferRegion, MatchBufferRegion, decl_buffer
from .function import PrimFunc
from .functor import (
    IRMutator, IRVisitor, collect, ir_transform, post_order_visit, pre_order_visit, substitute,
)
from .op import *  # noqa: F403 - the intrinsic builders (exp, log, if_then_else, …)
from .stmt import (
    Allocate, AssertStmt, AttrStmt, Block, BlockRealize, BufferStore, DeclBuffer, Evaluate,
    For, ForKind, IfThenElse, IterVar, IterVarType, LetStmt, SeqStmt, Stmt, While, seq,
)

stmt_functor = __import__("ember.tir.functor", fromlist=["functor"])

from . import analysis, transform  # noqa: E402 - lowering passes and analyses (tvm.tir.transform.X)
from .schedule import IndexMap, Schedule, ScheduleError, TensorIntrin  # noqa: E402 - tvm.tir.Schedule & co
