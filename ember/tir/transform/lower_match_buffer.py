"""LowerMatchBuffer: replace each block's ``match_buffers`` by accesses of the source.

``T.match_buffer(A[i*16:i*16+16, j], (16,))`` inside a block names a view of a region.
The view is removed: loads, stores and read/write regions of the matched buffer
become those of the source buffer at ``region.min + index``, and uses of the view's
data, shape, strides and offset become the source's values.  Blocks (and their
iterators) stay; LowerOpaqueBlock does the same substitution while it removes them.
A view whose declared shape, strides or offset contradict the source region, or that
would bind one Var to two values or a function parameter to another value, is refused.
"""

from __future__ import annotations

from ember.arith import Analyzer
from ember.ir import Var, replace
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import Block
from ._common import TransformError, make_pass
from .lower_opaque_block import _inline_match_buffer, _row_major_strides

__all__ = ["lower_match_buffer", "LowerMatchBuffer"]


def _check_binding(match, params: set, analyzer: Analyzer) -> None:
    """The view's constants and already-defined Vars (function parameters) must equal the
    source's values; each of its own Vars must get one value."""
    target, region, source = match.buffer, match.source.region, match.source.buffer
    lead = len(region) - len(target.shape)
    pairs = [("shape", d, r.extent) for d, r in zip(target.shape, region[lead:])]
    pairs += [("stride", s, a) for s, a in zip(target.strides, _row_major_strides(source)[lead:])]
    if target.elem_offset is not None:
        pairs.append(("elem_offset", target.elem_offset, source.offset_of([r.min for r in region])))
    bound: dict[int, object] = {}
    for what, symbol, actual in pairs:
        if isinstance(symbol, Var) and id(symbol) not in params:
            known = bound.get(id(symbol))
            if known is not None and not analyzer.can_prove_equal(known, actual):
                raise TransformError(
                    f"LowerMatchBuffer: {symbol.name!r} of match buffer {target.name!r} would be "
                    f"bound to both {known} and {actual}")
            bound[id(symbol)] = actual
        elif not analyzer.can_prove_equal(symbol, actual):
            raise TransformError(
                f"LowerMatchBuffer: match buffer {target.name!r} declares {what} {symbol}, but the "
                f"source region {match.source.buffer.name!r} has {actual}")


class _MatchLowerer(IRMutator):
    def __init__(self, params: set):
        super().__init__()
        self.params = params
        self.analyzer = Analyzer()

    def visit_Block(self, block: Block):
        block = self.generic_visit(block)
        if not block.match_buffers:
            return block
        body, reads, writes = block.body, block.reads, block.writes
        init = block.init
        for match in block.match_buffers:
            _check_binding(match, self.params, self.analyzer)
        for match in reversed(block.match_buffers):
            # the view's accesses become the source's; its symbols become the source's values
            body = _inline_match_buffer(body, match)
            if init is not None:
                init = _inline_match_buffer(init, match)
        return replace(block, body=body, init=init, reads=reads, writes=writes, match_buffers=())


def lower_match_buffer(func: PrimFunc) -> PrimFunc:
    """``func`` without match buffers inside its blocks."""
    body = _MatchLowerer({id(p) for p in func.params}).visit(func.body)
    return func if body is func.body else func.with_body(body)


def LowerMatchBuffer() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`lower_match_buffer`."""
    return make_pass(lower_match_buffer, "tir.LowerMatchBuffer")
