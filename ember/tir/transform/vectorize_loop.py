"""VectorizeLoop: VECTORIZED loops with a constant extent become vector code.

The loop variable becomes ``Ramp(min, 1, lanes)``; lane-invariant (scalar) operands
are broadcast where they meet vectors; ``Ramp ± scalar``, ``Ramp ± Ramp`` and
``Ramp × scalar`` stay Ramps (so contiguous or strided accesses are visible to the
codegen); loads and stores take the vector index (a load may gather with any vector
index; a store needs a Ramp); math intrinsics and ``Select`` become vector ops;
lane-dependent lets get vector variables.

A loop longer than ``MAX_LANES`` becomes a serial loop over vector chunks (the
largest power-of-two width ≤ MAX_LANES dividing the extent).  The loop is left as a
SERIAL loop instead (and the reason logged at debug level) whenever vector code
could differ from the loop: symbolic extent, no chunk width, nested loops /
allocations / while / asserts in the body, an ``if`` or a store index that depends on the lane or does not move with it (a value
carried across iterations), a load of a stored buffer at another index, a
lane-dependent ``if_then_else`` whose branches read memory or divide integers (the
untaken side could fault), a lane-dependent non-elementwise call, a call with side
effects, or vectors already present.
Assumes flat (1-D) buffer accesses (FlattenBuffer ran).
"""

from __future__ import annotations

from ember.ir import (
    Add, BinaryOp, Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod, IntImm, Let, Mod, Mul,
    Op, PrimExpr, Ramp, Select, StringImm, Sub, Var, const, replace, structural_equal,
)
from ember.transform import Pass

from ..buffer import BufferLoad
from ..function import PrimFunc
from ..functor import IRMutator, collect, substitute
from ..stmt import BufferStore, For, ForKind, IfThenElse, LetStmt, SeqStmt
from ._common import as_const_int, logger, make_pass, no_op

__all__ = ["vectorize_loop", "VectorizeLoop", "MAX_LANES"]

MAX_LANES = 64

_ELEMENTWISE = frozenset(
    "exp exp2 exp10 log log2 log10 log1p expm1 sqrt rsqrt sin cos tan sinh cosh tanh asin "
    "acos atan asinh acosh atanh sigmoid erf fabs floor ceil round nearbyint trunc isnan "
    "isinf isfinite popcount clz bitwise_not pow fmod atan2 copysign hypot ldexp nextafter "
    "bitwise_and bitwise_or bitwise_xor shift_left shift_right likely reinterpret".split()
)


def _unsafe_to_speculate(node) -> bool:
    """Nodes that may fault when evaluated for a lane whose condition is false."""
    if isinstance(node, BufferLoad):
        return True
    if isinstance(node, Div | Mod | FloorDiv | FloorMod):
        return not node.dtype.is_float and not (isinstance(node.b, IntImm) and node.b.value != 0)
    return False


class _Fallback(Exception):
    """Raised inside the vectorizer to keep the loop serial; the message says why."""


def _is_vec(e: PrimExpr) -> bool:
    return e.dtype.lanes > 1


class _Vectorizer:
    def __init__(self, loop: For, lanes: int):
        self.var = loop.loop_var
        self.lanes = lanes
        self.ramp = Ramp(loop.min, const(1, loop.min.dtype), lanes)
        self.lets: dict = {}
        self.stores: dict[int, list] = {}  # data var id → vector store indices
        self.loads: dict[int, list] = {}

    def bcast(self, e: PrimExpr) -> PrimExpr:
        return e if _is_vec(e) else Broadcast(e, self.lanes)

    # -- expressions ---------------------------------------------------------------
    def expr(self, e: PrimExpr) -> PrimExpr:
        if isinstance(e, Var):
            if e is self.var:
                return self.ramp
            return self.lets.get(e, e)
        if isinstance(e, IntImm | FloatImm | StringImm):
            return e
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            if isinstance(e, BinaryOp):
                return self.binary(e)
            raise _Fallback(f"cannot vectorize a {type(e).__name__} expression")
        return method(e)

    def binary(self, e: BinaryOp) -> PrimExpr:
        a, b = self.expr(e.a), self.expr(e.b)
        if not _is_vec(a) and not _is_vec(b):
            return replace(e, a=a, b=b)
        cls = type(e)
        if cls is Add or cls is Sub:
            if isinstance(a, Ramp) and not _is_vec(b):
                base = a.base + b if cls is Add else a.base - b
                return Ramp(base, a.stride, self.lanes)
            if isinstance(b, Ramp) and not _is_vec(a):
                if cls is Add:
                    return Ramp(a + b.base, b.stride, self.lanes)
                return Ramp(a - b.base, -b.stride, self.lanes)
            if isinstance(a, Ramp) and isinstance(b, Ramp):
                if cls is Add:
                    return Ramp(a.base + b.base, a.stride + b.stride, self.lanes)
                return Ramp(a.base - b.base, a.stride - b.stride, self.lanes)
        if cls is Mul:
            if isinstance(a, Ramp) and not _is_vec(b):
                return Ramp(a.base * b, a.stride * b, self.lanes)
            if isinstance(b, Ramp) and not _is_vec(a):
                return Ramp(a * b.base, a * b.stride, self.lanes)
        return cls(self.bcast(a), self.bcast(b))

    def expr_Not(self, e):
        return replace(e, a=self.expr(e.a))

    def expr_Cast(self, e: Cast):
        value = self.expr(e.value)
        if not _is_vec(value):
            return replace(e, value=value)
        return Cast(e.dtype.with_lanes(self.lanes), value)

    def expr_Select(self, e: Select):
        c, t, f = self.expr(e.condition), self.expr(e.true_value), self.expr(e.false_value)
        if not any(_is_vec(x) for x in (c, t, f)):
            return replace(e, condition=c, true_value=t, false_value=f)
        return Select(self.bcast(c), self.bcast(t), self.bcast(f))

    def expr_Let(self, e: Let):
        value = self.expr(e.value)
        if not _is_vec(value):
            return replace(e, value=value, body=self.expr(e.body))
        var = Var(e.var.name, value.dtype)
        self.lets[e.var] = var
        return Let(var, value, self.expr(e.body))

    def expr_BufferLoad(self, e: BufferLoad):
        indices = tuple(self.expr(i) for i in e.indices)
        if len(indices) != 1:
            raise _Fallback(f"load of the {len(indices)}-d buffer {e.buffer.name!r}; run FlattenBuffer first")
        self.loads.setdefault(id(e.buffer.data), []).append(indices[0])
        return replace(e, indices=indices)

    def expr_Call(self, e: Call):
        if isinstance(e.op, Op) and e.op.get_attr("pure") is False:
            raise _Fallback(f"call of {e.op.name!r} has side effects")
        args = tuple(self.expr(a) for a in e.args)
        if not any(_is_vec(a) for a in args):
            return replace(e, args=args)
        name = e.op.name[4:] if isinstance(e.op, Op) and e.op.name.startswith("tir.") else None
        if name == "if_then_else":
            if not _is_vec(args[0]):  # lane-invariant condition: one branch, taken as a whole vector
                return Call(e.dtype.with_lanes(self.lanes), e.op, (args[0], self.bcast(args[1]), self.bcast(args[2])))
            if collect(e.args[1:], _unsafe_to_speculate):
                raise _Fallback("lane-dependent if_then_else whose branches read memory or divide")
            return Select(self.bcast(args[0]), self.bcast(args[1]), self.bcast(args[2]))
        if name not in _ELEMENTWISE:
            raise _Fallback(f"call of {getattr(e.op, 'name', e.op)!r} is not elementwise")
        return Call(e.dtype.with_lanes(self.lanes), e.op, tuple(self.bcast(a) for a in args))

    # -- statements ----------------------------------------------------------------
    def stmt(self, s):
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise _Fallback(f"the body holds a {type(s).__name__}")
        return method(s)

    def stmt_SeqStmt(self, s: SeqStmt):
        return replace(s, seq=tuple(self.stmt(x) for x in s.seq))

    def stmt_BufferStore(self, s: BufferStore):
        value = self.expr(s.value)
        indices = tuple(self.expr(i) for i in s.indices)
        if len(indices) != 1:
            raise _Fallback(f"store to the {len(indices)}-d buffer {s.buffer.name!r}; run FlattenBuffer first")
        (index,) = indices
        if not isinstance(index, Ramp):
            why = "does not depend on" if not _is_vec(index) else "is not a ramp of"
            raise _Fallback(f"the index of the store to {s.buffer.name!r} {why} the loop variable")
        if as_const_int(index.stride) == 0:
            raise _Fallback(f"the store to {s.buffer.name!r} writes one element from every lane")
        self.stores.setdefault(id(s.buffer.data), []).append(index)
        return BufferStore(s.buffer, self.bcast(value), indices)

    def stmt_LetStmt(self, s: LetStmt):
        value = self.expr(s.value)
        var = s.var
        if _is_vec(value):
            var = Var(s.var.name, value.dtype)
            self.lets[s.var] = var
        return LetStmt(var, value, self.stmt(s.body))

    def stmt_IfThenElse(self, s: IfThenElse):
        cond = self.expr(s.condition)
        if _is_vec(cond):
            raise _Fallback("an if condition depends on the lane")
        else_case = self.stmt(s.else_case) if s.else_case is not None else None
        return IfThenElse(cond, self.stmt(s.then_case), else_case)

    def stmt_Evaluate(self, s):
        value = self.expr(s.value)
        if _is_vec(value):
            raise _Fallback("an evaluated call depends on the lane")
        return replace(s, value=value)

    def check_hazards(self) -> None:
        for data, loads in self.loads.items():
            stores = self.stores.get(data)
            if not stores:
                continue
            first = stores[0]
            for index in stores[1:] + loads:
                if not structural_equal(index, first, map_free_vars=False):
                    raise _Fallback("a stored buffer is also accessed at another index in the loop")


def _vectorize(loop: For):
    extent = as_const_int(loop.extent)
    if extent is None:
        return None, f"extent {loop.extent!r} is not a constant"
    if extent <= 0:
        return no_op(), None
    if extent == 1:
        return substitute(loop.body, {loop.loop_var: loop.min}), None
    if extent > MAX_LANES:
        return _vectorize_in_chunks(loop, extent)
    if collect(loop.body, lambda n: isinstance(n, PrimExpr) and n.dtype.lanes > 1):
        return None, "the body already has vector expressions"
    vec = _Vectorizer(loop, extent)
    try:
        body = vec.stmt(loop.body)
        vec.check_hazards()
    except _Fallback as why:
        return None, str(why)
    return body, None


def _vectorize_in_chunks(loop: For, extent: int):
    """A loop longer than MAX_LANES: a serial loop over vector chunks of a dividing width."""
    lanes = next((w for w in (64, 32, 16, 8, 4, 2) if w <= MAX_LANES and extent % w == 0), None)
    if lanes is None:
        return None, f"extent {extent} is more than {MAX_LANES} lanes and has no power-of-two divisor"
    var = loop.loop_var
    outer, inner = Var(var.name + "_o", var.dtype), Var(var.name + "_v", var.dtype)
    index = loop.min + outer * const(lanes, var.dtype) + inner
    chunk = For(inner, const(0, var.dtype), const(lanes, var.dtype), ForKind.VECTORIZED,
                substitute(loop.body, {var: index}))
    body, why = _vectorize(chunk)
    if body is None:
        return None, why
    logger.debug("loop %s vectorized in chunks of %d lanes", var.name, lanes)
    return For(outer, const(0, var.dtype), const(extent // lanes, var.dtype), ForKind.SERIAL, body,
               None, dict(loop.annotations)), None


class _LoopVectorizer(IRMutator):
    def visit_For(self, loop: For):
        loop = self.generic_visit(loop)
        if loop.kind != ForKind.VECTORIZED:
            return loop
        body, why = _vectorize(loop)
        if body is not None:
            return body
        guarded = _vectorize_guarded(loop)
        if guarded is not None:
            return guarded
        unswitched = _unswitch(loop)
        if unswitched is not None:
            return unswitched
        logger.debug("loop %s not vectorized (kept serial): %s", loop.loop_var.name, why)
        return replace(loop, kind=ForKind.SERIAL)


def _affine_in(e, var) -> bool:
    """Whether ``e`` is affine in ``var`` (sums, differences, products by var-free terms, casts)."""
    if not collect(e, lambda n: n is var):
        return True
    if e is var:
        return True
    if isinstance(e, Add | Sub):
        return _affine_in(e.a, var) and _affine_in(e.b, var)
    if isinstance(e, Mul):
        a_has, b_has = bool(collect(e.a, lambda n: n is var)), bool(collect(e.b, lambda n: n is var))
        return not (a_has and b_has) and _affine_in(e.a, var) and _affine_in(e.b, var)
    if isinstance(e, Cast):
        return e.dtype.is_int and _affine_in(e.value, var)
    return False


def _interval_in(cond, var) -> bool:
    """Whether the lanes satisfying ``cond`` form one interval of ``var`` (a conjunction of
    affine comparisons), so that its first and last lane satisfying it implies all do."""
    from ember.ir import GE, GT, LE, LT, And

    if isinstance(cond, And):
        return _interval_in(cond.a, var) and _interval_in(cond.b, var)
    if isinstance(cond, LT | LE | GT | GE):
        return _affine_in(cond.a, var) and _affine_in(cond.b, var)
    return not collect(cond, lambda n: n is var)


def _vectorize_guarded(loop: For):
    """A loop whose body is ``if cond: S`` with ``cond`` lane-dependent (a split's tail
    predicate): ``if cond holds for the first and last lane: vector S else: the serial
    loop``, so every whole vector runs as vector code and only the ragged tail goes lane
    by lane."""
    body = loop.body
    if not isinstance(body, IfThenElse) or body.else_case is not None:
        return None
    var = loop.loop_var
    if not collect(body.condition, lambda n: n is var) or not _interval_in(body.condition, var):
        return None
    vec, _ = _vectorize(replace(loop, body=body.then_case))
    if vec is None:
        return None
    first = substitute(body.condition, {var: loop.min})
    last = substitute(body.condition, {var: loop.min + loop.extent - const(1, loop.extent.dtype)})
    from ember.arith import Analyzer
    from ember.ir import And

    guard = Analyzer().simplify(And(first, last))
    if isinstance(guard, IntImm):  # known for every lane: no run-time test
        return vec if guard.value else None
    logger.debug("loop %s vectorized with a guard (ragged tail runs serially)", var.name)
    return IfThenElse(guard, vec, replace(loop, kind=ForKind.SERIAL))


def _unswitch(loop: For):
    """A body that is one ``if`` on a loop-invariant condition (no loop variable, no load of
    a buffer the loop writes): the ``if`` goes outside and each branch becomes its own loop,
    vectorized when it can be, else a serial loop over ``<var>_s`` (as TVM)."""
    body = loop.body
    if not isinstance(body, IfThenElse) or as_const_int(loop.extent) is None:
        return None
    var = loop.loop_var
    written = {id(n.buffer.data) for n in collect(body, lambda n: isinstance(n, BufferStore))}
    cond = body.condition
    if collect(cond, lambda n: n is var or (isinstance(n, BufferLoad) and id(n.buffer.data) in written)):
        return None

    def branch(stmt):
        if stmt is None:
            return None
        out, _ = _vectorize(replace(loop, body=stmt))
        if out is not None:
            return out
        serial = Var(var.name + "_s", var.dtype)
        return For(serial, const(0, var.dtype), loop.extent, ForKind.SERIAL,
                   substitute(stmt, {var: loop.min + serial if as_const_int(loop.min) != 0 else serial}))

    logger.debug("loop %s: loop-invariant if moved outside before vectorizing", var.name)
    return IfThenElse(cond, branch(body.then_case), branch(body.else_case))


def vectorize_loop(func: PrimFunc) -> PrimFunc:
    """Turn ``func``'s VECTORIZED loops into vector code (or serial loops when unsafe)."""
    return func.with_body(_LoopVectorizer().visit(func.body))


def VectorizeLoop(enable_vectorize: bool = True) -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`vectorize_loop`; ``enable_vectorize=False`` makes every such loop serial."""
    if enable_vectorize:
        return make_pass(vectorize_loop, "tir.VectorizeLoop")

    def serialize(func: PrimFunc) -> PrimFunc:
        def post(n):
            if isinstance(n, For) and n.kind == ForKind.VECTORIZED:
                return replace(n, kind=ForKind.SERIAL)
            return None

        from ..functor import ir_transform

        return func.with_body(ir_transform(func.body, None, post, ["For"]))

    return make_pass(serialize, "tir.VectorizeLoop")
