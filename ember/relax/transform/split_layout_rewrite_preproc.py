"""SplitLayoutRewritePreproc: move a kernel's weight-layout rewrite into its own kernel.

A tuned kernel may start with blocks annotated ``meta_schedule.layout_rewrite_preproc``
that copy a weight parameter into a new layout (an allocated buffer).  Such a kernel
``f`` is split into ``f_weight_prepack`` (weights in, rewritten weights out) and
``f_prepacked`` (the rest, taking the rewritten weights in place of the weights), and each
``call_tir`` of ``f`` becomes a call of both, so that LiftTransformParams can move the
prepack ahead of time.  Both keep ``f``'s attributes except ``layout_free_buffers``.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule, Op, replace
from ember.tir import PrimFunc
from ember.tir import Var as TirVar
from ember.tir.functor import post_order_visit
from ember.tir.renew_defs import renew_defs
from ember.tir.stmt import Block, BlockRealize, SeqStmt
from ember.transform import Pass, module_pass

from ..expr import Call, Function, Tuple, TupleGetItem, VarBinding
from ..expr_functor import ExprMutator
from ..op.call import call_tir
from ..struct_info import TensorStructInfo

__all__ = ["SplitLayoutRewritePreproc"]

_KEY = "meta_schedule.layout_rewrite_preproc"


def _preproc_block(stmt):
    found = []
    post_order_visit(stmt, lambda n: found.append(n) if isinstance(n, Block) and n.annotations.get(_KEY) else None)
    return found[0] if len(found) == 1 else None


def _without_key(stmt, block):
    from ember.tir.functor import ir_transform

    def post(n):
        if n is block or (isinstance(n, Block) and n.annotations.get(_KEY)):
            return replace(n, annotations={k: v for k, v in n.annotations.items() if k != _KEY})
        return None

    return ir_transform(stmt, None, post, ["tir.Block"])


class _Split:
    """The two kernels a PrimFunc splits into, or None when it has no preproc blocks."""

    def __init__(self, func: PrimFunc):
        self.ok = False
        realize = func.body
        if not isinstance(realize, BlockRealize):
            return
        root = realize.block
        stmts = list(root.body.seq) if isinstance(root.body, SeqStmt) else [root.body]
        params = {func.buffer_map[p]: i for i, p in enumerate(func.params) if p in func.buffer_map}
        pre, rest, pairs = [], [], []
        for s in stmts:
            block = _preproc_block(s)
            if block is None or len(block.writes) != 1 or len(block.reads) != 1:
                rest.append(s)
                continue
            src, dst = block.reads[0].buffer, block.writes[0].buffer
            if src not in params or dst not in root.alloc_buffers:
                rest.append(s)
                continue
            pre.append(_without_key(s, block))
            pairs.append((src, dst))
        if not pairs or not rest:
            return
        attrs = {k: v for k, v in (func.attrs or {}).items() if k != "layout_free_buffers"}
        # prepack: the weights in, their rewritten copies out
        buffers = [src for src, _ in pairs] + [dst for _, dst in pairs]
        handles = [TirVar(b.name, "handle") for b in buffers]
        body = _root(root, pre, [])
        self.prepack = PrimFunc(handles, body, None, dict(zip(handles, buffers)), attrs)
        # prepacked: the original parameters, each rewritten weight in place of its weight
        swap = {src: dst for src, dst in pairs}
        new_params, new_map = [], {}
        for p in func.params:
            buf = func.buffer_map.get(p)
            if buf in swap:
                h = TirVar(swap[buf].name, "handle")
                new_params.append(h)
                new_map[h] = swap[buf]
            else:
                new_params.append(p)
                if buf is not None:
                    new_map[p] = buf
        allocs = [b for b in root.alloc_buffers if b not in swap.values()]
        self.prepacked = PrimFunc(new_params, _root(root, rest, allocs), func.ret_type, new_map, attrs)
        self.weight_positions = [params[src] for src, _ in pairs]
        self.rewritten = [dst for _, dst in pairs]
        self.ok = True


def _root(root: Block, stmts: list, allocs: list) -> BlockRealize:
    body = stmts[0] if len(stmts) == 1 else SeqStmt(stmts)
    return BlockRealize((), True, replace(root, body=body, alloc_buffers=tuple(allocs)))


def _sinfo(buf) -> TensorStructInfo:
    from ember.ir import Cast, IntImm

    dims = [int(d) if isinstance(d, IntImm) else (d if str(d.dtype) == "int64" else Cast("int64", d))
            for d in buf.shape]  # Relax shapes are int64
    return TensorStructInfo(dims, str(buf.dtype))


class _Calls(ExprMutator):
    def __init__(self, mod, splits: dict, names: dict):
        super().__init__(mod)
        self.splits, self.names = splits, names

    def visit_var_binding_(self, binding: VarBinding) -> None:
        v = binding.value
        is_call = isinstance(v, Call) and isinstance(v.op, Op) and v.op.name == "relax.call_tir"
        split = self.splits.get(v.args[0].name_hint) if is_call and isinstance(v.args[0], GlobalVar) else None
        if split is None or not isinstance(v.args[1], Tuple):
            super().visit_var_binding_(binding)
            return
        args = [self.visit_expr(a) for a in v.args[1].fields]
        prepack_gv, prepacked_gv = self.names[v.args[0].name_hint]
        outs = [_sinfo(b) for b in split.rewritten]
        packed = self.builder_.emit(call_tir(prepack_gv, Tuple([args[i] for i in split.weight_positions]),
                                             outs if len(outs) > 1 else outs[0]))
        rewritten = [packed] if len(outs) == 1 else [TupleGetItem(packed, k) for k in range(len(outs))]
        new_args = list(args)
        for k, i in enumerate(split.weight_positions):
            new_args[i] = rewritten[k]
        sinfo = v.sinfo_args[0] if len(v.sinfo_args) == 1 else list(v.sinfo_args)
        rest = self.builder_.emit(call_tir(prepacked_gv, Tuple(new_args), sinfo, *v.args[2:]))
        var = self.visit_var_def(binding.var)
        self.builder_.emit_normalized(VarBinding(var, rest))


def _split(mod: IRModule, ctx) -> IRModule:
    splits, names = {}, {}
    for gv, func in mod.functions.items():
        if isinstance(func, PrimFunc):
            s = _Split(func)
            if s.ok:
                splits[gv.name_hint] = s
                names[gv.name_hint] = (GlobalVar(gv.name_hint + "_weight_prepack"), GlobalVar(gv.name_hint + "_prepacked"))
    if not splits:
        return mod
    out = {}
    for gv, func in mod.functions.items():
        if gv.name_hint in splits:
            a, b = names[gv.name_hint]
            # each kernel gets its own variables and buffers (the two shared the original's)
            out[a], out[b] = renew_defs(splits[gv.name_hint].prepack), renew_defs(splits[gv.name_hint].prepacked)
            continue
        out[gv] = func
    new_mod = IRModule(out, dict(mod.attrs or {}), getattr(mod, "global_infos", None))
    calls = _Calls(new_mod, splits, names)
    return new_mod.with_functions({gv: (calls.visit_expr(f) if isinstance(f, Function) else f)
                                   for gv, f in new_mod.functions.items()})


def SplitLayoutRewritePreproc() -> Pass:  # noqa: N802 - TVM's name
    return module_pass(_split, opt_level=0, name="SplitLayoutRewritePreproc")
