"""Concatenations done in place: which concat kernels the memory planner can remove.

A kernel that joins tensors along an axis whose leading dims are all 1 (the channel axis
of NCHW or of NCHW16c at batch 1) copies each input into one contiguous byte range of its
output.  When each input is an intermediate allocated in the same function and read
nowhere after the concat, the kernels producing the inputs can write straight into those
ranges and the copy is not needed: ``in_place_concats`` lists such calls with the byte
offset of each input, and ``StaticPlanBlockMemory`` places the inputs as views of the
output's storage and drops the call.  SqueezeNet's fire modules and Inception's branches
end in such concats.  An input may itself be the output of an earlier in-place concat
(DenseNet: each layer joins the block's features so far with its new ones), so a whole
dense block ends up written into one buffer.

A kernel counts as a concat only when it is structurally ``topi.concatenate`` of its
parameters in order (attributes aside), so a concat fused with anything else is left alone.
Every concat declined is logged with why on ``ember.relax.memory_plan``.
"""

from __future__ import annotations

import dataclasses
import logging

from ember.ir import GlobalVar, IRModule, replace, structural_equal

from ..expr import Call, Var, VarBinding

__all__ = ["InPlaceConcat", "in_place_concats"]

logger = logging.getLogger("ember.relax.memory_plan")
_ALIGN = 64  # kernels may assume their buffers 64-byte aligned


@dataclasses.dataclass(frozen=True)
class InPlaceConcat:
    """The concat call at binding ``index``: output token, then (input token, byte offset)."""

    index: int
    out: object
    parts: tuple


def _static(shape) -> tuple | None:
    from .._arith import as_int

    dims = tuple(as_int(d) for d in shape)
    return None if any(d is None for d in dims) else dims


def _join_axis(inputs: list, out: tuple) -> int | None:
    """The axis the inputs are joined along, when every dim before it is 1 (else None)."""
    if any(len(s) != len(out) for s in inputs):
        return None
    axes = [a for a in range(len(out)) if any(s[a] != out[a] for s in inputs)]
    axis = axes[0] if len(axes) == 1 else (0 if not axes and len(inputs) == 1 else None)
    if axis is None or sum(s[axis] for s in inputs) != out[axis] or any(d != 1 for d in out[:axis]):
        return None
    return axis


def is_concat_kernel(func, axis: int) -> bool:
    """``func`` is ``topi.concatenate(params[:-1], axis)`` writing ``params[-1]``."""
    from ember import te, topi

    buffers = [func.buffer_map.get(p) for p in func.params]
    if any(b is None for b in buffers):
        return False
    placeholders = [te.placeholder(b.shape, b.dtype) for b in buffers[:-1]]
    expected = te.create_prim_func(placeholders + [topi.concatenate(placeholders, axis)])
    return structural_equal(replace(expected, attrs={}), replace(func, attrs={}))


def _uses(bindings: list, var: Var, start: int, stop: int) -> list:
    from ..backend.ir_util import collect_vars

    return [i for i in range(start, stop) if var in collect_vars(bindings[i].value)]


def in_place_concats(mod: IRModule, bindings: list, tokens: list) -> list:
    """The concat calls among ``bindings`` (after CallTIRRewrite) whose inputs can be views of
    the output's storage; ``tokens`` are the planner's allocations with their lifetimes."""
    by_var = {t.var: t for t in tokens}
    found, joined, outputs = [], set(), set()  # tokens already joined / made by in-place concats
    for i, b in enumerate(bindings):
        call = b.value
        if not (isinstance(b, VarBinding) and isinstance(call, Call) and isinstance(call.op, GlobalVar)):
            continue
        func = mod.functions.get(call.op)
        if func is None or type(func).__name__ != "PrimFunc" or len(call.args) < 3:
            continue
        toks = [by_var.get(a) if isinstance(a, Var) else None for a in call.args]
        if any(t is None for t in toks):
            continue
        *ins, out = toks
        shapes = [_static(t.shape) for t in toks]
        if any(s is None for s in shapes) or len({t.dtype for t in toks}) != 1:
            continue
        axis = _join_axis(shapes[:-1], shapes[-1])
        if axis is None or not is_concat_kernel(func, axis):
            continue
        name = call.op.name_hint
        why = None
        if out.reason is not None or any(t.reason is not None for t in ins):
            why = "its output or an input is a function output"
        elif len({id(t) for t in toks}) != len(toks) or any(id(t) in joined for t in toks) or id(out) in outputs:
            why = "a tensor is joined twice"
        elif any(t.last_use != i for t in ins):
            why = "an input is read after the concat"
        elif _uses(bindings, out.var, out.index + 1, i):
            why = "its output is used before the concat"
        offsets, offset = [], 0
        for t in ins:
            offsets.append(offset)
            offset += t.nbytes
        if why is None and any(o % _ALIGN for o in offsets):
            why = f"an input would start at a byte offset not a multiple of {_ALIGN}"
        if why is not None:
            logger.debug("concat %s at binding %d not done in place: %s", name, i, why)
            continue
        joined.update(id(t) for t in ins)
        outputs.add(id(out))
        found.append(InPlaceConcat(i, out, tuple(zip(ins, offsets))))
        logger.debug("concat %s at binding %d done in place: its %d inputs are views of its output",
                     name, i, len(ins))
    return found
