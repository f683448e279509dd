"""Printing PrimFuncs (signature, buffer params, attributes, implicit root block).

A buffer parameter prints in the signature (``A: T.Buffer((128,), "float32")``) when
every variable in its shape is an earlier scalar parameter; otherwise the parameter
is a ``T.handle`` and the buffer is bound in the body with ``T.match_buffer`` after
its shape variables are declared (``n = T.int32()``), as TVM prints it.
"""

from __future__ import annotations

from ember.ir import IntImm, PrimExpr, Range, Var
from ember.runtime.dtype import DataType
from ember.tir.buffer import Buffer, MatchBufferRegion
from ember.tir.function import PrimFunc
from ember.tir.stmt import Block, BlockRealize

from .names import sanitize
from .tir_expr import py_str, range_stop
from .tir_stmt import StmtPrinter, buffer_free_vars

__all__ = ["PrimFuncPrinter", "is_implicit_root"]


def is_implicit_root(body) -> bool:
    """True for a root block the parser would have made itself (so it prints as a comment)."""
    if not isinstance(body, BlockRealize):
        return False
    b: Block = body.block
    pred = body.predicate
    return (
        b.name_hint == "root" and not b.iter_vars and not body.iter_values and not b.reads
        and not b.writes and b.init is None and not b.match_buffers and not b.annotations
        and isinstance(pred, IntImm) and pred.value == 1 and _has_block(b.body)
        # a lone child block without iterators would itself be read back as the root
        and not (isinstance(b.body, BlockRealize) and not b.body.block.iter_vars)
    )


def _has_block(stmt) -> bool:
    """Whether ``stmt`` holds a block (else the parser would not add the root back)."""
    from ember.tir.functor import pre_order_visit

    found = []

    def visit(n):
        if found:
            return False
        if isinstance(n, BlockRealize | Block):
            found.append(n)
            return False
        return True

    pre_order_visit(stmt, visit)
    return bool(found)


class PrimFuncPrinter(StmtPrinter):
    """Renders a whole PrimFunc."""

    def func(self, f: PrimFunc, name: str, private: bool) -> list[str]:
        params, deferred = [], []
        inline_ok = _inlinable_params(f)
        for p in f.params:
            buf = f.buffer_map.get(p)
            if buf is None:
                params.append(f"{self.define(p, p.name)}: {self.param_annotation(p)}")
            elif id(p) in inline_ok and not buffer_free_vars(buf):  # in the signature
                call = self.buffer_call("T.Buffer", buf, dtype_always=True)
                bname = self.define(buf, buf.name)
                if not self.namer.has(p):
                    self.namer.bind(p, bname)  # the handle is only reachable through the buffer
                self.defined.add(id(p))
                self.bind_buffer_data(buf, bname)
                params.append(f"{bname}: {call}")
            else:
                hint = f"var_{buf.name}" if p.name == buf.name else p.name
                params.append(f"{self.define(p, hint)}: T.handle")
                deferred.append((p, buf))
        ret = ""
        if isinstance(f.ret_type, DataType):
            ret = f" -> T.{f.ret_type}"
        decorator = "@T.prim_func(private=True)" if private else "@T.prim_func"
        head = [decorator, f"def {name}({', '.join(params)}){ret}:"]
        self.depth = 1
        attrs = dict(f.attrs)
        if not private and next(iter(attrs), None) == "global_symbol" and attrs["global_symbol"] == name:
            del attrs["global_symbol"]
        if attrs:
            self.emit(f"T.func_attr({self.value(attrs)})")
        for p, buf in deferred:
            call = self.buffer_call("T.match_buffer", buf, source=self.var(p), with_data=True)
            bname = self.define(buf, buf.name)
            self.bind_buffer_data(buf, bname)
            self.emit(f"{bname} = {call}")
        self.hoist(f.body)
        if is_implicit_root(f.body):
            root = f.body.block
            self.emit('# with T.block("root"):')
            for buf in root.alloc_buffers:
                self.alloc_buffer(buf)
            self.body(root.body)
        else:
            self.body(f.body)
        return head + self.lines

    def param_annotation(self, p: Var) -> str:
        ann = p.type_annotation
        if p.dtype.is_handle:
            if ann is None:
                return "T.handle"
            scope = "" if ann.storage_scope == "global" else f", {py_str(ann.storage_scope)}"
            return f"T.handle({py_str(str(ann.element_dtype))}{scope})"
        return f"T.{p.dtype}"


def _inlinable_params(f: PrimFunc) -> set:
    """Ids of the handle parameters whose buffer may print in the signature: the handle itself
    is not used in the body and the buffer's data is not shared with another parameter's."""
    from ember.tir.functor import post_order_visit

    used: set[int] = set()
    post_order_visit(f.body, lambda n: used.add(id(n)) if isinstance(n, Var) else None)
    data_count: dict[int, int] = {}
    for buf in f.buffer_map.values():
        data_count[id(buf.data)] = data_count.get(id(buf.data), 0) + 1
    return {id(p) for p, buf in f.buffer_map.items()
            if id(p) not in used and data_count[id(buf.data)] == 1}


def print_prim_func(f: PrimFunc, config) -> str:
    """The registered printer of PrimFunc: ``config`` gives the name and module context."""
    attrs = f.attrs or {}
    name = config.name or attrs.get("global_symbol") or "main"
    private = "global_symbol" not in attrs
    printer = PrimFuncPrinter(module_funcs=config.module_funcs, marks=config.options.get("_marks"),
                              show_address=bool(config.options.get("show_object_address")))
    return "\n".join(printer.func(f, sanitize(str(name)), private))


def print_tir_fragment(node, config) -> str:
    """Expressions, statements and other TIR pieces. With ``verbose_expr=True`` the free
    variables and buffers they use are declared first (``n = T.int32()``,
    ``A = T.Buffer(...)``), as TVM prints them; otherwise they are used by name only."""
    verbose = bool(config.options.get("verbose_expr"))
    printer = PrimFuncPrinter(declare_free=verbose, module_funcs=config.module_funcs,
                              marks=config.options.get("_marks"),
                              show_address=bool(config.options.get("show_object_address")))
    if verbose:
        printer.preamble = []
    text = _fragment_text(printer, node)
    return "\n".join(printer.preamble + printer.take_pending() + [text]) if verbose else text


def _fragment_text(printer: PrimFuncPrinter, node) -> str:
    if isinstance(node, PrimExpr):
        return printer.expr(node)
    if isinstance(node, Range):  # an ir object on its own: I.Range (inside TIR it is T.Range)
        return f"I.Range({printer.expr(node.min)}, {printer.expr(range_stop(node))})"
    if isinstance(node, Buffer):
        if printer.declare_free:
            return printer.buffer(node)
        return printer.buffer_call("T.Buffer", node, dtype_always=True)
    from ember.tir.stmt import IterVar, Stmt

    if isinstance(node, Stmt):  # outside a function, scoping statements print as `with`
        printer.body(node, last=False)
        return "\n".join(printer.lines)
    if isinstance(node, IterVar):
        return printer.iter_var(node)
    if isinstance(node, MatchBufferRegion):
        call = printer.buffer_call("T.match_buffer", node.buffer, source=printer.expr(node.source))
        return f"{printer.define(node.buffer, node.buffer.name)} = {call}"
    return printer.expr(node)
