"""StaticPlanBlockMemory: put intermediate tensors into shared storages, reused by lifetime.

Input: a function after CallTIRRewrite, whose top-level bindings allocate tensors with
``builtin.alloc_tensor``.  Each allocation is a *token*; a token lives from its
allocation to the last binding that reads any variable aliasing it (a variable bound
to an expression that mentions the token's variable may alias it, unless the value is
a destination-passing call, which returns nothing).  Walking the bindings in order, a
token's storage is released after its last use, and a later token of the same dtype
takes the best-fitting free storage (growing it if needed).  Result:
``storage = memory.alloc_storage(size)`` at the first tensor placed in it and
``memory.alloc_tensor(storage, 0, shape, dtype)`` for each tensor.

Not planned (each logged at debug level on ``ember.relax.memory_plan`` with why):
function outputs and anything aliasing them — they keep ``builtin.alloc_tensor`` and
are allocated fresh, since they outlive the call; allocations inside ``If`` branches.
With ``concat_in_place=True`` (ember's build pipeline; not TVM's pass), a concat whose
inputs are produced only to be joined (``concat_in_place.py``) is done in place: the inputs
become views at byte offsets of the output's storage, which is taken at the first input's
allocation, and the concat call is dropped.
A symbolic size is planned with its upper bound when the function attribute
``tir_var_upper_bound = {"n": 128}`` bounds every variable in it; otherwise the
storage is sized at run time and shared only by tensors provably no larger (TVM's rule).
With ``grow_symbolic=True`` (ember's build pipeline) a tensor that no free storage provably
holds takes one anyway and the storage's run-time size becomes the ``max`` of the sizes it
holds (``T.max(b*s*4608, b*s*s*48)``), as a static storage grows: a symbolic plan then has
as many storages as the static plan of the same graph, not one per distinct size.  Which free
storage a tensor takes is chosen as in a static plan (the smallest that fits, else the
largest), comparing symbolic sizes by how they grow (their value with every variable 2**20):
at sequence 128 the symbolic BERT's storages then have its static plan's sizes.
With ``record_plans=True`` (as the build pipeline runs it) the plan of each function is
kept in the module attribute ``relax.memory_plan`` (``{name: MemoryPlan}``); ``str(plan)``
prints it.
"""

from __future__ import annotations

import dataclasses
import logging

from ember.ir import IRModule, Max, Op, PrimExpr, Var as TirVar
from ember.tir.functor import collect, post_order_visit, substitute as tir_substitute

from .._arith import as_int, int64, prove_equal, simplify
from ..backend import memory_ops
from ..backend.ir_util import collect_vars, seq_of
from ..expr import BindingBlock, Call, Function, MatchCast, SeqExpr, ShapeExpr, Var, VarBinding
from ..struct_info import PrimStructInfo, ShapeStructInfo, TupleStructInfo

__all__ = ["StaticPlanBlockMemory", "static_plan_block_memory", "MemoryPlan", "PlannedStorage"]

logger = logging.getLogger("ember.relax.memory_plan")
_ALLOC = "relax.builtin.alloc_tensor"
PLAN_ATTR = "relax.memory_plan"


@dataclasses.dataclass(frozen=True)
class PlannedStorage:
    name: str
    nbytes: int | str  # bytes, or the symbolic size as text
    dtype: str
    tensors: tuple  # (tensor name, first binding, last use) in allocation order


@dataclasses.dataclass(frozen=True)
class MemoryPlan:
    """The plan of one function: shared storages and the tensors left out (with why)."""

    function: str
    storages: tuple
    not_planned: tuple  # (tensor name, reason)

    @property
    def planned_bytes(self) -> int:
        """Bytes of the storages of static (or upper-bounded) size."""
        return sum(s.nbytes for s in self.storages if isinstance(s.nbytes, int))

    @property
    def num_tensors(self) -> int:
        return sum(len(s.tensors) for s in self.storages)

    def __str__(self) -> str:
        symbolic = sum(not isinstance(s.nbytes, int) for s in self.storages)
        extra = f" + {symbolic} of symbolic size" if symbolic else ""
        lines = [f"memory plan of {self.function}: {self.num_tensors} tensors in "
                 f"{len(self.storages)} storages, {self.planned_bytes} bytes{extra}"]
        for s in self.storages:
            lives = ", ".join(f"{t} [{a}..{b}]" for t, a, b in s.tensors)
            lines.append(f"  {s.name}: {s.nbytes} bytes {s.dtype} <- {lives}")
        for name, why in self.not_planned:
            lines.append(f"  not planned: {name} ({why})")
        return "\n".join(lines)


@dataclasses.dataclass
class _Token:
    var: Var
    index: int
    shape: tuple
    dtype: str
    nbytes: int | PrimExpr | None = None  # static size / upper bound, else the symbolic size
    last_use: int = -1
    reason: str | None = None  # why it is not planned
    storage: _Storage | None = None
    start: int = -1  # where its storage must be taken (before ``index`` for a concat's output)
    view_of: tuple | None = None  # (output token, byte offset) for an input of an in-place concat

    def __post_init__(self):
        if self.start < 0:
            self.start = self.index


@dataclasses.dataclass
class _Storage:
    name: str
    dtype: str
    nbytes: int | PrimExpr
    tokens: list


def _itemsize(dtype: str) -> int:
    from ember.runtime.dtype import DataType

    return DataType(dtype).itemsize


def _size_expr(shape: tuple, dtype: str) -> PrimExpr:
    size = int64(_itemsize(dtype))
    for d in shape:
        size = size * d
    return size


def _upper_bounds(func: Function) -> dict:
    bounds = func.attrs.get("tir_var_upper_bound") or {}
    return {(k if isinstance(k, str) else k.name): int(v) for k, v in bounds.items()}


def _planned_size(shape: tuple, dtype: str, bounds: dict) -> int | PrimExpr:
    """The size to plan with: static bytes, the bytes at the upper bounds, else the symbolic size.

    A symbolic size shares storage only with tensors of a provably equal size."""
    size = _size_expr(shape, dtype)
    value = as_int(size)
    if value is not None:
        return value
    free: dict = {}
    post_order_visit(size, lambda n: free.setdefault(n.name, n) if isinstance(n, TirVar) else None)
    if any(n not in bounds for n in free):
        return simplify(size)
    value = as_int(tir_substitute(size, {v: int64(bounds[n]) for n, v in free.items()}))
    return simplify(size) if value is None else value


def _fits(storage: _Storage, tok: _Token) -> bool:
    """Does ``tok`` fit in ``storage``: static sizes compare; symbolic ones must be provably >=
    (for a grown storage, ``max(t1, t2, ...)``: one of its terms)."""
    return any(_term_holds(t, tok.nbytes) for t in _terms(storage.nbytes))


def _term_holds(a: int | PrimExpr, b: int | PrimExpr) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return a >= b
    if isinstance(a, int) or isinstance(b, int):
        return False
    return prove_equal(a, b) or _prove_ge(a, b)


def _terms(size: int | PrimExpr) -> list:
    """The sizes a storage grown by ``_grown`` holds: the operands of its nested ``Max``."""
    if isinstance(size, Max):
        return _terms(size.a) + _terms(size.b)
    value = size if isinstance(size, int) else as_int(size)
    return [size if value is None else value]


def _grown(size: int | PrimExpr, extra: int | PrimExpr) -> int | PrimExpr:
    """A storage size that holds both: ``max`` of the terms not provably covered by another."""
    if any(_term_holds(t, extra) for t in _terms(size)):
        return size
    terms = [t for t in _terms(size) if not _term_holds(extra, t)] + [extra]
    static = [t for t in terms if isinstance(t, int)]
    terms = [t for t in terms if not isinstance(t, int)] + ([max(static)] if static else [])
    out = terms[0]
    for t in terms[1:]:
        out = Max(out, int64(t) if isinstance(t, int) else t)
    return out


def _prove_ge(a: PrimExpr, b: PrimExpr) -> bool:
    """``a >= b`` for every non-negative value of their variables (shape dims are >= 0)."""
    from ember.arith import Analyzer, ConstIntBound

    ana = Analyzer()
    free: dict = {}
    for e in (a, b):
        post_order_visit(e, lambda n: free.setdefault(id(n), n) if isinstance(n, TirVar) else None)
    try:
        for v in free.values():
            ana.update(v, ConstIntBound(0, 1 << 40))
        return ana.can_prove(a >= b)
    except Exception:  # noqa: BLE001 - "not proven" is always safe
        return False


def _is_void(sinfo) -> bool:
    return isinstance(sinfo, TupleStructInfo) and not sinfo.fields


def _may_alias(var: Var) -> bool:
    return not isinstance(var.struct_info, PrimStructInfo | ShapeStructInfo) and not _is_void(var.struct_info)


def _alloc_call(value) -> bool:
    return isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == _ALLOC


def _nested_allocs(value) -> list:
    found = []

    def walk(e):
        if isinstance(e, SeqExpr):
            for block in e.blocks:
                for b in block.bindings:
                    if _alloc_call(b.value):
                        found.append(b.var)
                    walk(b.value)
        elif hasattr(e, "true_branch"):
            walk(e.true_branch)
            walk(e.false_branch)

    walk(value)
    return found


def _analyse(func: Function, bindings: list, bounds: dict) -> tuple[list, list]:
    """Tokens (top-level allocations) with lifetimes, and nested allocations."""
    tokens: list[_Token] = []
    alias: dict = {}  # var → set of token ids
    nested: list = []
    for i, b in enumerate(bindings):
        value = b.value
        if isinstance(b, VarBinding) and _alloc_call(value) and isinstance(value.args[0], ShapeExpr):
            tok = _Token(b.var, i, value.args[0].values, str(value.args[1].value), last_use=i)
            tok.nbytes = _planned_size(tok.shape, tok.dtype, bounds)
            alias[b.var] = {len(tokens)}
            tokens.append(tok)
            continue
        nested.extend(_nested_allocs(value))
        reads = collect_vars(value)
        touched: set = set()
        for v in reads:
            for t in alias.get(v, ()):
                tokens[t].last_use = i
                touched.add(t)
        if touched and (isinstance(b, MatchCast) or not _is_void(value.struct_info_or_none())) and _may_alias(b.var):
            alias[b.var] = touched
    end = len(bindings)
    for v in collect_vars(func.body.body if isinstance(func.body, SeqExpr) else func.body):
        for t in alias.get(v, ()):
            tokens[t].last_use = end
            tokens[t].reason = "function output"
    return tokens, nested


def _assign(tokens: list, grow_symbolic: bool = False, entry_vars: frozenset = frozenset()) -> list:
    """Give each plannable token a storage (best fit among free ones of its dtype; with
    ``grow_symbolic``, else the largest free one, grown to a symbolic ``max``; symbolic sizes
    are compared by ``_rank``).  A storage is taken before later bindings define their
    variables, so it grows only by sizes over ``entry_vars`` (the variables the parameters
    define)."""
    storages: list[_Storage] = []
    free: list[_Storage] = []
    live: list[_Token] = []
    for tok in sorted(tokens, key=lambda t: t.start):
        if tok.reason is not None or tok.view_of is not None:
            continue
        for other in [t for t in live if t.last_use < tok.start]:
            live.remove(other)
            free.append(other.storage)
        same = [s for s in free if s.dtype == tok.dtype]
        fits = [s for s in same if _fits(s, tok)]
        static = isinstance(tok.nbytes, int)
        growable = [s for s in same if static and isinstance(s.nbytes, int)]
        if fits and grow_symbolic:
            storage = min(fits, key=lambda s: _rank(s.nbytes))
        elif fits:
            storage = min(fits, key=lambda s: s.nbytes if isinstance(s.nbytes, int) else 0)
        elif growable:
            storage = max(growable, key=lambda s: s.nbytes)
            storage.nbytes = tok.nbytes
        elif grow_symbolic and same and _defined_at_entry(tok.nbytes, entry_vars):
            storage = max(same, key=lambda s: _rank(s.nbytes))  # as a static plan grows the largest
            storage.nbytes = _grown(storage.nbytes, tok.nbytes)
        else:
            storage = _Storage(f"storage{len(storages)}", tok.dtype, tok.nbytes, [])
            storages.append(storage)
        if storage in free:
            free.remove(storage)
        storage.tokens.append(tok)
        tok.storage = storage
        live.append(tok)
    return storages


def _rank(size: int | PrimExpr) -> int:
    """``size`` at every variable = 2**20: orders sizes by how they grow (degree, then
    coefficient), to choose among storages as a static plan does."""
    if isinstance(size, int):
        return size
    free = {v.name: v for v in collect(size, lambda n: isinstance(n, TirVar))}
    value = as_int(simplify(tir_substitute(size, {v: int64(1 << 20) for v in free.values()})))
    return 0 if value is None else value


def _defined_at_entry(size: int | PrimExpr, entry_vars: frozenset) -> bool:
    return isinstance(size, int) or all(v in entry_vars for v in collect(size, lambda n: isinstance(n, TirVar)))


def _rewrite(bindings: list, tokens: list, storages: list, dropped: set) -> list:
    by_index = {t.index: t for t in tokens}
    moved: dict = {}  # in-place concat outputs, taken before their own binding
    for t in tokens:
        if t.start != t.index:
            moved.setdefault(t.start, []).append(t)
    storage_vars: dict = {}
    out = []

    def place(tok: _Token) -> None:
        storage, offset = (tok.storage, 0) if tok.view_of is None else (tok.view_of[0].storage, tok.view_of[1])
        svar = storage_vars.get(id(storage))
        if svar is None:
            call = memory_ops.alloc_storage(storage.nbytes, dtype=tok.dtype)
            svar = storage_vars[id(storage)] = Var(storage.name, call.struct_info)
            out.append(VarBinding(svar, call))
        tensor = memory_ops.alloc_tensor(svar, offset, ShapeExpr(tok.shape), tok.dtype)
        out.append(VarBinding(tok.var, tensor))

    for i, b in enumerate(bindings):
        for tok in moved.get(i, ()):
            place(tok)
        tok = by_index.get(i)
        if i in dropped or (tok is not None and tok.start != tok.index):
            continue
        if tok is None or tok.reason == "function output":
            out.append(b)
        else:
            place(tok)
    return out


def _concats_in_place(mod: IRModule | None, bindings: list, tokens: list) -> set:
    """Mark the inputs of in-place concats as views of their outputs; the dropped calls."""
    if mod is None:
        return set()
    from .concat_in_place import in_place_concats

    dropped = set()
    for concat in in_place_concats(mod, bindings, tokens):  # in program order
        concat.out.start = min(t.start for t, _ in concat.parts)
        for tok, offset in concat.parts:
            tok.view_of = (concat.out, offset)
        dropped.add(concat.index)
    for tok in tokens:  # an earlier concat's output joined again: its views move with it
        while tok.view_of is not None and tok.view_of[0].view_of is not None:
            whole, offset = tok.view_of
            tok.view_of = (whole.view_of[0], whole.view_of[1] + offset)
    return dropped


def _text(size: PrimExpr) -> str:
    try:
        return size.script()
    except Exception:  # noqa: BLE001 - printing is only for the plan's text
        return "symbolic"


def plan_function(name: str, func: Function, mod: IRModule | None = None,
                  grow_symbolic: bool = False) -> tuple[Function, MemoryPlan]:
    """``func`` with its intermediates planned, and the plan (see module docstring); ``mod``
    (the kernels ``func`` calls) lets concats be done in place."""
    seq = seq_of(func.body)
    bindings = [b for block in seq.blocks for b in block.bindings]
    tokens, nested = _analyse(func, bindings, _upper_bounds(func))
    dropped = _concats_in_place(mod, bindings, tokens)
    from ..analysis import definable_tir_vars_in_struct_info

    entry_vars = frozenset(v for p in func.params for v in definable_tir_vars_in_struct_info(p.struct_info))
    storages = _assign(tokens, grow_symbolic, entry_vars)
    for tok in tokens:
        if tok.view_of is not None:
            tok.storage = tok.view_of[0].storage
            tok.storage.tokens.append(tok)
    not_planned = [(t.var.name_hint, t.reason) for t in tokens if t.reason is not None]
    not_planned += [(v.name_hint, "allocated inside an If branch") for v in nested]
    for tensor, why in not_planned:
        logger.debug("%s: tensor %s not planned: %s", name, tensor, why)
    plan = MemoryPlan(name, tuple(
        PlannedStorage(s.name, s.nbytes if isinstance(s.nbytes, int) else _text(s.nbytes), s.dtype,
                       tuple((t.var.name_hint, t.index, t.last_use) for t in s.tokens))
        for s in storages), tuple(not_planned))
    if not tokens or all(t.reason == "function output" for t in tokens):
        return func, plan
    body = SeqExpr([BindingBlock(_rewrite(bindings, tokens, storages, dropped))], seq.body)
    return Function(func.params, body, func.ret_struct_info, func.is_pure, func.attrs), plan


def static_plan_block_memory(mod: IRModule, record_plans: bool = True, concat_in_place: bool = False,
                             grow_symbolic: bool = False) -> IRModule:
    """Plan every Relax function of ``mod``; with ``record_plans`` the plans go to
    ``mod.attrs['relax.memory_plan']``; ``concat_in_place``, ``grow_symbolic``: see the module docstring."""
    funcs, plans = {}, dict(mod.attrs.get(PLAN_ATTR) or {})
    for gv, func in mod.functions.items():
        if isinstance(func, Function):
            func, plans[gv.name_hint] = plan_function(gv.name_hint, func, mod if concat_in_place else None,
                                                       grow_symbolic)
        funcs[gv] = func
    out = mod.with_functions(funcs)
    if record_plans:
        out.attrs[PLAN_ATTR] = plans
    return out


def StaticPlanBlockMemory(record_plans: bool = False, concat_in_place: bool = False,  # noqa: N802 - TVM's name
                          grow_symbolic: bool = False):
    """TVM's pass; ``record_plans`` (ember's build pipeline sets it) also keeps the plans in the
    module attribute ``relax.memory_plan`` (``ex.memory_plans``), ``concat_in_place`` (set
    there too) removes the concats whose inputs can be written in place, and ``grow_symbolic``
    (set there too) lets tensors of different symbolic sizes share a storage sized by their
    ``max``.  All off by default, so the module is exactly TVM's."""
    from ember.transform import module_pass

    return module_pass(lambda mod, ctx: static_plan_block_memory(mod, record_plans, concat_in_place, grow_symbolic),
                       opt_level=0,
                       name="StaticPlanBlockMemory")
