"""The statement-level words of TVMScript: blocks, loops, buffers, attributes.

Buffer builders (``T.Buffer``, ``T.alloc_buffer``, ``T.match_buffer``,
``T.decl_buffer``, ``T.allocate``) return real IR objects.  The other words
(``T.block``, ``T.grid``, ``T.reads`` …) only mean something inside a parsed
function: they are signatures the parser binds arguments against and dispatches
on by identity; called directly they raise a clear error.
"""

from __future__ import annotations

import functools
import inspect

from ember.ir import PrimExpr, as_expr, replace
from ember.ir.expr import Var
from ember.tir.buffer import Buffer as _Buffer
from ember.tir.buffer import BufferRegion, decl_buffer as _decl_buffer

__all__ = [
    "Buffer", "alloc_buffer", "match_buffer", "decl_buffer", "allocate", "block", "init",
    "where", "reads", "writes", "block_attr", "func_attr", "grid", "serial", "parallel",
    "vectorized", "unroll", "thread_binding", "axis", "attr", "LetStmt", "Assert", "evaluate",
    "launch_thread", "env_thread", "sblock",
    "rename_buffer", "PARSER_ONLY",
]

PARSER_ONLY: set = set()


def _parser_only(fn, qualified: str | None = None):
    """Keep ``fn``'s signature for the parser; calling it outside a script is an error."""
    name = qualified or fn.__name__

    @functools.wraps(fn)
    def stub(*args, **kwargs):
        raise RuntimeError(f"T.{name} can only be used inside a @T.prim_func function body")

    stub.__signature__ = inspect.signature(fn)
    stub.script_name = name
    PARSER_ONLY.add(stub)
    return stub


def _shape(shape) -> tuple:
    if isinstance(shape, int | PrimExpr):
        return (as_expr(shape),)
    return tuple(as_expr(s) for s in shape)


def _make(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
          axis_separators, name) -> _Buffer:
    if strides is not None:  # strides=("A_s0",): a stride variable of that name, as TVM makes
        strides = [Var(s, "int32") if isinstance(s, str) else s for s in strides]
    shape = _shape(shape)
    if offset_factor is None:  # not given: offset 0 (or elem_offset), factor 1 (decl_buffer's 0)
        offset_factor = 0
    elif elem_offset is None and offset_factor:
        # as TVM: a buffer declared with an offset factor but no offset has a variable offset
        # (e.g. a matched region's start), a multiple of the factor
        elem_offset = Var(f"{name}_elem_offset", shape[0].dtype if shape else "int32")
    return _decl_buffer(shape, dtype, name, data, strides, elem_offset, scope,
                        align, offset_factor, axis_separators)


def rename_buffer(buf: _Buffer, name: str) -> _Buffer:
    """``buf`` called ``name``; a data var it owns (same name) is renamed with it."""
    if buf.name == name:
        return buf
    data = buf.data
    if data.name == buf.name:
        data = Var(name, data.dtype, data.type_annotation)
    offset = buf.elem_offset
    if isinstance(offset, Var) and offset.name == f"{buf.name}_elem_offset":
        offset = Var(f"{name}_elem_offset", offset.dtype)
    return replace(buf, name=name, data=data, elem_offset=offset)


class _BufferType:
    """``T.Buffer((128, 128), "float32")`` and ``T.Buffer[(128, 128), "float32"]``."""

    def __call__(self, shape, dtype="float32", data=None, strides=None, elem_offset=None,
                 scope="global", align=64, offset_factor=None, buffer_type="",
                 axis_separators=None, *, name="buffer") -> _Buffer:
        return _make(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                     axis_separators, name)

    def __getitem__(self, key) -> _Buffer:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str):
            return self(key[0], key[1])
        return self(key)

    def __repr__(self) -> str:
        return "T.Buffer"


Buffer = _BufferType()


def alloc_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None,
                 scope="global", align=64, offset_factor=None, buffer_type="default",
                 axis_separators=None, *, name="buffer") -> _Buffer:
    """A buffer allocated by the enclosing block (the root block at function level)."""
    return _make(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                 axis_separators, name)


def match_buffer(param, shape=None, dtype="float32", data=None, strides=None, elem_offset=None,
                 scope="global", align=64, offset_factor=None, buffer_type="default",
                 axis_separators=None, *, name="buffer") -> _Buffer:
    """Bind a handle parameter (or, in a block, a buffer region) to a new buffer."""
    if shape is None:
        if not isinstance(param, BufferRegion):
            raise TypeError(f"T.match_buffer: 'shape' is required for a handle, got param {param!r}")
        shape = tuple(r.extent for r in param.region)
    return _make(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                 axis_separators, name)


def decl_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None,
                scope="global", align=64, offset_factor=None, buffer_type="default",
                axis_separators=None, *, name="buffer") -> _Buffer:
    """Declare a buffer over existing (``data=``) or fresh memory for the statements after it."""
    return _make(shape, dtype, data, strides, elem_offset, scope, align, offset_factor,
                 axis_separators, name)


@_parser_only
def allocate(extents, dtype, scope="global", condition=True, annotations=None):
    """``x = T.allocate([n], "float32", "global")``: memory for the statements after it."""


@_parser_only
def block(name_hint: str = "", no_realize: bool = False):
    """``with T.block("name"):`` a block; its iterators come from ``T.axis.*``."""


sblock = block  # the newer TVM spelling


@_parser_only
def init():
    """``with T.init():`` the reduction initialisation of the enclosing block."""


@_parser_only
def where(predicate):
    """The predicate under which the enclosing block runs."""


@_parser_only
def reads(*regions):
    """The buffer regions the enclosing block reads (inferred when omitted)."""


@_parser_only
def writes(*regions):
    """The buffer regions the enclosing block writes (inferred when omitted)."""


@_parser_only
def block_attr(attrs: dict):
    """Annotations of the enclosing block."""


@_parser_only
def func_attr(attrs: dict):
    """Attributes of the function."""


@_parser_only
def grid(*extents):
    """``for i, j in T.grid(n, m):`` perfectly nested serial loops from 0."""


def _loop_word(name: str):
    def loop(start, stop=None, *, annotations=None):
        """A loop over ``range(start, stop)`` (``range(0, start)`` when stop is omitted)."""

    loop.__name__ = loop.__qualname__ = name
    return _parser_only(loop)


serial = _loop_word("serial")
parallel = _loop_word("parallel")
vectorized = _loop_word("vectorized")
unroll = _loop_word("unroll")


@_parser_only
def thread_binding(start, stop=None, thread: str | None = None, *, annotations=None):
    """A loop bound to the GPU thread axis ``thread`` ("threadIdx.x", "blockIdx.y" …)."""


@_parser_only
def env_thread(thread: str, dtype: str = "int32"):
    """``tx = T.env_thread("threadIdx.x")``: a thread variable, launched by ``T.launch_thread(tx, n)``."""


@_parser_only
def launch_thread(thread: str, extent):
    """``tx = T.launch_thread("threadIdx.x", 128)``: a thread_extent attribute over what follows."""


@_parser_only
def attr(node, attr_key: str, value):
    """An AttrStmt over the statements after it (or the ``with`` body)."""


@_parser_only
def realize(buffer_slice, scope: str = "", condition=True):
    """``T.realize(A[0:n, 0:m], "scope")``: the pre-schedule marker that the region is realized
    in ``scope`` over the statements after it (or the ``with`` body)."""


def realize_stmt(region: BufferRegion, scope, condition, body):
    """What ``T.realize`` builds: a ``realize_scope`` attribute over a BufferRealize."""
    from ember.ir import StringImm
    from ember.tir.stmt import AttrStmt, BufferRealize

    scope = scope if isinstance(scope, StringImm) else StringImm(str(scope))
    return AttrStmt(region.buffer, "realize_scope", scope,
                    BufferRealize(region.buffer, region.region, as_expr(condition), body))


@_parser_only
def LetStmt(value, var=None):  # noqa: N802 - TVM's name
    """``with T.LetStmt(value) as x:`` binds ``x`` in the body."""


@_parser_only
def Assert(condition, message):  # noqa: N802 - TVM's name
    """``with T.Assert(cond, "msg"):`` checks ``cond`` before the body."""


def prefetch(buffer, bounds):
    """``T.prefetch(A, [T.Range(0, 64)])``: the hint that a region of ``A`` is read soon."""
    from ember.tir.stmt import Prefetch

    return Prefetch(buffer, tuple(bounds))


def evaluate(value):
    """The statement that evaluates ``value`` (a call, usually) for its effect."""
    from ember.tir.stmt import Evaluate

    return Evaluate(as_expr(value))


class _AxisNamespace:
    """``T.axis.spatial / reduce / scan / opaque / remap`` (``S`` and ``R`` are aliases)."""

    def __init__(self):
        def spatial(dom, binding, dtype=None):
            """A data-parallel block iterator over ``dom`` bound to ``binding``."""

        def reduce(dom, binding, dtype=None):  # noqa: A001
            """A reduction block iterator over ``dom`` bound to ``binding``."""

        def scan(dom, binding, dtype=None):
            """An ordered (scan) block iterator."""

        def opaque(dom, binding, dtype=None):
            """An opaque block iterator."""

        def remap(kinds, bindings, dtype=None):
            """Iterators bound one-to-one to loops: kinds is a string of S (spatial) / R (reduce)."""

        for fn in (spatial, reduce, scan, opaque, remap):
            setattr(self, fn.__name__, _parser_only(fn, "axis." + fn.__name__))
        self.S, self.R = self.spatial, self.reduce

    def __repr__(self) -> str:
        return "T.axis"


axis = _AxisNamespace()
