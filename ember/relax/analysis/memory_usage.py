"""``estimate_memory_usage(mod)``: a text report, per Relax function, of the memory its
allocations take without memory planning (every ``alloc_tensor`` on its own) and with it
(each planned ``memory.alloc_storage`` once, plus the unplanned ``builtin.alloc_tensor``
outputs).  A module not yet lowered to explicit memory is first run through ToNonDataflow,
RemovePurityChecking, CallTIRRewrite and StaticPlanBlockMemory."""

from __future__ import annotations

from ember.ir import IRModule, Op

from .._arith import as_int
from ..expr import Call, Function, If, SeqExpr, ShapeExpr

__all__ = ["estimate_memory_usage"]

_STORAGE = "relax.memory.alloc_storage"
_PLANNED_TENSOR = "relax.memory.alloc_tensor"
_OUTPUT_TENSOR = "relax.builtin.alloc_tensor"


def _calls(expr, out: list) -> list:
    if isinstance(expr, Function):
        _calls(expr.body, out)
    elif isinstance(expr, SeqExpr):
        for block in expr.blocks:
            for b in block.bindings:
                _calls(b.value, out)
        _calls(expr.body, out)
    elif isinstance(expr, If):
        _calls(expr.true_branch, out)
        _calls(expr.false_branch, out)
    elif isinstance(expr, Call) and isinstance(expr.op, Op):
        out.append(expr)
    return out


def _const_bytes(shape_arg, dtype) -> int | None:
    if not isinstance(shape_arg, ShapeExpr):
        return None
    total = 1
    for v in shape_arg.values:
        n = as_int(v)
        if n is None:
            return None
        total *= n
    if dtype is None:
        return total
    return total * ((dtype.bits * dtype.lanes + 7) // 8)


class _Tally:
    def __init__(self):
        self.count, self.bytes, self.symbolic = 0, 0, 0

    def add(self, size: int | None) -> None:
        if size is None:
            self.symbolic += 1
        else:
            self.count += 1
            self.bytes += size


def _tally(func: Function) -> tuple[_Tally, _Tally]:
    before, after = _Tally(), _Tally()
    for call in _calls(func, []):
        name = call.op.name
        if name == _STORAGE:
            after.add(_const_bytes(call.args[0], None))
        elif name == _PLANNED_TENSOR:
            before.add(_const_bytes(call.args[2], call.args[3].value))
        elif name == _OUTPUT_TENSOR:
            size = _const_bytes(call.args[0], call.args[1].value)
            before.add(size)
            after.add(size)
    return before, after


def _has_memory_ops(mod: IRModule) -> bool:
    for func in mod.functions.values():
        if isinstance(func, Function) and any(
                c.op.name in (_STORAGE, _PLANNED_TENSOR, _OUTPUT_TENSOR) for c in _calls(func, [])):
            return True
    return False


def _plan(mod: IRModule) -> IRModule:
    from ..transform import CallTIRRewrite, RemovePurityChecking, StaticPlanBlockMemory, ToNonDataflow

    for p in (ToNonDataflow(), RemovePurityChecking(), CallTIRRewrite(), StaticPlanBlockMemory()):
        mod = p(mod)
    return mod


def _gb(n: int) -> str:
    return f"{n / 2 ** 30:.4}"


def estimate_memory_usage(mod) -> str:
    """The memory report of ``mod`` (an IRModule or a Relax Function); see the module doc."""
    if isinstance(mod, Function):
        mod = IRModule({"main": mod})
    if not isinstance(mod, IRModule):
        raise TypeError(f"estimate_memory_usage: mod must be an IRModule or relax.Function, got {type(mod).__name__}")
    if not _has_memory_ops(mod):
        mod = _plan(mod)
    lines = ["Memory usage estimation:"]
    for gv, func in mod.functions.items():
        if not isinstance(func, Function):
            continue
        before, after = _tally(func)
        if not (before.count or before.symbolic or after.count or after.symbolic):
            continue
        name = getattr(gv, "name_hint", str(gv))
        lines.append(f"- Function {name}:")
        lines.append(f" * Without memory planning, there are {before.count} constant-size memory allocation(s) "
                     f"with total size {_gb(before.bytes)} GB.")
        lines.append(f" * With memory planning, there are {after.count} constant-size memory allocation(s) "
                     f"with total size {_gb(after.bytes)} GB.")
        if before.bytes:
            lines.append(f" * Memory planning reduces constant memory size to "
                         f"{100 * after.bytes / before.bytes:.1f}%.")
        if before.symbolic or after.symbolic:
            lines.append(f" * There are {before.symbolic} memory allocation(s) of symbolic size before planning "
                         f"and {after.symbolic} after, not counted above.")
    return "\n".join(lines) + "\n"
