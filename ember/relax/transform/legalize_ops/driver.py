"""LegalizeOps: rewrite every high-level Relax op into a ``call_tir`` of a PrimFunc.

The legaliser of an op is looked up in ``customize_legalize_map`` first, then in the op's
``FLegalize`` attribute (``register_legalize``), then in the family tables (``LEGALIZE_TABLE``).  Before
rewriting anything the pass lists every op of the module that has no legaliser and
raises once with all of them.  Calls whose tensor arguments have unknown shapes are
left as they are (with a warning), since no kernel can be built for them yet.
"""

from __future__ import annotations

import logging
from collections import Counter

from ember.ir import IRModule, Op
from ember.transform import Pass, module_pass

from ...expr import Call, Function
from ...expr_functor import ExprMutator, ExprVisitor
from ...struct_info import TensorStructInfo, TupleStructInfo
from .common import Legalizer

__all__ = ["LegalizeOps", "KEEP_OPS"]

_log = logging.getLogger("ember.relax.legalize")

# ops that are already what the VM lowering consumes (or are run by the VM itself)
KEEP_OPS = frozenset({
    "relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed", "relax.call_pure_packed",
    "relax.call_builtin_with_ctx", "relax.builtin.alloc_tensor",
    "relax.memory.alloc_storage", "relax.memory.alloc_tensor", "relax.memory.kill_storage",
    "relax.memory.kill_tensor", "relax.shape_of", "relax.null_value", "relax.print",
    "relax.assert_op", "relax.make_closure", "relax.invoke_closure", "relax.invoke_pure_closure",
})


class _OpCounter(ExprVisitor):
    def __init__(self):
        self.ops: Counter = Counter()

    def visit_call_(self, op: Call) -> None:
        if isinstance(op.op, Op):
            self.ops[op.op.name] += 1
        super().visit_call_(op)


def _missing_report(missing: Counter) -> str:
    parts = [f"{name} ({n} call{'s' if n != 1 else ''})" for name, n in sorted(missing.items())]
    return "LegalizeOps: no legalization for ops: " + ", ".join(parts)


def _shapes_known(call: Call) -> bool:
    def known(sinfo) -> bool:
        if isinstance(sinfo, TensorStructInfo):
            return sinfo.shape is not None and sinfo.dtype is not None
        if isinstance(sinfo, TupleStructInfo):
            return all(known(f) for f in sinfo.fields)
        return True

    sinfo = call.struct_info_or_none()
    operands = [getattr(a, "struct_info_or_none", lambda: None)() for a in call.args]  # a GlobalVar has none
    return sinfo is not None and known(sinfo) and all(known(o) for o in operands)


def _packed_legalizer(func_name: str | None) -> Legalizer | None:
    """For an op with the attribute ``FCallPacked`` (a data-dependent result: unique, nonzero):
    a ``call_pure_packed`` of that run-time function, whatever the shapes (as TVM)."""
    if func_name is None:
        return None
    from ...op.call import call_pure_packed

    return lambda bb, call: call_pure_packed(func_name, *call.args, sinfo_args=call.struct_info)


class _Legalizer(ExprMutator):
    def __init__(self, mod: IRModule, lookup, enable_warning: bool):
        super().__init__(mod)
        self._lookup = lookup
        self._warn = enable_warning

    def visit_call_(self, op: Call):
        call = self.visit_expr_post_order(op)
        if not isinstance(call.op, Op) or call.op.name in KEEP_OPS:
            return call
        fn = self._lookup(call.op.name)
        if fn is None:
            return call
        if not _shapes_known(call) and call.op.get_attr("FCallPacked") is None:
            (_log.warning if self._warn else _log.debug)(
                "LegalizeOps: %s left as is: its arguments or result have unknown shape or dtype",
                call.op.name)
            return call
        out = fn(self.builder_, call)
        if isinstance(out, Call) and out is not call and isinstance(out.op, Op) and out.op.name not in KEEP_OPS:
            return self.visit_expr(out)  # the legaliser built other high-level ops: legalize those too
        return out


def legalize_module(mod: IRModule, table: dict[str, Legalizer], customize=None,
                    enable_warning: bool = True) -> IRModule:
    """The module with every op legalised (see module docstring)."""
    custom = dict(customize or {})

    def lookup(name: str):
        return (custom.get(name) or Op.get(name).get_attr("FLegalize") or table.get(name)
                or _packed_legalizer(Op.get(name).get_attr("FCallPacked")))

    counter = _OpCounter()
    funcs = [(gv, f) for gv, f in mod.functions.items() if isinstance(f, Function)]
    for _, f in funcs:
        counter.visit_expr(f)
    missing = Counter({name: n for name, n in counter.ops.items()
                       if name not in KEEP_OPS and lookup(name) is None})
    if missing:
        raise ValueError(_missing_report(missing))
    if not counter.ops.keys() - KEEP_OPS:
        return mod
    pending = counter.ops
    for _ in range(8):  # a legaliser may emit other high-level ops (bb.emit(R.matmul(...))): again
        mutator = _Legalizer(mod, lookup, enable_warning)
        new_funcs = {gv: mutator.visit_expr(f) for gv, f in funcs}
        out = mutator.builder_.get()
        for gv, f in new_funcs.items():
            out[gv.name_hint] = f
        left = _OpCounter()
        for f in new_funcs.values():
            left.visit_expr(f)
        remaining = sum(n for name, n in left.ops.items() if name not in KEEP_OPS and lookup(name) is not None)
        if remaining == 0 or left.ops == pending:  # done, or nothing more can be legalized
            return out
        mod, pending = out, left.ops
        funcs = [(gv, f) for gv, f in mod.functions.items() if isinstance(f, Function)]
    return out


def LegalizeOps(customize_legalize_map: dict | None = None, enable_warning: bool = True) -> Pass:  # noqa: N802
    """TVM's ``relax.transform.LegalizeOps``: high-level ops → ``call_tir`` of topi kernels."""
    from . import LEGALIZE_TABLE

    def run(mod: IRModule, ctx) -> IRModule:
        return legalize_module(mod, LEGALIZE_TABLE, customize_legalize_map, enable_warning)

    return module_pass(run, opt_level=0, name="LegalizeOps")
