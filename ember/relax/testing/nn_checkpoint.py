"""Checkpointing helpers of ``relax.testing.nn`` (TVM's names): mark parts of a model so the
Gradient pass recomputes their values in the backward pass instead of keeping them.

* ``checkpoint(func, *args)``: ``func`` applied to ``start_checkpoint`` of each argument, each
  result wrapped in ``end_checkpoint``; nothing is bound (use it inside ``bb.emit``).
* ``emit_checkpoint(func, *args)``: the same, bound in the current BlockBuilder (``x_scp``,
  the body, ``<result>_ecp``); returns the ``_ecp`` variable(s).
* ``emit_checkpoint_sequential(functions, segments, input)``: runs ``functions`` one after
  another in chunks of ``len(functions) // segments``; every chunk is checkpointed except the
  last (unless ``checkpoint_last``).
"""

from __future__ import annotations

from ember.relax.block_builder import BlockBuilder
from ember.relax.expr import Var
from ember.relax.op.grad import end_checkpoint, start_checkpoint

__all__ = ["checkpoint", "emit_checkpoint", "emit_checkpoint_sequential"]


def _builder() -> BlockBuilder:
    bb = BlockBuilder.current()
    if bb is None:
        raise RuntimeError("relax.testing.nn: checkpoints need an active BlockBuilder (inside `with bb.function(...)`)")
    return bb


def checkpoint(func, *args):
    """``func(*args)`` as an unbound checkpointed expression (a tuple of them for several results)."""
    out = func(*[start_checkpoint(a) for a in args])
    if isinstance(out, list | tuple):
        return type(out)(end_checkpoint(o) for o in out)
    return end_checkpoint(out)


def emit_checkpoint(func, *args):
    """``func(*args)`` bound inside a checkpointed segment; returns the segment's result variable(s)."""
    bb = _builder()
    starts = [bb.emit(start_checkpoint(a), getattr(a, "name_hint", "lv") + "_scp") for a in args]
    out = func(*starts)
    many = isinstance(out, list | tuple)
    ends = []
    for o in out if many else [out]:
        value = o if isinstance(o, Var) else bb.emit(o)
        ends.append(bb.emit(end_checkpoint(value), value.name_hint + "_ecp"))
    return type(out)(ends) if many else ends[0]


def emit_checkpoint_sequential(functions, segments: int, input, checkpoint_last: bool = False):  # noqa: A002
    """Apply ``functions`` in order to ``input``, checkpointing chunks of them."""
    functions = list(functions)
    size = max(len(functions) // max(int(segments), 1), 1)
    chunks = [functions[i:i + size] for i in range(0, len(functions), size)]

    bb, value = _builder(), input

    def run(chunk):
        def body(x):
            for f in chunk:
                x = bb.emit(f(x))
            return x
        return body

    for k, chunk in enumerate(chunks):
        if k < len(chunks) - 1 or checkpoint_last:
            value = emit_checkpoint(run(chunk), value)
        else:
            for f in chunk:
                value = bb.emit(f(value))
    return value
