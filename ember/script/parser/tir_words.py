"""What each statement word of ``T`` does when parsed: tables keyed by the word itself.

``EXPR_WORDS`` handle ``T.reads(...)``-style statements, ``ASSIGN_WORDS`` handle
``x = T.word(...)`` (the target's name becomes the new object's name), ``WITH_WORDS``
handle ``with T.word(...):`` and ``FOR_WORDS`` the iterables of ``for`` loops.
"""

from __future__ import annotations

import ast

from ember.ir import PointerType, PrimExpr, Range, StringImm, Var, as_expr, const
from ember.runtime.dtype import DataType
from ember.script.tir import frames as W
from ember.script.tir.exprs import range_from_bounds
from ember.tir.analysis.block_access import block_access_regions
from ember.tir.buffer import Buffer, BufferLoad, BufferRegion, MatchBufferRegion
from ember.tir.stmt import (
    Allocate, AssertStmt, AttrStmt, Block, BlockRealize, DeclBuffer, IterVar, IterVarType, LetStmt,
)

from .tir_stmts import BlockFrame, Scoped, TIRParser

__all__ = ["EXPR_WORDS", "ASSIGN_WORDS", "WITH_WORDS", "as_region"]


def as_region(value) -> BufferRegion:
    """A region from ``A[i, 0:4]`` (a region), ``A[i, j]`` (a point) or ``A`` (all of it)."""
    if isinstance(value, BufferRegion):
        return value
    if isinstance(value, BufferLoad):
        return BufferRegion(value.buffer, tuple(Range(i, const(1, i.dtype)) for i in value.indices))
    if isinstance(value, Buffer):
        return BufferRegion.full_region(value)
    raise TypeError(f"expected a buffer region such as A[i, 0:4], got {type(value).__name__}: {value!r}")


def _regions(values) -> tuple:
    flat = []
    for v in values:
        flat.extend(v if isinstance(v, list | tuple) else [v])
    return tuple(as_region(v) for v in flat)


# -- expression statements --------------------------------------------------------------
def _once(p: TIRParser, call, word: str, field: str):
    """The enclosing block's frame; refuses a second ``word`` in the same block."""
    frame = p.block_frame(call, word)
    if getattr(frame, field) is not None:
        raise p.error(call, f"{word} is given twice in block {frame.name!r}; a block has one")
    return frame


def _reads(p: TIRParser, call, args):
    _once(p, call, "T.reads", "reads").reads = _regions(args["regions"])


def _writes(p: TIRParser, call, args):
    _once(p, call, "T.writes", "writes").writes = _regions(args["regions"])


def _where(p: TIRParser, call, args):
    _once(p, call, "T.where", "predicate").predicate = as_expr(args["predicate"])


def _block_attr(p: TIRParser, call, args):
    attrs = args["attrs"]
    if not isinstance(attrs, dict):
        raise p.error(call, f"T.block_attr expects a dict, got {type(attrs).__name__}")
    frame = p.block_frame(call, "T.block_attr")
    if frame.attrs_given:
        raise p.error(call, f"T.block_attr is given twice in block {frame.name!r}; a block has one")
    frame.attrs_given = True
    frame.annotations.update(attrs)


def _func_attr(p: TIRParser, call, args):
    attrs = args["attrs"]
    if not isinstance(attrs, dict):
        raise p.error(call, f"T.func_attr expects a dict, got {type(attrs).__name__}")
    if p.blocks or p.depth:
        raise p.error(call, "T.func_attr must be at the top level of the function body")
    p.func.attrs = dict(attrs)


def _attr_value(value):
    return StringImm(value) if isinstance(value, str) else as_expr(value)


def _attr(p: TIRParser, call, args):
    node, key, value = args["node"], args["attr_key"], _attr_value(args["value"])
    node = StringImm(node) if isinstance(node, str) else node  # TVM keeps string nodes as StringImm
    return Scoped(lambda body: AttrStmt(node, key, value, body))


def _assert(p: TIRParser, call, args):
    cond, msg = as_expr(args["condition"]), args["message"]
    msg = StringImm(msg) if isinstance(msg, str) else msg
    return Scoped(lambda body: AssertStmt(cond, msg, body))


def _realize(p: TIRParser, call, args):
    region, scope, cond = as_region(args["buffer_slice"]), args["scope"], args["condition"]
    return Scoped(lambda body: W.realize_stmt(region, scope, cond, body))


def _needs_assignment(word: str):
    def handler(p: TIRParser, call, args):
        raise p.error(call, f"the result of T.{word} must be assigned to a name")

    return handler


EXPR_WORDS = {
    W.reads: _reads, W.writes: _writes, W.where: _where, W.block_attr: _block_attr,
    W.func_attr: _func_attr, W.attr: _attr, W.Assert: _assert, W.realize: _realize,
    W.alloc_buffer: _needs_assignment("alloc_buffer"),
    W.match_buffer: _needs_assignment("match_buffer"),
    W.allocate: _needs_assignment("allocate"),
}


# -- assignments ------------------------------------------------------------------------
def _named_call(p: TIRParser, node: ast.Assign, name: str, func):
    args, kwargs = p.eval_args(node.value)
    try:
        buf = func(*args, name=name, **kwargs)
    except (TypeError, ValueError) as err:
        raise p.error(node.value, f"T.{getattr(func, '__name__', 'Buffer')}: {err}") from None
    for dim in getattr(buf, "shape", ()):
        if not (dim.dtype.is_int or dim.dtype.is_uint):
            raise p.error(node.value, f"buffer {name!r}: shape entries must be integers, got {dim} of dtype "
                                      f"{dim.dtype}")
    return buf


def _declare_buffer(p: TIRParser, node, target, func):
    name = p.target_name(target)
    p.scope.define(name, _named_call(p, node, name, func))


def _alloc_buffer(p: TIRParser, node, target, func):
    name = p.target_name(target)
    buf = _named_call(p, node, name, func)
    allocated = p.blocks[-1].alloc_buffers if p.blocks else p.func.root_allocs
    if any(b.name == name for b in allocated):
        raise p.error(node, f"buffer {name!r} is allocated twice in the same scope")
    if p.blocks:
        p.blocks[-1].alloc_buffers.append(buf)
    elif p.depth == 0:
        p.func.root_allocs.append(buf)
    else:
        raise p.error(node, "T.alloc_buffer must be in a block or at the top level of the function")
    p.scope.define(name, buf)


def _match_buffer(p: TIRParser, node, target, func):
    name = p.target_name(target)
    buf = _named_call(p, node, name, func)
    source = p.eval(node.value.args[0]) if node.value.args else None
    if isinstance(source, Var):
        if p.blocks or p.depth or not any(source is q for q in p.func.params):
            raise p.error(node.value, f"T.match_buffer of the handle {source.name!r} must be at the "
                                      "top level of the function and name a parameter")
        p.func.buffer_map[source] = buf
    elif isinstance(source, BufferRegion | BufferLoad | Buffer):
        frame = p.block_frame(node, "T.match_buffer of a region")
        region = as_region(source)
        _check_region_size(p, node, region, buf)
        frame.match_buffers.append(MatchBufferRegion(buf, region))
    else:
        raise p.error(node.value, "T.match_buffer expects a handle parameter or a buffer region "
                                  f"as its first argument, got {source!r}")
    p.scope.define(name, buf)


def _check_region_size(p: TIRParser, node, region: BufferRegion, buf: Buffer) -> None:
    """A matched region and its buffer must hold as many elements (when both are constant)."""
    from ember.ir import IntImm

    extents = [r.extent for r in region.region]
    if not all(isinstance(e, IntImm) for e in list(extents) + list(buf.shape)):
        return
    have = 1
    for e in extents:
        have *= e.value
    want = 1
    for d in buf.shape:
        want *= d.value
    if have != want:
        raise p.error(node.value, f"T.match_buffer: the region of {region.buffer.name} holds {have} "
                                  f"elements but the buffer's shape {tuple(d.value for d in buf.shape)} "
                                  f"holds {want}")


def _owns_memory(call) -> bool:
    """``T.decl_buffer(...)`` without ``data=`` allocates its own memory (as in TVM)."""
    return isinstance(call, ast.Call) and len(call.args) < 3 and all(k.arg != "data" for k in call.keywords)


def _declared(buf, body, call):
    """DeclBuffer of ``buf`` around ``body``, inside an Allocate of its data when it owns it."""
    stmt = DeclBuffer(buf, body)
    if not _owns_memory(call):
        return stmt
    extents = tuple(as_expr(e) for e in buf.shape)
    return Allocate(buf.data, buf.dtype, extents, as_expr(True), stmt)


def _decl_buffer(p: TIRParser, node, target, func):
    name = p.target_name(target)
    buf = _named_call(p, node, name, func)
    p.scope.define(name, buf)
    return Scoped(lambda body: _declared(buf, body, node.value))


def _allocate_parts(p: TIRParser, call, name: str):
    args = p.bind(call, W.allocate)
    extents = args["extents"]
    extents = tuple(as_expr(e) for e in (extents if isinstance(extents, list | tuple) else [extents]))
    dtype = DataType(args["dtype"])
    var = Var(name, "handle", PointerType(dtype, args["scope"]))
    cond = as_expr(args["condition"])
    return var, dtype, extents, cond, dict(args["annotations"] or {})


def _allocate(p: TIRParser, node, target, func):
    name = p.target_name(target)
    var, dtype, extents, cond, ann = _allocate_parts(p, node.value, name)
    p.scope.define(name, var)
    return Scoped(lambda body: Allocate(var, dtype, extents, cond, body, ann))


def _dom(value) -> Range:
    if isinstance(value, Range):
        return value
    if isinstance(value, list | tuple):
        if len(value) != 2:
            raise ValueError(f"a domain tuple must be (begin, end), got {value!r}")
        return range_from_bounds(*value)
    return Range(const(0, as_expr(value).dtype), as_expr(value))


_AXIS_TYPES = {
    W.axis.spatial: IterVarType.DataPar, W.axis.reduce: IterVarType.CommReduce,
    W.axis.scan: IterVarType.Ordered, W.axis.opaque: IterVarType.Opaque,
}
_REMAP_TYPES = {"S": IterVarType.DataPar, "R": IterVarType.CommReduce}


def _push_iter(frame: BlockFrame, name: str, dom: Range, kind, value, dtype) -> Var:
    if any(iv.var.name == name for iv in frame.iter_vars):
        raise ValueError(f"block {frame.name!r} defines the iterator {name!r} twice")
    var = Var(name, DataType(dtype) if dtype is not None else dom.extent.dtype)
    frame.iter_vars.append(IterVar(dom, var, kind))
    frame.iter_values.append(as_expr(value))
    return var


def _axis(p: TIRParser, node, target, func):
    name = p.target_name(target)
    frame = p.block_frame(node, "T.axis")
    args = p.bind(node.value, func)
    try:
        dom = _dom(args["dom"])
    except (TypeError, ValueError) as err:
        raise p.error(node.value, f"T.{func.script_name}: invalid 'dom': {err}") from None
    for what, value in (("dom", dom.min), ("dom", dom.extent), ("binding", args["binding"])):
        dtype = value.dtype if isinstance(value, PrimExpr) else None
        if isinstance(value, float) or dtype is not None and not (dtype.is_int or dtype.is_uint):
            raise p.error(node.value, f"T.{func.script_name}: the {what} must be an integer, got {value!r}")
    try:
        var = _push_iter(frame, name, dom, _AXIS_TYPES[func], args["binding"], args["dtype"])
    except ValueError as err:
        raise p.error(node, str(err)) from None
    p.scope.define(name, var)


def _remap(p: TIRParser, node, target, func):
    frame = p.block_frame(node, "T.axis.remap")
    args = p.bind(node.value, func)
    kinds, bindings = args["kinds"], args["bindings"]
    if not isinstance(kinds, str) or any(k not in _REMAP_TYPES for k in kinds):
        raise p.error(node.value, f"T.axis.remap: 'kinds' must be a string of S and R, got {kinds!r}")
    bindings = list(bindings) if isinstance(bindings, list | tuple) else [bindings]
    names = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
    if not (len(kinds) == len(bindings) == len(names)):
        raise p.error(node, f"T.axis.remap: {len(names)} names, {len(kinds)} kinds and "
                            f"{len(bindings)} bindings must agree")
    for name_node, kind, value in zip(names, kinds, bindings):
        loop = p.loops.get(id(value))
        if loop is None:
            raise p.error(node.value, f"T.axis.remap: binding {value!r} is not the variable of an "
                                      "enclosing loop")
        _, lmin, lext = loop
        try:
            var = _push_iter(frame, p.target_name(name_node), Range(lmin, lext), _REMAP_TYPES[kind],
                             value, args["dtype"])
        except ValueError as err:
            raise p.error(node, str(err)) from None
        p.scope.define(name_node.id, var)


def _thread_iter(p: TIRParser, call, name: str):
    args = p.bind(call, W.launch_thread)
    thread, extent = args["thread"], as_expr(args["extent"])
    if not isinstance(thread, str):
        raise p.error(call, f"T.launch_thread: 'thread' must name a thread axis, got {thread!r}")
    var = Var(name, extent.dtype)
    p.scope.define(name, var)
    return IterVar(Range(const(0, extent.dtype), extent), var, IterVarType.ThreadIndex, thread), extent


def _env_thread(p: TIRParser, node, target, func):
    args = p.bind(node.value, W.env_thread)
    if not isinstance(args["thread"], str):
        raise p.error(node.value, f"T.env_thread: 'thread' must name a thread axis, got {args['thread']!r}")
    name = p.target_name(target)
    var = Var(name, args["dtype"])
    p.scope.define(name, var)
    env = p.__dict__.setdefault("env_threads", {})
    env[id(var)] = (var, args["thread"])


def _launch_thread_stmt(p: TIRParser, call, args):
    """``T.launch_thread(tx, 4)`` as a statement: tx from ``T.env_thread`` (or a thread name)."""
    thread, extent = args["thread"], as_expr(args["extent"])
    known = p.__dict__.get("env_threads", {}).get(id(thread))
    if known is not None:
        var, tag = known
    elif isinstance(thread, str):
        var, tag = Var(thread, extent.dtype), thread
    else:
        raise p.error(call, "T.launch_thread: 'thread' must be a variable from T.env_thread or a thread "
                            f"axis name such as 'threadIdx.x', got {thread!r}")
    iv = IterVar(Range(const(0, var.dtype), extent), var, IterVarType.ThreadIndex, tag)
    return Scoped(lambda body: AttrStmt(iv, "thread_extent", extent, body))


EXPR_WORDS[W.launch_thread] = _launch_thread_stmt


def _launch_thread(p: TIRParser, node, target, func):
    iv, extent = _thread_iter(p, node.value, p.target_name(target))
    return Scoped(lambda body: AttrStmt(iv, "thread_extent", extent, body))


def _declare_var(p: TIRParser, node, target, func):
    name = p.target_name(target)
    known = p.func.predeclared.get(name) if p.depth == 0 and not p.blocks else None
    if known is not None:
        p.scope.define(name, known)
        return
    p.scope.define(name, Var(name, func.dtype))


def _named_var(p: TIRParser, node, target, func):
    name = p.target_name(target)
    known = p.func.predeclared.get(name) if p.depth == 0 and not p.blocks else None
    p.scope.define(name, known if known is not None else _named_call(p, node, name, func))


def _assign_words():
    from ember.script import tir as T

    table = {
        W.Buffer: _declare_buffer, W.alloc_buffer: _alloc_buffer, W.match_buffer: _match_buffer,
        W.decl_buffer: _decl_buffer, W.allocate: _allocate, W.axis.remap: _remap,
        W.launch_thread: _launch_thread, W.env_thread: _env_thread,
        T.handle: _named_var, T.var: _named_var, "declare_var": _declare_var,
    }
    table.update({word: _axis for word in _AXIS_TYPES})
    return table


ASSIGN_WORDS = _assign_words()


# -- with statements --------------------------------------------------------------------
def _as_name(p: TIRParser, node, item, word: str) -> str:
    if item.optional_vars is None:
        raise p.error(item.context_expr, f"`with {word}(...)` needs `as name`")
    return p.target_name(item.optional_vars)


def _block(p: TIRParser, node: ast.With, item, func):
    if item.optional_vars is not None:
        raise p.error(item.optional_vars, "`with T.block(...)` binds no name; remove `as ...`")
    args = p.bind(item.context_expr, func)
    frame = BlockFrame(str(args["name_hint"]), bool(args["no_realize"]))
    p.blocks.append(frame)
    try:
        body = p.parse_body(node.body)
    finally:
        p.blocks.pop()
    block = Block(tuple(frame.iter_vars), frame.reads or (), frame.writes or (), frame.name, body,
                  frame.init, tuple(frame.alloc_buffers), tuple(frame.match_buffers),
                  dict(frame.annotations))
    top_root = frame.name == "root" and not p.blocks and p.depth == 0 and not frame.iter_vars
    if (frame.reads is None or frame.writes is None) and not top_root:
        reads, writes = block_access_regions(block)
        from ember.ir import replace

        block = replace(block, reads=frame.reads if frame.reads is not None else reads,
                        writes=frame.writes if frame.writes is not None else writes)
    if not p.blocks and p.depth == 0 and not frame.iter_vars and frame.reads is None \
            and frame.writes is None:
        p.inferred_top_blocks.add(id(block))  # may turn out to be the root (regions then empty)
    if frame.no_realize:
        return block
    pred = frame.predicate if frame.predicate is not None else const(True)
    return BlockRealize(tuple(frame.iter_values), pred, block)


def _init(p: TIRParser, node: ast.With, item, func):
    frame = p.block_frame(node, "T.init")
    if frame.init is not None:
        raise p.error(node, "a block has at most one T.init()")
    frame.init = p.parse_body(node.body)


def _let_with(p: TIRParser, node, item, func):
    args = p.bind(item.context_expr, func)
    value = as_expr(args["value"])
    given = args["var"]
    if item.optional_vars is None and isinstance(given, Var):  # `with T.LetStmt(v, var=x):`
        return LetStmt(given, value, p.parse_body(node.body))
    name = _as_name(p, node, item, "T.LetStmt")
    var = Var(name, given.dtype, given.type_annotation) if isinstance(given, Var) else Var(name, value.dtype)
    p.scope.define(name, var)
    return LetStmt(var, value, p.parse_body(node.body))


def _allocate_with(p: TIRParser, node, item, func):
    name = _as_name(p, node, item, "T.allocate")
    var, dtype, extents, cond, ann = _allocate_parts(p, item.context_expr, name)
    p.scope.define(name, var)
    return Allocate(var, dtype, extents, cond, p.parse_body(node.body), ann)


def _decl_buffer_with(p: TIRParser, node, item, func):
    name = _as_name(p, node, item, "T.decl_buffer")
    fake = ast.Assign(targets=[item.optional_vars], value=item.context_expr)
    buf = _named_call(p, fake, name, func)
    p.scope.define(name, buf)
    return _declared(buf, p.parse_body(node.body), item.context_expr)


def _launch_thread_with(p: TIRParser, node, item, func):
    if item.optional_vars is None:  # `with T.launch_thread(tx, 256):` with tx from T.env_thread
        scoped = _launch_thread_stmt(p, item.context_expr, p.bind(item.context_expr, W.launch_thread))
        return scoped.wrap(p.parse_body(node.body))
    iv, extent = _thread_iter(p, item.context_expr, _as_name(p, node, item, "T.launch_thread"))
    return AttrStmt(iv, "thread_extent", extent, p.parse_body(node.body))


def _scoped_with(word):
    def handler(p: TIRParser, node, item, func):
        scoped = EXPR_WORDS[word](p, item.context_expr, p.bind(item.context_expr, func))
        return scoped.wrap(p.parse_body(node.body))

    return handler


WITH_WORDS = {
    W.block: _block, W.init: _init, W.LetStmt: _let_with, W.allocate: _allocate_with,
    W.decl_buffer: _decl_buffer_with, W.attr: _scoped_with(W.attr),
    W.Assert: _scoped_with(W.Assert), W.launch_thread: _launch_thread_with,
    W.realize: _scoped_with(W.realize),
}
