"""``te.extern_primfunc``: a PrimFunc used as one TE operation (TVM's name).

The PrimFunc's buffers that its body reads are the operation's inputs and those it writes
are its outputs, in parameter order. A buffer both read and written is updated in place:
it stays an input, unless the function writes nothing else, in which case the last such
buffer becomes the output. The operation is an ``extern`` whose statement is the function's
body, so ``create_prim_func`` inlines that body with the buffers of the new function.
"""

from __future__ import annotations

from ember.tir.buffer import BufferLoad
from ember.tir.functor import post_order_visit
from ember.tir.stmt import BufferStore

from .operation import extern

__all__ = ["extern_primfunc"]


def _touched(func) -> tuple[list, list]:
    """The parameter buffers the body reads and those it writes, in parameter order."""
    read, written = set(), set()

    def visit(node):
        if isinstance(node, BufferLoad):
            read.add(id(node.buffer))
        elif isinstance(node, BufferStore):
            written.add(id(node.buffer))

    post_order_visit(func.body, visit)
    params = [func.buffer_map[p] for p in func.params if p in func.buffer_map]
    return [b for b in params if id(b) in read], [b for b in params if id(b) in written]


def extern_primfunc(input_tensors, primfunc, **kwargs):
    """The tensors ``primfunc`` computes from ``input_tensors`` (one per buffer it reads,
    in parameter order, in-place buffers included)."""
    ins, outs = _touched(primfunc)
    if not ins:
        raise ValueError("te.extern_primfunc: the PrimFunc reads no buffer of its parameters")
    if not outs:
        raise ValueError("te.extern_primfunc: the PrimFunc writes no buffer of its parameters")
    in_ids = {id(b) for b in ins}
    outputs = [b for b in outs if id(b) not in in_ids]
    if not outputs:  # only in-place updates: the last one is the result
        outputs = [[b for b in outs if id(b) in in_ids][-1]]
        ins = [b for b in ins if b is not outputs[0]]
    input_tensors = list(input_tensors)
    if len(input_tensors) != len(ins):
        raise ValueError(f"te.extern_primfunc: the PrimFunc has {len(ins)} inputs "
                         f"({', '.join(b.name for b in ins)}) but {len(input_tensors)} tensors were given")
    for tensor, buf in zip(input_tensors, ins):
        if len(tensor.shape) != len(buf.shape):
            raise ValueError(f"te.extern_primfunc: tensor {tensor.name!r} has {len(tensor.shape)} dimensions "
                             f"but buffer {buf.name!r} has {len(buf.shape)}")
    return extern([tuple(b.shape) for b in outputs], input_tensors, lambda i, o: primfunc.body,
                  dtype=[b.dtype for b in outputs], in_buffers=ins, out_buffers=outputs, **kwargs)
