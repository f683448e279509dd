"""suggest_layout_transforms: propagate a PrimFunc's output layouts to its blocks and inputs.

Given index maps for the last ``len(write_buffer_transforms)`` parameters' buffers (the
outputs), the analysis walks the root's blocks from the last to the first and, for each
block whose written buffer has a layout, suggests

* a block layout (for ``Schedule.transform_block_layout``): the written indices are each a
  distinct spatial iterator; the output map replaces them, in block order, by its outputs
  (extra outputs go last, missing ones drop the leftover iterators), other iterators keep
  their places. It must be a bijection of the block's iteration domain;
* layouts for the buffers the block reads (for ``Schedule.transform_layout``): each read
  index must be affine and name one iterator (the written one it uses, else its only one),
  the written iterators in the order the output is written (a transposed read is left alone);
  the read buffer's map is the block map restricted to the outputs over those iterators,
  taken only when it is a bijection of the read buffer's shape. A read that does not fit
  (a gather, a resize) keeps its layout; Relax materialises a layout_transform there.

Every buffer is suggested once, in the first block (from the end) that fixes its layout,
so applying the suggestions block by block never transforms a buffer twice.  The result
maps each Block to ``{block: IndexMap, buffer: IndexMap, ...}``; blocks without a
suggestion are left out (nested blocks always are).
"""

from __future__ import annotations

from ember.arith import detect_iter_map
from ember.error import TVMError
from ember.ir import Add, IntImm, Mul, Range, Sub, Var, structural_equal
from ember.tir import Block, BlockRealize, BufferLoad, BufferStore, IterVarType, PrimFunc
from ember.tir.functor import collect, substitute
from ember.tir.schedule.index_map import IndexMap

__all__ = ["suggest_layout_transforms"]


def suggest_layout_transforms(func: PrimFunc, write_buffer_transforms) -> dict:
    """``{Block: {Block | Buffer: IndexMap}}`` (see the module docstring). Each transform
    is an IndexMap or a function of the output buffer's indices."""
    maps = []
    for transform in write_buffer_transforms:
        if callable(transform) and not isinstance(transform, IndexMap):
            transform = IndexMap.from_func(transform)
        assert isinstance(transform, IndexMap), (
            f"suggest_layout_transforms: expected an IndexMap or a function, got {type(transform).__name__}")
        maps.append(transform)
    params = list(func.params)
    if len(maps) > len(params):
        raise TVMError(f"Incompatible PrimFunc and write_transformations: {len(maps)} transformations "
                       f"for a function of {len(params)} parameters")
    layouts: dict = {}
    for param, imap in zip(params[len(params) - len(maps):], maps):
        buf = func.buffer_map.get(param)
        if buf is None:
            raise TVMError(f"Incompatible PrimFunc and write_transformations: parameter {param.name} is not a buffer")
        if imap.ndim != len(buf.shape):
            raise TVMError(f"Mismatch between output buffer shape and index map: buffer {buf.name} has "
                           f"{len(buf.shape)} dimensions, the index map takes {imap.ndim}")
        layouts[buf] = imap
    suggested: dict = {}
    emitted: set = set()
    for block in reversed(_root_blocks(func)):
        found = _suggest_for_block(block, layouts, emitted)
        if found:
            suggested[block] = found
    return dict(reversed(list(suggested.items())))


def _root_blocks(func: PrimFunc) -> list:
    """The blocks directly under the root block (or the body), in program order."""
    body = func.body
    if isinstance(body, BlockRealize) and not body.block.iter_vars:
        body = body.block.body
    found: list = []

    def walk(stmt):
        if isinstance(stmt, BlockRealize):
            found.append(stmt.block)
            return
        for field in ("body", "seq", "then_case", "else_case"):
            child = getattr(stmt, field, None)
            if isinstance(child, list | tuple):
                for c in child:
                    walk(c)
            elif child is not None and not isinstance(child, Block):
                walk(child)

    walk(body)
    return found


def _suggest_for_block(block: Block, layouts: dict, emitted: set) -> dict:
    if collect(block.body, lambda n: isinstance(n, BlockRealize)):
        return {}  # nested blocks: not analysed
    stores = collect(block.body, lambda n: isinstance(n, BufferStore))
    if not stores or any(s.buffer is not stores[0].buffer for s in stores):
        return {}
    out = stores[0].buffer
    imap = layouts.get(out)
    if imap is None:
        return {}
    iters = [iv.var for iv in block.iter_vars]
    spatial = {iv.var for iv in block.iter_vars if iv.iter_type == IterVarType.DataPar}
    written = list(stores[0].indices)
    if not all(isinstance(i, Var) and i in spatial for i in written) or len(set(written)) != len(written):
        return {}  # the output is not written at its iterators (a flatten, a product)
    if any(not all(structural_equal(a, b) for a, b in zip(s.indices, written)) for s in stores[1:]):
        return {}
    dtype = str(iters[0].dtype) if iters else "int32"
    imap = imap.with_index_dtype(dtype)
    mapped = imap.map_indices(written)
    positions = [k for k, v in enumerate(iters) if v in written]
    block_outputs: list = []
    for k, v in enumerate(iters):
        if k in positions:
            slot = positions.index(k)
            if slot < len(mapped):
                block_outputs.append(mapped[slot])
        else:
            block_outputs.append(v)
    block_outputs += mapped[len(positions):]
    doms = {iv.var: iv.dom for iv in block.iter_vars}
    if detect_iter_map(block_outputs, doms, check_level="bijective").errors:
        return {}
    result = {block: _as_index_map(iters, block_outputs)}
    if out not in emitted:
        result[out] = imap
        emitted.add(out)
    for buf, loads in _loads_by_buffer(block, out).items():
        if buf in layouts:
            continue
        read_map = _read_layout(loads, iters, written, block_outputs, buf)
        if read_map is not None:
            layouts[buf] = read_map
            result[buf] = read_map
            emitted.add(buf)
    return result


def _as_index_map(iters: list, outputs: list) -> IndexMap:
    fresh = [Var(v.name, v.dtype) for v in iters]
    vmap = dict(zip(iters, fresh))
    return IndexMap(tuple(fresh), tuple(substitute(e, vmap) for e in outputs))


def _loads_by_buffer(block: Block, out) -> dict:
    found: dict = {}
    for load in collect(block.body, lambda n: isinstance(n, BufferLoad)):
        if load.buffer is not out:
            found.setdefault(load.buffer, []).append(load)
    return found


def _is_affine(e) -> bool:
    if isinstance(e, Var | IntImm):
        return True
    if isinstance(e, Add | Sub):
        return _is_affine(e.a) and _is_affine(e.b)
    if isinstance(e, Mul):
        return (isinstance(e.a, IntImm) and _is_affine(e.b)) or (isinstance(e.b, IntImm) and _is_affine(e.a))
    return False


def _dim_iterators(indices, iters: list, written: list) -> list | None:
    """The iterator each read index stands for (None when one does not fit)."""
    chosen = []
    for e in indices:
        if not _is_affine(e):
            return None
        used = [v for v in collect(e, lambda n: isinstance(n, Var)) if v in iters]
        used = list(dict.fromkeys(used))
        from_output = [v for v in used if v in written]
        if len(from_output) == 1:
            chosen.append(from_output[0])
        elif not from_output and len(used) == 1:
            chosen.append(used[0])
        else:
            return None
    if len(set(chosen)) != len(chosen):
        return None
    order = [written.index(v) for v in chosen if v in written]
    return chosen if order == sorted(order) else None  # a transposed read keeps its layout


def _read_layout(loads: list, iters: list, written: list, block_outputs: list, buf) -> IndexMap | None:
    """The layout of a read buffer that follows the block map, or None."""
    chosen = _dim_iterators(loads[0].indices, iters, written)
    if chosen is None or any(_dim_iterators(ld.indices, iters, written) != chosen for ld in loads[1:]):
        return None
    dims = [Var(f"i{k}", iters[0].dtype) for k in range(len(buf.shape))]  # the block's index type
    to_dim = dict(zip(chosen, dims))
    outputs = []
    for e in block_outputs:
        used = [v for v in collect(e, lambda n: isinstance(n, Var)) if v in iters]
        if all(v in to_dim for v in used):
            outputs.append(substitute(e, to_dim))
    if not outputs:
        return None
    shape_doms = {d: Range(0, s) for d, s in zip(dims, buf.shape)}
    if detect_iter_map(outputs, shape_doms, check_level="bijective").errors:
        return None
    return IndexMap(tuple(dims), tuple(outputs))
