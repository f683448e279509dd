"""Parsing TIR statements: one method per Python statement form.

Statement words of ``T`` are recognised by identity of the evaluated callee and
handled by the tables in ``tir_words.py``.  Forms that scope over the rest of their
statement list (``x: T.int32 = v``, ``A = T.allocate(...)``, ``assert c, "m"``,
``T.attr(...)``) return a ``Scoped`` whose body is parsed from the statements after it.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable

from ember.ir import PrimExpr, StringImm, Var, as_expr, const
from ember.script.errors import ParserError
from ember.tir.buffer import Buffer, BufferRegion
from ember.tir.stmt import (
    AssertStmt, BufferStore, Evaluate, IfThenElse, LetStmt, Stmt, While, seq,
)

from .evaluator import Evaluator, Scope
from .source import Source


def _region_load(region: BufferRegion):
    """A load of a buffer slice: the sliced dimension becomes a Ramp (a vector load)."""
    from ember.ir import IntImm, Ramp
    from ember.tir.buffer import BufferLoad

    indices = []
    for r in region.region:
        if isinstance(r.extent, IntImm) and r.extent.value == 1:
            indices.append(r.min)
        else:
            indices.append(Ramp(r.min, const(1, r.min.dtype), int(r.extent)))
    return BufferLoad(region.buffer, tuple(indices))

__all__ = ["TIRParser", "Scoped", "BlockFrame", "FuncFrame"]


@dataclasses.dataclass
class Scoped:
    """A statement that encloses the rest of its list: ``wrap(body) -> Stmt``."""

    wrap: Callable[[Stmt], Stmt]


@dataclasses.dataclass
class BlockFrame:
    """What the statements of a ``with T.block(...)`` body declared so far."""

    name: str
    no_realize: bool = False
    iter_vars: list = dataclasses.field(default_factory=list)
    iter_values: list = dataclasses.field(default_factory=list)
    reads: tuple | None = None
    writes: tuple | None = None
    predicate: PrimExpr | None = None
    annotations: dict = dataclasses.field(default_factory=dict)
    alloc_buffers: list = dataclasses.field(default_factory=list)
    match_buffers: list = dataclasses.field(default_factory=list)
    init: Stmt | None = None
    attrs_given: bool = False  # T.block_attr seen (a block has one)


@dataclasses.dataclass
class FuncFrame:
    """Function-level declarations: parameters, buffer map, attributes, root allocations."""

    params: list
    buffer_map: dict = dataclasses.field(default_factory=dict)
    attrs: dict | None = None
    root_allocs: list = dataclasses.field(default_factory=list)
    predeclared: dict = dataclasses.field(default_factory=dict)


def word_handler(table: dict, func):
    """The handler of ``func`` in ``table``, or None (also for unhashable callees)."""
    if func is None:
        return None
    try:
        return table.get(func)
    except TypeError:
        return None


def _noop() -> Stmt:
    return Evaluate(const(0))


class TIRParser(Evaluator):
    """Turns the statements of a ``@T.prim_func`` body into TIR."""

    def __init__(self, source: Source, scope: Scope, func: FuncFrame):
        super().__init__(source, scope)
        self.func = func
        self.blocks: list[BlockFrame] = []
        self.loops: dict[int, tuple] = {}  # id(loop var) -> (var, min, extent)
        self.depth = 0  # statement nesting; 0 is the function body's top level
        self.inferred_top_blocks: set[int] = set()  # top-level blocks without iterators or T.reads/writes

    # -- statement lists ------------------------------------------------------------
    def parse_body(self, nodes: list) -> Stmt:
        self.depth += 1
        try:
            body = self.parse_stmts(nodes)
        finally:
            self.depth -= 1
        return body if body is not None else _noop()

    def parse_stmts(self, nodes: list) -> Stmt | None:
        out: list[Stmt] = []
        for i, node in enumerate(nodes):
            result = self.parse_stmt(node)
            if isinstance(result, Scoped):
                rest = self.parse_stmts(nodes[i + 1:])
                out.append(result.wrap(rest if rest is not None else _noop()))
                break
            if result is not None:
                out.append(result)
        return seq(*out)

    def parse_stmt(self, node):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"{type(node).__name__} statements are not supported in TVMScript")
        try:
            return method(node)
        except ParserError:
            raise
        except Exception as err:  # noqa: BLE001 - every failure is reported at its statement
            raise self.error(node, f"{type(err).__name__}: {err}") from err

    def callee(self, node):
        """The evaluated callee of a call node, or None for anything else."""
        if isinstance(node, ast.Call):
            return self.eval(node.func)
        return None

    # -- simple statements ------------------------------------------------------------
    def stmt_Pass(self, node):
        return None

    def stmt_Expr(self, node: ast.Expr):
        from .tir_words import EXPR_WORDS

        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None  # a docstring
        func = self.callee(node.value)
        from .macro import TIRMacro, expand_macro

        if isinstance(func, TIRMacro):
            return expand_macro(self, node.value, func)
        handler = word_handler(EXPR_WORDS, func)
        if handler is not None:
            return handler(self, node.value, self.bind(node.value, func))
        value = self.eval(node.value)
        if value is None:
            return None
        if isinstance(value, Stmt):
            return value
        if isinstance(value, PrimExpr | int | float):
            return Evaluate(as_expr(value))
        raise self.error(node, f"expected a statement or an expression to evaluate, got "
                               f"{type(value).__name__}")

    def bind(self, call: ast.Call, func) -> dict:
        """The call's arguments bound to ``func``'s parameters (defaults applied)."""
        import inspect

        args, kwargs = self.eval_args(call)
        try:
            bound = inspect.signature(func).bind(*args, **kwargs)
        except TypeError as err:
            word = getattr(func, "script_name", func.__name__)
            raise self.error(call, f"T.{word}: {err}") from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def stmt_Assign(self, node: ast.Assign):
        from .tir_words import ASSIGN_WORDS

        if len(node.targets) != 1:
            raise self.error(node, "chained assignment (a = b = ...) is not supported")
        target = node.targets[0]
        if isinstance(target, ast.Subscript):
            return self.buffer_store(target, self.eval(node.value))
        func = self.callee(node.value)
        handler = word_handler(ASSIGN_WORDS, func)
        if handler is None and getattr(func, "dtype", None) is not None and not node.value.args \
                and not node.value.keywords:
            handler = ASSIGN_WORDS["declare_var"]
        if handler is not None:
            return handler(self, node, target, func)
        self.assign(target, self.eval(node.value))
        return None

    def assign(self, target, value) -> None:
        if isinstance(target, ast.Name):
            self.scope.define(target.id, value)
        elif isinstance(target, ast.Tuple | ast.List):
            values = list(value)
            if len(values) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(values)} values into "
                                         f"{len(target.elts)} names")
            for t, v in zip(target.elts, values):
                self.assign(t, v)
        else:
            raise self.error(target, f"cannot assign to {type(target).__name__}")

    def target_name(self, target) -> str:
        if not isinstance(target, ast.Name):
            raise self.error(target, "expected a single name on the left of '='")
        return target.id

    def buffer_store(self, target: ast.Subscript, value) -> Stmt:
        from .evaluator import buffer_access

        buf = self.eval(target.value)
        if not isinstance(buf, Buffer):
            raise self.error(target.value, f"only buffers can be stored to, got {type(buf).__name__}")
        try:
            load = buffer_access(buf, self.eval(target.slice), "store")
        except (TypeError, ValueError) as err:
            raise self.error(target, str(err)) from None
        from .evaluator import as_value, region_as_load

        value = as_value(value)
        if isinstance(load, BufferRegion):  # B[0:4] = v: a vector store

            try:
                load = region_as_load(load)
            except TypeError as err:
                raise self.error(target, str(err)) from None
        lanes = max((getattr(i.dtype, "lanes", 1) for i in load.indices), default=1)
        slots = lanes * buf.dtype.lanes  # a vector-typed buffer holds vectors at scalar indices
        if isinstance(value, PrimExpr) and value.dtype.lanes > 1 and value.dtype.lanes != slots:
            raise self.error(target, f"a {value.dtype.lanes}-lane value cannot be stored to "
                                     f"{slots} lane{'s' if slots > 1 else ''} of {buf.name}; "
                                     "index the store with a slice of the same length")
        if lanes > 1 and isinstance(value, PrimExpr) and value.dtype.lanes == 1:
            from ember.ir import Broadcast

            value = Broadcast(value, lanes)
        if len(load.indices) != len(buf.shape):
            raise self.error(target, f"buffer {buf.name} has {len(buf.shape)} dimensions but the "
                                     f"store gives {len(load.indices)} indices")
        if not isinstance(value, PrimExpr):
            value = as_expr(value, buf.dtype)
        elif value.dtype.element_of() != buf.dtype.element_of() and not value.dtype.is_handle:
            # as TVM's IRBuilder: a value of another scalar type is cast to the buffer's
            from ember.tir import Cast

            value = Cast(buf.dtype.element_of().with_lanes(value.dtype.lanes), value)
        return BufferStore(buf, value, load.indices)

    def stmt_AugAssign(self, node: ast.AugAssign):  # noqa: N802
        from .evaluator import _BINOPS

        if not isinstance(node.target, ast.Subscript):
            raise self.error(node, "augmented assignment is only supported on buffer elements")
        op = _BINOPS.get(type(node.op))
        if op is None or type(node.op) not in _AUG_OPS:
            raise self.error(node, f"augmented assignment {_AUG_OPS_TEXT.get(type(node.op), type(node.op).__name__)} "
                                   f"is not supported; use one of {', '.join(_AUG_OPS.values())}")
        current = self.eval(node.target)
        return self.buffer_store(node.target, op(current, self.eval(node.value)))

    def stmt_AnnAssign(self, node: ast.AnnAssign):
        name = self.target_name(node.target)
        ann = self.eval(node.annotation)
        dtype = getattr(ann, "dtype", None)
        if dtype is None:
            raise self.error(node.annotation, f"expected a type such as T.int32 for {name!r}, "
                                              f"got {ann!r}")
        type_ann = ann.type_annotation if isinstance(ann, Var) else None
        var = Var(name, dtype, type_ann)
        if node.value is None:
            self.scope.define(name, var)
            return None
        value = self.eval(node.value)
        if isinstance(value, BufferRegion):  # ``x: T.uint8x4 = A[0:4]`` is a vector load
            value = _region_load(value)
        value = as_expr(value, dtype)
        self.scope.define(name, var)
        return Scoped(lambda body: LetStmt(var, value, body))

    def stmt_Assert(self, node: ast.Assert):
        cond = as_expr(self.eval(node.test))
        msg = self.eval(node.msg) if node.msg is not None else ""
        msg = StringImm(msg) if isinstance(msg, str) else msg
        return Scoped(lambda body: AssertStmt(cond, msg, body))

    def stmt_Return(self, node: ast.Return):
        from ember.tir.op import ret

        if node.value is None:
            return None
        return Evaluate(ret(self.eval(node.value)))

    # -- control flow ------------------------------------------------------------------
    def stmt_If(self, node: ast.If):
        cond = self.eval(node.test)
        if not isinstance(cond, PrimExpr):  # a Python-level condition picks a branch now
            chosen = node.body if cond else node.orelse
            return self.parse_stmts(chosen)
        then = self.parse_body(node.body)
        other = self.parse_body(node.orelse) if node.orelse else None
        return IfThenElse(cond, then, other)

    def stmt_While(self, node: ast.While):
        if node.orelse:
            raise self.error(node, "while ... else is not supported")
        return While(as_expr(self.eval(node.test)), self.parse_body(node.body))

    def stmt_For(self, node: ast.For):
        from .tir_loops import parse_for

        if node.orelse:
            raise self.error(node, "for ... else is not supported")
        return parse_for(self, node)

    def stmt_With(self, node: ast.With):
        from .tir_words import WITH_WORDS

        if len(node.items) != 1:
            raise self.error(node, "use one context manager per `with` statement")
        item = node.items[0]
        func = self.callee(item.context_expr)
        handler = word_handler(WITH_WORDS, func)
        if handler is None:
            raise self.error(item.context_expr, "expected T.block, T.init, T.LetStmt, T.allocate, "
                                                "T.decl_buffer, T.attr or T.Assert after `with`")
        return handler(self, node, item, func)

    def stmt_FunctionDef(self, node):
        raise self.error(node, "nested function definitions are not supported in a prim_func")

    # -- helpers used by the word handlers ---------------------------------------------
    def block_frame(self, node, word: str) -> BlockFrame:
        if not self.blocks:
            raise self.error(node, f"{word} must be used inside a `with T.block(...)` body")
        return self.blocks[-1]


_AUG_OPS = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.FloorDiv: "//=", ast.Mod: "%="}
_AUG_OPS_TEXT = {**_AUG_OPS, ast.MatMult: "@=", ast.Pow: "**=", ast.BitAnd: "&=", ast.BitOr: "|=",
                 ast.BitXor: "^=", ast.LShift: "<<=", ast.RShift: ">>="}

