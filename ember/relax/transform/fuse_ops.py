"""FuseOps: group ``call_tir`` bindings of each dataflow block into ``Primitive`` functions.

Each ``call_tir`` of a PrimFunc with an ``op_pattern`` (AnnotateTIROpPattern) and a single
tensor result is a node.  Walking the block in order, a producer's group is merged into
its consumer's group when all of these hold (each refusal is logged at debug level on
``ember.relax.fuse`` as "not fused: …"):

- the producer is a dataflow variable and every use of it is already inside the consumer's
  group (so only a group's last binding is visible outside it — no dataflow cycle can
  form between groups — and diamonds close once their join is reached);
- the patterns allow it: elementwise/broadcast producers fuse into elementwise, injective
  and reduction consumers; injective producers into injective and reduction consumers; an
  out-elementwise-fusable group (matmul, conv, pooling, softmax) takes elementwise/broadcast
  consumers (bias add, relu …); a reduction group takes no consumer; opaque never fuses;
- the merged group holds at most one reduction or out-elementwise-fusable op, and a group
  around an out-elementwise-fusable op holds nothing but it and elementwise/broadcast ops
  after it.

The last two follow TVM's graph partitioner: an edge into a convolution or matmul has that
op's pattern, so nothing is fused *into* one (no prologue: a conv reads each input element
once per output-channel block and per tap, and would recompute a fused producer each
time — DenseNet's BN + ReLU before every 1×1 conv), and an out-elementwise-fusable op fuses
with its consumers only while every op on the way is elementwise or broadcast (no window
or layout op in its epilogue: Inception's LRN after conv + ReLU stays its own kernel instead
of being recomputed in the conv's write-back).

A group of two or more bindings becomes a private Relax function with the attribute
``Primitive: True`` whose parameters are the group's outside inputs (variables and
constants) and whose body is one dataflow block; the group's last binding becomes a
call of it.  FuseTIR then turns each such function into one PrimFunc.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ember.ir import GlobalVar, IRModule, Op
from ember.tir import PrimFunc
from ember.transform import Pass, module_pass

from ..block_builder import BlockBuilder
from ..expr import (
    Call, Constant, DataflowBlock, DataflowVar, Expr, Function, SeqExpr, Tuple, Var, VarBinding,
)
from ..expr_functor import ExprVisitor
from ..struct_info import TensorStructInfo
from .annotate_tir_op_pattern import OpPatternKind as K

__all__ = ["FuseOps", "fuse_block_groups"]

_log = logging.getLogger("ember.relax.fuse")
_ANCHORS = (K.kCommReduce, K.kOutEWiseFusable)


@dataclass
class _Node:
    index: int
    binding: VarBinding
    kind: K
    prim_name: str
    inputs: tuple  # the call_tir's argument exprs


@dataclass
class _Group:
    members: list = field(default_factory=list)  # _Node, in binding order
    kind: K = K.kElemWise
    anchors: int = 0


def _as_node(index: int, binding, mod: IRModule) -> _Node | None:
    value = binding.value if isinstance(binding, VarBinding) else None
    if not (isinstance(value, Call) and isinstance(value.op, Op) and value.op.name == "relax.call_tir"):
        return None
    gv, args = value.args[0], value.args[1] if len(value.args) > 1 else None
    if len(value.args) != 2 or not isinstance(gv, GlobalVar) or not isinstance(args, Tuple):
        return None  # symbolic tir_vars: kept as its own kernel
    func = mod.functions.get(gv)
    if not isinstance(func, PrimFunc) or "op_pattern" not in func.attrs:
        return None
    if not isinstance(binding.var.struct_info, TensorStructInfo):
        return None  # several outputs
    return _Node(index, binding, K(int(func.attrs["op_pattern"])), gv.name_hint, tuple(args.fields))


class _UseCounter(ExprVisitor):
    """For each variable: the indices of the bindings that use it."""

    def __init__(self):
        self.users: dict[int, set] = {}
        self.current = -1

    def visit_var_(self, op: Var) -> None:
        self.users.setdefault(id(op), set()).add(self.current)

    visit_dataflow_var_ = visit_var_


def _users(block: DataflowBlock) -> dict[int, set]:
    """Uses of the block's variables by binding index (dataflow variables, the only ones
    fused as producers, cannot be used after the block)."""
    counter = _UseCounter()
    for i, b in enumerate(block.bindings):
        counter.current = i
        counter.visit_expr(b.value)
    return counter.users


def _pattern_refusal(producer: _Group, consumer: _Node) -> str | None:
    pk, ck = producer.kind, consumer.kind
    if pk == K.kOpaque or ck == K.kOpaque:
        return "opaque op"
    if pk in _ANCHORS and ck in _ANCHORS:
        return ("reduction feeds reduction" if pk == ck == K.kCommReduce
                else f"{pk.name[1:]} feeds {ck.name[1:]}")
    if pk == K.kCommReduce:
        return "a reduction takes no consumers"
    if pk == K.kOutEWiseFusable:
        return None if ck <= K.kBroadcast else f"out-elementwise-fusable op feeds {ck.name[1:]}"
    if ck == K.kOutEWiseFusable:
        return f"{pk.name[1:]} producer of an out-elementwise-fusable op"
    return None


def _mixed_anchor_group(members: list) -> str | None:
    """Why ``members`` may not form one group around an out-elementwise-fusable op: every other
    member must be elementwise or broadcast (TVM's path condition for such an op's fusion)."""
    if not any(m.kind == K.kOutEWiseFusable for m in members):
        return None
    worst = max((m for m in members if m.kind != K.kOutEWiseFusable), key=lambda m: m.kind, default=None)
    if worst is None or worst.kind <= K.kBroadcast:
        return None
    return f"{worst.kind.name[1:]} {worst.prim_name} in an out-elementwise-fusable group"


def _refusal(p: _Node, theirs: _Group, mine: _Group, users: set) -> str | None:
    """Why the group ``theirs`` (rooted at ``p``) may not join ``mine``, or None."""
    var = p.binding.var
    if not isinstance(var, DataflowVar):
        return f"{var.name_hint} is an output of the dataflow block"
    inside = {m.index for m in mine.members}
    if not users <= inside:
        return f"{var.name_hint} has {len(users - inside)} other uses"
    for m in mine.members:
        if any(arg is var for arg in m.inputs):
            reason = _pattern_refusal(theirs, m)
            if reason is not None:
                return reason
    if theirs.anchors + mine.anchors > 1:
        return "reduction feeds reduction" if theirs.kind == K.kCommReduce else "two anchor ops in one group"
    return _mixed_anchor_group(theirs.members + mine.members)


def fuse_block_groups(block: DataflowBlock, mod: IRModule) -> list[list]:
    """The groups (lists of bindings, in order) of ``block`` with two or more members.

    Bindings are visited in order; each starts a group that repeatedly absorbs the groups
    of its producers whose every use is already inside it (so diamonds such as
    ``e = exp(x); add(neg(e), sqrt(e))`` close into one group once ``add`` is reached).
    """
    nodes = {id(b.var): n for i, b in enumerate(block.bindings) if (n := _as_node(i, b, mod))}
    if len(nodes) < 2:
        return []
    users = _users(block)
    group_of: dict[int, _Group] = {}
    logged: set = set()
    for node in sorted(nodes.values(), key=lambda n: n.index):
        mine = _Group([node], node.kind, int(node.kind in _ANCHORS))
        group_of[id(node.binding.var)] = mine
        changed = True
        while changed:
            changed = False
            for producer in _producers(mine, nodes, group_of):
                theirs = group_of[id(producer.binding.var)]
                reason = _refusal(producer, theirs, mine, users.get(id(producer.binding.var), set()))
                if reason is not None:
                    if (id(producer), reason) not in logged:
                        logged.add((id(producer), reason))
                        _log.debug("not fused: %s → %s: %s", producer.prim_name, node.prim_name, reason)
                    continue
                mine.members = sorted(theirs.members + mine.members, key=lambda n: n.index)
                mine.kind, mine.anchors = max(mine.kind, theirs.kind), mine.anchors + theirs.anchors
                for m in theirs.members:
                    group_of[id(m.binding.var)] = mine
                changed = True
                break
    groups = {id(g): g for g in group_of.values() if len(g.members) > 1}
    return [[m.binding for m in g.members] for g in sorted(groups.values(), key=lambda g: g.members[0].index)]


def _producers(group: _Group, nodes: dict, group_of: dict) -> list[_Node]:
    """Nodes outside ``group`` whose values its members read (latest first)."""
    found: dict[int, _Node] = {}
    for m in group.members:
        for arg in m.inputs:
            p = nodes.get(id(arg))
            if p is not None and group_of[id(arg)] is not group:
                found[id(arg)] = p
    return sorted(found.values(), key=lambda n: -n.index)


def _group_inputs(bindings: list) -> list[Expr]:
    defined = {id(b.var) for b in bindings}
    inputs: list[Expr] = []
    for b in bindings:
        for arg in b.value.args[1].fields:
            if isinstance(arg, Var | Constant) and id(arg) not in defined and all(arg is not x for x in inputs):
                inputs.append(arg)
    return inputs


def _shape_vars(sinfo) -> dict[int, object]:
    from ember.ir import Var as TirVar
    from ember.tir.functor import post_order_visit

    from ..struct_info import shape_values

    found: dict[int, object] = {}
    for d in shape_values(sinfo) or ():
        post_order_visit(d, lambda n: found.setdefault(id(n), n) if isinstance(n, TirVar) else None)
    return found


def _symbols_defined(group: list, inputs: list) -> bool:
    """Every symbolic dim of the group's values is fixed by its inputs' shapes (else the
    Primitive function could not bind it)."""
    known: dict[int, object] = {}
    for x in inputs:
        known.update(_shape_vars(x.struct_info))
    for b in group:
        missing = [v.name for vid, v in _shape_vars(b.var.struct_info).items() if vid not in known]
        if missing:
            _log.debug("not fused: group %s: symbolic %s not defined by its inputs",
                       "_".join(x.value.args[0].name_hint for x in group), ", ".join(missing))
            return False
    return True


def _make_primitive(bindings: list, inputs: list, name: str) -> Function:
    """The Primitive function computing the group ``bindings`` from ``inputs``."""
    params = [Var(getattr(x, "name_hint", f"p{i}") if isinstance(x, Var) else f"const{i}", x.struct_info)
              for i, x in enumerate(inputs)]
    remap = {id(x): p for x, p in zip(inputs, params)}
    bb = BlockBuilder()
    with bb.function(name, params, attrs={"Primitive": 1}, private=True):  # Integer(1), as TVM
        with bb.dataflow():
            for b in bindings[:-1] + [bindings[-1]]:
                call = b.value
                args = Tuple([remap.get(id(a), a) for a in call.args[1].fields])
                new = Call(call.op, [call.args[0], args], call.attrs, call.sinfo_args)
                if b is bindings[-1]:
                    out = bb.emit_output(new, b.var.name_hint)
                else:
                    remap[id(b.var)] = bb.emit(new, b.var.name_hint)
        bb.emit_func_output(out)
    return bb.get()[name]


def _unique_name(mod: IRModule, base: str, taken: set) -> str:
    name, i = base, 0
    while name in mod or name in taken:
        i += 1
        name = f"{base}{i}"
    taken.add(name)
    return name


def _fuse_function(func: Function, mod: IRModule, new_funcs: dict) -> Function:
    body = func.body
    if not isinstance(body, SeqExpr) or func.attrs.get("Primitive"):
        return func
    blocks, changed = [], False
    for block in body.blocks:
        groups = fuse_block_groups(block, mod) if isinstance(block, DataflowBlock) else []
        groups = [g for g in groups if _symbols_defined(g, _group_inputs(g))]
        if not groups:
            blocks.append(block)
            continue
        changed = True
        replace_at: dict[int, VarBinding] = {}
        drop: set[int] = set()
        for group in groups:
            inputs = _group_inputs(group)
            prim_names = [b.value.args[0].name_hint for b in group]
            name = _unique_name(mod, "fused_" + "_".join(prim_names), {gv.name_hint for gv in new_funcs})
            gv = GlobalVar(name)
            new_funcs[gv] = _make_primitive(group, inputs, name)
            call = Call(gv, list(inputs))
            call._set_struct_info(group[-1].var.struct_info)
            replace_at[id(group[-1])] = VarBinding(group[-1].var, call)
            drop.update(id(b) for b in group[:-1])
        blocks.append(DataflowBlock([replace_at.get(id(b), b) for b in block.bindings if id(b) not in drop]))
    if not changed:
        return func
    return Function(func.params, SeqExpr(blocks, body.body), func.ret_struct_info, func.is_pure, func.attrs)


def FuseOps(fuse_opt_level: int = -1) -> Pass:  # noqa: N802 - TVM's name
    """TVM's ``relax.transform.FuseOps`` (see module docstring); ``fuse_opt_level=0`` fuses nothing."""

    def run(mod: IRModule, ctx) -> IRModule:
        level = fuse_opt_level if fuse_opt_level >= 0 else getattr(ctx, "opt_level", 2)
        if level < 1:
            return mod
        new_funcs: dict[GlobalVar, Function] = {}
        updated = {gv: _fuse_function(f, mod, new_funcs) if isinstance(f, Function) else f
                   for gv, f in mod.functions.items()}
        if not new_funcs:
            return mod
        out = mod.with_functions(updated)
        for gv, f in new_funcs.items():
            out[gv] = f
        return out

    return module_pass(run, opt_level=0, name="FuseOps")
