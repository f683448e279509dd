"""``from ember.script.ir_builder import tir as T``: TensorIR words for the IR builder.

The expression and type words are those of ``ember.script.tir`` (``T.int32()`` is a
fresh variable, ``T.float32(1)`` a constant, ``T.max`` …).  The statement words here act
on the open ``IRBuilder``: scoped constructs return frames to use with ``with``
(``T.prim_func()``, ``T.block(...)``, ``T.serial(...)``, ``T.LetStmt(...)`` …), the others
add a statement or a declaration to the innermost frame (``T.evaluate``, ``T.reads``,
``T.arg``, ``T.alloc_buffer`` …).
"""

from __future__ import annotations

import builtins

from ember.script.tir import *  # noqa: F403 - expression and type words
from ember.script.tir import Buffer  # noqa: F401 - re-exported

from ember.ir import PointerType, PrimExpr, StringImm, as_expr, const
from ember.ir import Range as _Range
from ember.ir import Var as _Var
from ember.runtime.dtype import DataType
from ember.script.tir.frames import _make, rename_buffer
from ember.tir.buffer import BufferLoad, BufferRegion, MatchBufferRegion
from ember.tir.stmt import BufferStore, Evaluate, ForKind, IterVar, IterVarType

from .base import IRBuilder
from .tir_frames import (
    AllocateFrame, AssertFrame, AttrFrame, BlockFrame, BlockInitFrame, DeclBufferFrame, ElseFrame,
    ForFrame, IfFrame, LaunchThreadFrame, LetFrame, PrimFuncFrame, RealizeFrame, ThenFrame, WhileFrame,
    full_range, loop,
)


def _frame(kind, word: str):
    frame = IRBuilder.current().find_frame(kind)
    if frame is None:
        raise ValueError(f"T.{word} must be used inside a `with T.{_FRAME_WORD[kind]}(...)` frame")
    return frame


_FRAME_WORD = {PrimFuncFrame: "prim_func", BlockFrame: "block"}


def _add(stmt):
    IRBuilder.current().add(stmt)
    return stmt


# -- functions -----------------------------------------------------------------------------
def prim_func(is_private: bool = False) -> PrimFuncFrame:
    """``with T.prim_func():`` a PrimFunc; ``ib.get()`` (or the enclosing module) gets it."""
    return PrimFuncFrame(is_private)


def arg(name: str, obj):
    """Add the parameter ``name``: a scalar/handle Var, or a Buffer passed by handle."""
    frame = _frame(PrimFuncFrame, "arg")
    if isinstance(obj, _Var):
        IRBuilder.name(name, obj)
        frame.params.append(obj)
        return obj
    if hasattr(obj, "shape") and hasattr(obj, "data"):
        handle = _Var(name + "_handle", "handle")
        buf = rename_buffer(obj, name)
        frame.params.append(handle)
        frame.buffer_map[handle] = buf
        return buf
    raise TypeError(f"T.arg: expected a Var or a Buffer for parameter {name!r}, got {type(obj).__name__}")


def func_name(name: str) -> None:
    """The function's name (its ``global_symbol`` unless private)."""
    _frame(PrimFuncFrame, "func_name").name = name


def func_attr(attrs: dict) -> None:
    """Function attributes."""
    if not isinstance(attrs, dict):
        raise TypeError(f"T.func_attr: expected a dict, got {type(attrs).__name__}")
    _frame(PrimFuncFrame, "func_attr").attrs.update(attrs)


def func_ret(ret_type):
    """The function's return type."""
    _frame(PrimFuncFrame, "func_ret").ret_type = ret_type
    return ret_type


def match_buffer(param, shape=None, dtype="float32", data=None, strides=None, elem_offset=None,
                 scope="global", align=-1, offset_factor=0, buffer_type="default",
                 axis_separators=None):
    """A buffer bound to a handle parameter, or (in a block) to a region of another buffer."""
    if isinstance(param, BufferLoad):
        param = BufferRegion(param.buffer, tuple(_Range(i, const(1, i.dtype)) for i in param.indices))
    if shape is None:
        if not isinstance(param, BufferRegion):
            raise TypeError(f"T.match_buffer: 'shape' is required for a handle, got param {param!r}")
        shape = tuple(r.extent for r in param.region)
    buf = _make(shape, dtype, data, strides, elem_offset, scope, 64 if align < 0 else align,
                (offset_factor if offset_factor > 0 else None), axis_separators, "buffer")
    if isinstance(param, _Var):
        frame = _frame(PrimFuncFrame, "match_buffer")
        if not builtins.any(param is q for q in frame.params):
            raise ValueError(f"T.match_buffer: {param.name!r} is not a parameter of the function")
        frame.buffer_map[param] = buf
    elif isinstance(param, BufferRegion):
        _frame(BlockFrame, "match_buffer").match_buffers.append(MatchBufferRegion(buf, param))
    else:
        raise TypeError(f"T.match_buffer: expected a handle parameter or a buffer region, got {param!r}")
    return buf


# -- blocks --------------------------------------------------------------------------------
def block(name: str = "", no_realize: bool = False) -> BlockFrame:
    """``with T.block("name"):`` a block (realized unless ``no_realize``)."""
    return BlockFrame(name, no_realize)


sblock = block


def init() -> BlockInitFrame:
    """``with T.init():`` the enclosing block's reduction initialisation."""
    return BlockInitFrame()


def _regions(values) -> tuple:
    from ember.script.parser.tir_words import as_region

    flat = []
    for v in values:
        flat.extend(v if isinstance(v, list | tuple) else [v])
    return tuple(as_region(v) for v in flat)


def reads(*regions) -> None:
    _frame(BlockFrame, "reads").reads = _regions(regions)


def writes(*regions) -> None:
    _frame(BlockFrame, "writes").writes = _regions(regions)


def where(predicate) -> None:
    _frame(BlockFrame, "where").predicate = as_expr(predicate)


def block_attr(attrs: dict) -> None:
    if not isinstance(attrs, dict):
        raise TypeError(f"T.block_attr: expected a dict, got {type(attrs).__name__}")
    _frame(BlockFrame, "block_attr").annotations.update(attrs)


def alloc_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None, scope="global",
                 align=-1, offset_factor=0, buffer_type="default", axis_separators=None):
    """A buffer allocated by the innermost block (or the function's root block)."""
    buf = _make(shape, dtype, data, strides, elem_offset, scope, 64 if align < 0 else align,
                (offset_factor if offset_factor > 0 else None), axis_separators, "buffer")
    builder = IRBuilder.current()
    owner = builder.find_frame(BlockFrame)
    if owner is not None:
        owner.alloc_buffers.append(buf)
    else:
        _frame(PrimFuncFrame, "alloc_buffer").root_allocs.append(buf)
    return buf


class _Axis:
    """``T.axis.spatial / reduce / scan / opaque / remap``: block iterators bound to values."""

    @staticmethod
    def _push(dom, binding, kind, dtype) -> Var:  # noqa: F405
        frame = _frame(BlockFrame, "axis")
        if isinstance(dom, list | tuple):
            dom = full_range(dom[0], dom[1])
        elif not isinstance(dom, _Range):
            extent = as_expr(dom)
            dom = _Range(const(0, extent.dtype), extent)
        var = _Var("v", DataType(dtype) if dtype is not None else dom.extent.dtype)
        frame.iter_vars.append(IterVar(dom, var, kind))
        frame.iter_values.append(as_expr(binding))
        return var

    def spatial(self, dom, binding, dtype="int32"):
        return self._push(dom, binding, IterVarType.DataPar, dtype)

    def reduce(self, dom, binding, dtype="int32"):
        return self._push(dom, binding, IterVarType.CommReduce, dtype)

    def scan(self, dom, binding, dtype="int32"):
        return self._push(dom, binding, IterVarType.Ordered, dtype)

    def opaque(self, dom, binding, dtype="int32"):
        return self._push(dom, binding, IterVarType.Opaque, dtype)

    def remap(self, kinds: str, bindings, dtype="int32"):
        """Iterators over the loops of ``bindings`` (their For frames give the domains)."""
        kinds_map = {"S": IterVarType.DataPar, "R": IterVarType.CommReduce}
        if not isinstance(kinds, str) or builtins.any(k not in kinds_map for k in kinds):
            raise ValueError(f"T.axis.remap: 'kinds' must be a string of S and R, got {kinds!r}")
        if len(kinds) != len(bindings):
            raise ValueError(f"T.axis.remap: {len(kinds)} kinds for {len(bindings)} bindings")
        out = []
        for kind, value in zip(kinds, bindings):
            dom = _loop_domain(value)
            out.append(self._push(dom, value, kinds_map[kind], dtype))
        return out

    S = spatial
    R = reduce


def _loop_domain(var) -> Range:  # noqa: F405
    for frame in reversed(IRBuilder.current().frames):
        if isinstance(frame, ForFrame):
            for v, lo, ext, *_ in frame.loops:
                if v is var:
                    return _Range(lo, ext)
    raise ValueError(f"T.axis.remap: {var!r} is not the variable of an enclosing loop")


axis = _Axis()


# -- loops ---------------------------------------------------------------------------------
def _loop_frame(kind):
    def word(start, stop=None, *, annotations=None) -> ForFrame:
        return ForFrame([loop(lambda d: _Var("v", d), start, stop, kind, None, annotations)])

    return word


serial = _loop_frame(ForKind.SERIAL)
parallel = _loop_frame(ForKind.PARALLEL)
vectorized = _loop_frame(ForKind.VECTORIZED)
unroll = _loop_frame(ForKind.UNROLLED)


def thread_binding(start, stop=None, thread: str | None = None, *, annotations=None) -> ForFrame:
    """A loop bound to the thread axis ``thread`` ("threadIdx.x" …)."""
    if thread is None:
        if not isinstance(stop, str):
            raise ValueError("T.thread_binding: 'thread' (e.g. 'threadIdx.x') is required")
        thread, stop = stop, None
    var, lo, ext, kind, _, ann = loop(lambda d: _Var("v", d), start, stop, ForKind.THREAD_BINDING)
    binding = IterVar(None, _Var("", var.dtype), IterVarType.ThreadIndex, thread)
    return ForFrame([(var, lo, ext, kind, binding, dict(annotations) if annotations else ann)])


def grid(*extents) -> ForFrame:
    """Perfectly nested serial loops from 0; ``as`` binds the list of loop vars."""
    return ForFrame([loop(lambda d: _Var("v", d), e, None, ForKind.SERIAL) for e in extents])


# -- scoped statements -----------------------------------------------------------------------
def Assert(condition, message) -> AssertFrame:  # noqa: N802 - TVM's name
    return AssertFrame(condition, message)


def LetStmt(value, type_annotation=None, *, var=None) -> LetFrame:  # noqa: N802 - TVM's name
    value = as_expr(value)
    if var is None:
        dtype = getattr(type_annotation, "dtype", type_annotation) or value.dtype
        var = _Var("v", DataType(dtype) if not isinstance(dtype, DataType) else dtype)
    return LetFrame(var, value)


let = LetStmt


def allocate(extents, dtype, scope="global", condition=None, annotations=None) -> AllocateFrame:
    """``with T.allocate([n], "float32", "local") as ptr:`` memory for the body."""
    extents = extents if isinstance(extents, list | tuple) else [extents]
    dtype = DataType(dtype)
    var = _Var("v", "handle", PointerType(dtype, scope))
    cond = const(True, "bool") if condition is None else as_expr(condition)
    return AllocateFrame(var, dtype, tuple(as_expr(e) for e in extents), cond,
                         dict(annotations) if annotations else None)


def decl_buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None, scope="global",
                align=-1, offset_factor=0, buffer_type="default", axis_separators=None) -> DeclBufferFrame:
    """``with T.decl_buffer(shape, dtype) as buf:`` a buffer for the body (allocated unless ``data``)."""
    buf = _make(shape, dtype, data, strides, elem_offset, scope, 64 if align < 0 else align,
                (offset_factor if offset_factor > 0 else None), axis_separators, "buffer")
    return DeclBufferFrame(buf, allocate=data is None)


def attr(node, attr_key: str, value) -> AttrFrame:
    node = StringImm(node) if isinstance(node, str) else node
    value = StringImm(value) if isinstance(value, str) else as_expr(value)
    return AttrFrame(node, attr_key, value)


def realize(buffer_slice, storage_scope: str, condition=True) -> RealizeFrame:
    """``with T.realize(A[0:n], "scope"):`` a BufferRealize under a ``realize_scope`` attribute."""
    return RealizeFrame(buffer_slice, storage_scope, condition)


def While(condition) -> WhileFrame:  # noqa: N802 - TVM's name
    return WhileFrame(condition)


def If(condition) -> IfFrame:  # noqa: N802 - TVM's name
    return IfFrame(condition)


def Then() -> ThenFrame:  # noqa: N802 - TVM's name
    return ThenFrame()


def Else() -> ElseFrame:  # noqa: N802 - TVM's name
    return ElseFrame()


def env_thread(thread: str, dtype: str = "int32") -> IterVar:
    """A thread axis not yet launched; ``T.launch_thread(it, extent)`` launches it."""
    if not isinstance(thread, str):
        raise TypeError(f"T.env_thread: 'thread' must name a thread axis, got {thread!r}")
    return IterVar(None, _Var("v", dtype), IterVarType.ThreadIndex, thread)


def launch_thread(thread, extent) -> LaunchThreadFrame:
    """A ``thread_extent`` attribute over the body; ``thread`` is from ``env_thread`` or a name."""
    extent = as_expr(extent)
    if isinstance(thread, str):
        thread = env_thread(thread, str(extent.dtype))
    if not isinstance(thread, IterVar):
        raise TypeError(f"T.launch_thread: expected T.env_thread(...) or a thread name, got {thread!r}")
    iv = IterVar(_Range(const(0, extent.dtype), extent), thread.var, IterVarType.ThreadIndex,
                 thread.thread_tag)
    return LaunchThreadFrame(iv, "thread_extent", extent)


# -- plain statements ----------------------------------------------------------------------
def evaluate(value) -> Evaluate:
    return _add(Evaluate(as_expr(value)))


def prefetch(buffer, bounds):
    """Add ``T.prefetch(buffer, bounds)``: a hint that the region is read soon."""
    from ember.tir.stmt import Prefetch

    return _add(Prefetch(buffer, tuple(bounds)))


def buffer_store(buffer, value, indices, predicate=None) -> BufferStore:
    if predicate is not None:
        raise NotImplementedError("T.buffer_store: predicated stores are not supported by ember")
    indices = [indices] if not isinstance(indices, list | tuple) else indices
    if not isinstance(value, PrimExpr):
        value = as_expr(value, buffer.dtype)
    return _add(BufferStore(buffer, value, tuple(as_expr(i) for i in indices)))


class MetaVar:
    """A Python value carried into the script as-is (``.value``; iterable when a sequence)."""

    def __init__(self, value) -> None:
        self.value = value

    def __iter__(self):
        return (MetaVar(v) for v in self.value)


def meta_var(value) -> MetaVar:
    return MetaVar(value)


__all__ = [name for name in dir() if not name.startswith("_")]
