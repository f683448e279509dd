"""ONNX sequences and optionals as Relax tuples.

A sequence is a Relax ``Tuple`` of tensors, so its length must be known at import:
positions (SequenceAt/Insert/Erase) and split sizes must be constants, and a sequence
whose length changes inside a Loop cannot be expressed (the loop-carried value would
change type).  An optional holding a value *is* that value; an empty optional is
``relax.null_value()`` (ObjectStructInfo), so OptionalHasElement folds to a constant.
"""

from __future__ import annotations

import numpy as np

from ember.relax import op as R

from ...expr import Tuple, TupleGetItem, const
from ...struct_info import ObjectStructInfo, TupleStructInfo
from .common import ONNXImportError, int_list, norm_axis, shape_of
from .registry import converter


def _fields(ctx, seq) -> list:
    """The tensors of a sequence value."""
    if isinstance(seq, Tuple):
        return list(seq.fields)
    sinfo = seq.struct_info
    if not isinstance(sinfo, TupleStructInfo):
        raise ONNXImportError(f"expected a sequence (a tuple), got {type(sinfo).__name__}")
    return [ctx.emit(TupleGetItem(seq, i)) for i in range(len(sinfo.fields))]


def _position(ctx, node, pos, length: int, default: int, inserting: bool = False) -> int:
    if pos is None:
        return default
    value = ctx.const_value(pos)
    if value is None:
        raise ONNXImportError(f"{node.op_type} {node.name!r}: the position must be known at import")
    p = int(np.asarray(value).reshape(-1)[0])
    limit = length + 1 if inserting else length
    if not -length <= p < limit:
        raise ONNXImportError(f"{node.op_type} {node.name!r}: position {p} is out of range for a sequence "
                              f"of length {length}")
    return p + length if p < 0 else p


@converter("SequenceConstruct", since=11)
def sequence_construct(ctx, node, inputs, attrs):
    return Tuple(list(inputs))


@converter("SequenceEmpty", since=11)
def sequence_empty(ctx, node, inputs, attrs):
    return Tuple([])


@converter("SequenceAt", since=11)
def sequence_at(ctx, node, inputs, attrs):
    items = _fields(ctx, inputs[0])
    return items[_position(ctx, node, inputs[1], len(items), 0)]


@converter("SequenceInsert", since=11)
def sequence_insert(ctx, node, inputs, attrs):
    items = _fields(ctx, inputs[0])
    pos = _position(ctx, node, inputs[2] if len(inputs) > 2 else None, len(items), len(items), inserting=True)
    return Tuple(items[:pos] + [inputs[1]] + items[pos:])


@converter("SequenceErase", since=11)
def sequence_erase(ctx, node, inputs, attrs):
    items = _fields(ctx, inputs[0])
    if not items:
        raise ONNXImportError(f"SequenceErase {node.name!r}: the sequence is empty")
    pos = _position(ctx, node, inputs[1] if len(inputs) > 1 else None, len(items), len(items) - 1)
    return Tuple(items[:pos] + items[pos + 1:])


@converter("SequenceLength", since=11)
def sequence_length(ctx, node, inputs, attrs):
    return const(np.array(len(_fields(ctx, inputs[0])), "int64"))


@converter("ConcatFromSequence", since=11)
def concat_from_sequence(ctx, node, inputs, attrs):
    items = _fields(ctx, inputs[0])
    if not items:
        raise ONNXImportError(f"ConcatFromSequence {node.name!r}: the sequence is empty")
    rank = items[0].struct_info.ndim
    if attrs.get("new_axis", 0):
        axis = norm_axis(int(attrs["axis"]), rank + 1)
        items = [ctx.emit(R.expand_dims(x, axis)) for x in items]
    else:
        axis = norm_axis(int(attrs["axis"]), rank)
    return R.concat(items, axis=axis)


@converter("SplitToSequence", since=11)
def split_to_sequence(ctx, node, inputs, attrs):
    x = inputs[0]
    split = inputs[1] if len(inputs) > 1 else None
    rank = x.struct_info.ndim
    axis = norm_axis(int(attrs.get("axis", 0)), rank)
    dim = shape_of(x)[axis]
    if not isinstance(dim, int):
        raise ONNXImportError(f"SplitToSequence {node.name!r}: the split axis must have a static length")
    if split is None:
        pieces = [ctx.emit(R.strided_slice(x, [axis], [i], [i + 1])) for i in range(dim)]
        if not attrs.get("keepdims", 1):
            pieces = [ctx.emit(R.squeeze(p, [axis])) for p in pieces]
        return Tuple(pieces)
    value = ctx.const_value(split)
    if value is None:
        raise ONNXImportError(f"SplitToSequence {node.name!r}: split sizes must be known at import")
    value = np.asarray(value)
    if value.ndim == 0:
        size = int(value)
        sizes = [size] * (dim // size) + ([dim % size] if dim % size else [])
    else:
        sizes = int_list(value)
    if sum(sizes) != dim:
        raise ONNXImportError(f"SplitToSequence {node.name!r}: split sizes {sizes} do not add up to {dim}")
    pieces, start = [], 0
    for s in sizes:
        pieces.append(ctx.emit(R.strided_slice(x, [axis], [start], [start + s])))
        start += s
    return Tuple(pieces)


@converter("SequenceMap", since=17)
def sequence_map(ctx, node, inputs, attrs):
    body = attrs["body"]
    seqs = [_fields(ctx, x) if isinstance(x.struct_info, TupleStructInfo) else None for x in inputs]
    length = len(seqs[0])
    outs = [[] for _ in body.output]
    for i in range(length):
        bound = {vi.name: (s[i] if s is not None else x) for vi, s, x in zip(body.input, seqs, inputs)}
        for j, y in enumerate(ctx.convert_subgraph(body, bound)):
            outs[j].append(y)
    return [Tuple(o) for o in outs]


# -- optionals ----------------------------------------------------------------------------

def _is_empty(x) -> bool:
    return x is None or isinstance(x.struct_info, ObjectStructInfo)


@converter("Optional", since=15)
def optional(ctx, node, inputs, attrs):
    x = inputs[0] if inputs else None
    return R.null_value() if x is None else x


@converter("OptionalHasElement", since=15)
def optional_has_element(ctx, node, inputs, attrs):
    x = inputs[0] if inputs else None
    return const(np.array(not _is_empty(x)))


@converter("OptionalGetElement", since=15)
def optional_get_element(ctx, node, inputs, attrs):
    if _is_empty(inputs[0]):
        raise ONNXImportError(f"OptionalGetElement {node.name!r}: the optional is empty")
    return inputs[0]
