"""Parsing a ``@T.prim_func`` definition: parameters, body, root block, attributes.

Buffer parameters come from ``T.Buffer`` annotations or from ``T.match_buffer`` of a
``T.handle`` parameter; symbolic shape variables declared at the top of the body
(``n = T.int32()``) may be used in parameter annotations.  Like TVM, a body that
contains blocks (or allocates buffers at the top level) is wrapped in a root block
named "root", which the printer shows as a comment.
"""

from __future__ import annotations

import ast

from ember.ir import Var, const, replace
from ember.script.tir import frames as W
from ember.tir.buffer import Buffer
from ember.tir.function import PrimFunc
from ember.tir.functor import collect
from ember.tir.stmt import Block, BlockRealize, Evaluate

from .evaluator import Scope
from .source import Source
from .tir_stmts import FuncFrame, TIRParser

__all__ = ["parse_prim_func"]


def _predeclare(p: TIRParser, fdef: ast.FunctionDef) -> None:
    """Create the vars of top-level ``n = T.int32()`` lines early, for the signature."""
    from ember.script import tir as T

    for stmt in fdef.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call)):
            continue
        try:
            func = p.eval(stmt.value.func)
        except Exception:  # noqa: BLE001 - reported when the statement itself is parsed
            continue
        name = stmt.targets[0].id
        if func is T.var or func is T.handle:
            args, kwargs = p.eval_args(stmt.value)
            var = func(*args, name=name, **kwargs)
        elif getattr(func, "dtype", None) is not None and not stmt.value.args and not stmt.value.keywords:
            var = Var(name, func.dtype)
        else:
            continue
        p.func.predeclared[name] = var
        p.scope.define(name, var)


def _param(p: TIRParser, arg: ast.arg):
    """(param Var, Buffer or None) for one parameter."""
    name = arg.arg
    if arg.annotation is None:
        raise p.error(arg, f"parameter {name!r} needs a type annotation: T.Buffer(...), T.handle "
                           "or a scalar type such as T.int32")
    ann = arg.annotation
    func = p.callee(ann)
    if func is W.Buffer:
        args, kwargs = p.eval_args(ann)
        try:
            value = W.Buffer(*args, name=name, **kwargs)
        except (TypeError, ValueError) as err:
            raise p.error(ann, f"{type(err).__name__}: {err}") from None
    else:
        value = p.eval(ann)
    if isinstance(value, Buffer):
        for dim in value.shape:
            if not (dim.dtype.is_int or dim.dtype.is_uint):
                raise p.error(ann, f"parameter {name!r}: buffer shape entries must be integers, got {dim} of "
                                   f"dtype {dim.dtype}")
    if isinstance(value, Buffer) and value.dtype.is_handle:
        raise p.error(ann, f"parameter {name!r}: buffers of dtype 'handle' are not supported (a buffer holds "
                           "numbers; use 'uint64' for addresses)")
    if isinstance(value, Buffer):
        buf = W.rename_buffer(value, name)
        return Var(name, "handle"), buf
    if isinstance(value, Var):
        return Var(name, value.dtype, value.type_annotation), None
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        raise p.error(ann, f"parameter {name!r}: expected T.Buffer(...), T.handle or a scalar "
                           f"type, got {value!r}")
    return Var(name, dtype), None


def _contains_block(stmt) -> bool:
    return bool(collect(stmt, lambda n: isinstance(n, Block)))


def parse_prim_func(source: Source, fdef: ast.FunctionDef, outer: dict, private: bool = False,
                    check_well_formed: bool = True) -> PrimFunc:
    """The PrimFunc defined by ``fdef``; names resolve in ``outer`` (globals, closure, cls)."""
    a = fdef.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
        raise source.error(fdef, "a prim_func takes plain positional parameters only")
    p = TIRParser(source, Scope(outer), FuncFrame(params=[]))
    _predeclare(p, fdef)
    sig_buffers = {}
    for arg in a.args:
        var, buf = _param(p, arg)
        p.func.params.append(var)
        if buf is not None:
            sig_buffers[var] = buf
            p.scope.define(arg.arg, buf)
        else:
            p.scope.define(arg.arg, var)
    p.func.buffer_map.update(sig_buffers)
    body = p.parse_stmts(fdef.body) or Evaluate(const(0))
    allocs = p.func.root_allocs
    is_root = isinstance(body, BlockRealize) and body.block.name_hint == "root"
    if not allocs and isinstance(body, BlockRealize) and not body.block.iter_vars and not is_root:
        # the whole body is one block without iterators: it is the root block, as in TVM
        is_root = True
        if id(body.block) in p.inferred_top_blocks:  # a root block reads and writes nothing
            body = replace(body, block=replace(body.block, reads=(), writes=()))
    if allocs or (not is_root and _contains_block(body)):
        root = Block((), (), (), "root", body, alloc_buffers=tuple(allocs))
        body = BlockRealize((), const(True), root)
    attrs = dict(p.func.attrs or {})
    if private and "global_symbol" in attrs:
        raise source.error(fdef, f"the private function {fdef.name!r} cannot set a global_symbol "
                                 "(T.func_attr); drop private=True or the attribute")
    if not private and "global_symbol" not in attrs:
        attrs = {"global_symbol": fdef.name, **attrs}
    ret_type = None
    if fdef.returns is not None:
        ret_type = getattr(p.eval(fdef.returns), "dtype", None)
    params = tuple(p.func.params)
    buffer_map = {q: p.func.buffer_map[q] for q in params if q in p.func.buffer_map}
    func = PrimFunc(params, body, ret_type, buffer_map, attrs)
    if check_well_formed:
        _check(source, fdef, func)
    return func


def _check(source: Source, fdef, func: PrimFunc) -> None:
    try:
        from ember.tir.analysis import WellFormedError, verify_well_formed
    except ImportError:  # pragma: no cover - analysis layer absent
        return
    try:
        verify_well_formed(func)
    except WellFormedError as err:
        raise source.error(fdef, f"the parsed function {fdef.name!r} is not well-formed: {err}") from None
