"""``tvm.tir.ir_builder``: build TIR statements imperatively with Python ``with`` blocks.

    ib = ir_builder.create()
    A = ib.pointer("float32", name="A")
    with ib.for_range(0, n, "i") as i:
        with ib.if_scope(i > 0):
            A[i] = A[i - 1] + 1.0
    stmt = ib.get()

Each scope collects the statements emitted inside it; ``scope_attr``, ``let`` and
``allocate`` wrap everything emitted after them in the current scope (an AttrStmt,
LetStmt or Allocate around the rest).  This is the legacy way of writing TIR that
TVM's older tests and topi kernels use; TVMScript is the modern one.
"""

from __future__ import annotations

from contextlib import contextmanager

from ember.ir import PointerType, PrimExpr, StringImm, Var, as_expr, const

from .buffer import Buffer, BufferLoad, decl_buffer
from .op import call_intrin
from .stmt import (
    Allocate, AttrStmt, BufferStore, Evaluate, For, ForKind, IfThenElse, LetStmt, SeqStmt, Stmt,
    While,
)

__all__ = ["IRBuilder", "BufferVar", "create"]

_KINDS = {"serial": ForKind.SERIAL, "parallel": ForKind.PARALLEL,
          "vectorize": ForKind.VECTORIZED, "unroll": ForKind.UNROLLED}


class BufferVar:
    """A buffer as the builder hands it out: ``buf[i]`` loads, ``buf[i] = v`` emits a store."""

    def __init__(self, builder: IRBuilder, buffer: Buffer, content_type):
        self._builder, self._buffer, self._content_type = builder, buffer, content_type

    def asobject(self) -> Buffer:
        return self._buffer

    @property
    def dtype(self):
        return self._content_type

    @property
    def data(self) -> Var:
        return self._buffer.data

    def _indices(self, index) -> tuple:
        index = index if isinstance(index, tuple | list) else (index,)
        return tuple(as_expr(i) for i in index)

    def __getitem__(self, index) -> BufferLoad:
        return BufferLoad(self._buffer, self._indices(index))

    def __setitem__(self, index, value) -> None:
        value = as_expr(value)
        if value.dtype != self._buffer.dtype and isinstance(value, PrimExpr):
            from .op import cast

            value = cast(value, self._buffer.dtype)
        self._builder.emit(BufferStore(self._buffer, value, self._indices(index)))


class IRBuilder:
    """Collects emitted statements in nested scopes; ``get()`` returns the result."""

    def __init__(self):
        self._seq_stack: list[list] = [[]]
        self.nidx = 0

    # -- emitting -------------------------------------------------------------------------
    def emit(self, stmt) -> None:
        """Append a statement (an expression is evaluated; a function wraps what follows)."""
        if isinstance(stmt, PrimExpr):
            stmt = Evaluate(stmt)
        if not (isinstance(stmt, Stmt) or callable(stmt)):
            raise TypeError(f"ir_builder.emit expects a Stmt, a PrimExpr or a function, got {stmt!r}")
        self._seq_stack[-1].append(stmt)

    def _pop_seq(self) -> Stmt:
        seq = self._seq_stack.pop()
        if not seq or callable(seq[-1]):
            seq.append(Evaluate(const(0, "int32")))
        tail: list = [seq[-1]]  # statements after the current point, in reverse order

        def wrap(stmts):
            return stmts[0] if len(stmts) == 1 else SeqStmt(tuple(reversed(stmts)))

        for item in reversed(seq[:-1]):
            if callable(item):
                tail = [item(wrap(tail))]
            else:
                tail.append(item)
        return wrap(tail)

    @contextmanager
    def _scope(self, value, finish):
        self._seq_stack.append([])
        yield value
        finish(self._pop_seq())

    def get(self) -> Stmt:
        """The statement built so far (the builder's top scope)."""
        seq = self._pop_seq()
        if self._seq_stack:
            raise RuntimeError("ir_builder.get() called inside an open scope")
        self._seq_stack.append([])
        return seq

    # -- scopes ---------------------------------------------------------------------------
    def for_range(self, begin, end, name: str = "i", dtype=None, kind: str = "serial"):
        """``with ib.for_range(0, n, "i") as i:`` a loop over ``[begin, end)``."""
        if name == "i":  # TVM's naming of anonymous loops: i, j, k, i_0, i_1, ...
            name = chr(ord("i") + self.nidx) if self.nidx < 3 else f"i_{self.nidx - 3}"
            self.nidx += 1
        if dtype is None:
            dtypes = {str(getattr(as_expr(x), "dtype", "int32")) for x in (begin, end)}
            dtype = "int64" if "int64" in dtypes else "int32"
        begin_e, end_e = as_expr(begin), as_expr(end)
        if begin_e.dtype != dtype:
            begin_e = const(begin, dtype) if isinstance(begin, int) else begin_e
        if end_e.dtype != dtype and isinstance(end, int):
            end_e = const(end, dtype)
        loop_var = Var(name, dtype)
        extent = end_e if isinstance(begin, int) and begin == 0 else end_e - begin_e
        if kind not in _KINDS and kind != "vthread":
            raise ValueError(f"for_range: unknown kind {kind!r}; expected one of {sorted(_KINDS)} or 'vthread'")

        def finish(body):
            if kind == "vthread":
                from .stmt import IterVar, IterVarType
                from ember.ir import Range

                iv = IterVar(Range(const(0, dtype), extent), loop_var, IterVarType.ThreadIndex, "vthread")
                self.emit(AttrStmt(iv, "virtual_thread", extent, body))
            else:
                self.emit(For(loop_var, begin_e, extent, _KINDS[kind], body))

        return self._scope(loop_var, finish)

    def while_loop(self, condition):
        """``with ib.while_loop(cond):`` a loop running while ``condition`` holds."""
        return self._scope(None, lambda body: self.emit(While(as_expr(condition), body)))

    def if_scope(self, cond):
        """``with ib.if_scope(cond):`` statements run when ``cond`` holds."""
        return self._scope(None, lambda body: self.emit(IfThenElse(as_expr(cond), body, None)))

    def else_scope(self):
        """``with ib.else_scope():`` the else branch of the ``if_scope`` just closed."""
        current = self._seq_stack[-1]
        prev = current[-1] if current else None
        if not isinstance(prev, IfThenElse) or prev.else_case is not None:
            raise RuntimeError("else_scope must directly follow an if_scope without an else")
        current.pop()
        return self._scope(None, lambda body: self.emit(
            IfThenElse(prev.condition, prev.then_case, body)))

    def new_scope(self):
        """``with ib.new_scope():`` a nested scope (what it emits stays together)."""
        return self._scope(None, self.emit)

    # -- wrappers of what follows ---------------------------------------------------------
    def scope_attr(self, node, attr_key: str, value) -> None:
        """Wrap the statements emitted after this in ``AttrStmt(node, attr_key, value)``."""
        if isinstance(node, str):
            node = StringImm(node)
        value = StringImm(value) if isinstance(value, str) else as_expr(value)
        self.emit(lambda body: AttrStmt(node, attr_key, value, body))

    def let(self, var_name: str, value) -> Var:
        """Bind ``value`` to a new Var for the statements emitted after this."""
        value = as_expr(value)
        var = Var(var_name, value.dtype)
        self.emit(lambda body: LetStmt(var, value, body))
        return var

    def allocate(self, dtype, shape, name: str = "buf", axis_separators=None, scope: str = "") -> BufferVar:
        """Allocate a buffer for the statements emitted after this."""
        shape = list(shape) if isinstance(shape, list | tuple) else [shape]
        buffer = decl_buffer(shape, dtype, name, scope=scope or "global",
                             axis_separators=axis_separators)
        self.emit(lambda body: Allocate(buffer.data, buffer.dtype, tuple(buffer.shape),
                                        const(True, "bool"), body))
        return BufferVar(self, buffer, dtype)

    def pointer(self, content_type, name: str = "ptr", scope: str = "") -> BufferVar:
        """A handle parameter pointing at ``content_type`` data, indexed flat."""
        data = Var(name, PointerType(content_type, scope or "global"))
        buffer = decl_buffer((1,), content_type, name, data=data)
        return BufferVar(self, buffer, content_type)

    def buffer_ptr(self, buf: Buffer, shape=None) -> BufferVar:
        """Index an existing buffer through the builder."""
        if shape is not None:
            buf = decl_buffer(shape, buf.dtype, buf.name, data=buf.data)
        return BufferVar(self, buf, buf.dtype)

    def likely(self, expr) -> PrimExpr:
        """``tir.likely(expr)``: a hint that ``expr`` is usually true."""
        expr = as_expr(expr)
        return call_intrin(expr.dtype, "tir.likely", expr)


def create() -> IRBuilder:
    """A new IRBuilder."""
    return IRBuilder()
