"""Printing TIR statements as TVMScript: loops, blocks, control flow, allocation.

Statements that scope over "the rest" (LetStmt, Allocate, DeclBuffer, AssertStmt,
AttrStmt) print flat (``x: T.int32 = v`` followed by the body at the same depth) when
they are the last statement of their sequence, and as a ``with`` block otherwise, so
the parser can always tell what they enclose.  Perfectly nested serial loops from 0
collapse into ``T.grid``; block iterators bound one-to-one to enclosing loops print
as ``T.axis.remap``.
"""

from __future__ import annotations

from ember.ir import Call, IntImm, Op, PrimExpr, Var, structural_equal
from ember.tir.buffer import Buffer, BufferLoad, BufferRegion
from ember.tir.functor import post_order_visit, pre_order_visit
from ember.tir.stmt import (
    Allocate, AssertStmt, AttrStmt, Block, BlockRealize, BufferStore, DeclBuffer, Evaluate, For,
    ForKind, IfThenElse, IterVar, IterVarType, LetStmt, Prefetch, SeqStmt, While,
)

from .tir_expr import ExprPrinter, bound_stop, py_str, range_stop

__all__ = ["StmtPrinter"]

_LOOP_KIND = {
    ForKind.SERIAL: "T.serial", ForKind.PARALLEL: "T.parallel",
    ForKind.VECTORIZED: "T.vectorized", ForKind.UNROLLED: "T.unroll",
    ForKind.THREAD_BINDING: "T.thread_binding",
}
_AXIS_KIND = {
    IterVarType.DataPar: ("spatial", "S"), IterVarType.CommReduce: ("reduce", "R"),
    IterVarType.Ordered: ("scan", None), IterVarType.Opaque: ("opaque", None),
}


def _is_zero_of(x, dtype) -> bool:
    return isinstance(x, IntImm) and x.value == 0 and x.dtype is dtype


def _is_true(x) -> bool:
    return isinstance(x, IntImm) and x.dtype.is_bool and x.value == 1


def _uses_any(expr, var_ids: set) -> bool:
    found = []
    post_order_visit(expr, lambda n: found.append(1) if id(n) in var_ids else None)
    return bool(found)


def buffer_free_vars(buf: Buffer) -> list[Var]:
    """The Vars in a buffer's shape, strides and offset."""
    found: list[Var] = []
    fields = list(buf.shape) + list(buf.strides)
    if buf.elem_offset is not None:
        fields.append(buf.elem_offset)
    for e in fields:
        post_order_visit(e, lambda n: found.append(n) if isinstance(n, Var) else None)
    return found


def _grid_loop(s) -> bool:
    return (
        isinstance(s, For) and s.kind == ForKind.SERIAL and not s.annotations
        and s.thread_binding is None and _is_zero_of(s.min, s.loop_var.dtype)
        and s.extent.dtype is s.loop_var.dtype
    )


class StmtPrinter(ExprPrinter):
    """Renders statements into indented lines."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.lines: list[str] = []
        self.depth = 0
        self.loops: dict[int, For] = {}
        self.preamble: list[str] | None = None  # a list: declarations go there, not inline

    # -- output -----------------------------------------------------------------------
    def emit(self, text: str) -> None:
        """Add a line, preceded by declarations its expressions made pending (or collected
        in ``preamble`` when printing a fragment whose free names are declared on top)."""
        pad = "    " * self.depth
        if self.preamble is not None:
            self.preamble.extend(self.take_pending())
        for line in self.take_pending():
            self.lines.append(pad + line)
        self.lines.append(pad + text)

    def body(self, stmt, last: bool = True) -> None:
        if isinstance(stmt, SeqStmt):
            if not stmt.seq:
                self.emit("T.evaluate(0)")
            for i, s in enumerate(stmt.seq):
                self.stmt(s, last=last and i == len(stmt.seq) - 1)
        else:
            self.stmt(stmt, last=last)

    def nested(self, stmt) -> None:
        self.depth += 1
        self.body(stmt)
        self.depth -= 1

    def stmt(self, s, last: bool = True) -> None:
        marks = self.marks
        if marks is None or (id(s) not in marks.underline and id(s) not in marks.annotate):
            self._stmt(s, last)
            return
        note = marks.annotate.get(id(s))
        if note is not None and isinstance(s, _SCOPED):
            last = False  # an annotated scope prints as `with`, its comment above it
        start = len(self.lines)
        self._stmt(s, last)
        pad = "    " * self.depth
        if id(s) in marks.underline:
            from .marks import wrap_lines

            wrap_lines(self.lines, start)
        if note is not None:
            if len(self.lines) - start == 1 and not isinstance(s, _SCOPED):
                self.lines[start] += f"  # {note}"
            else:
                self.lines.insert(start, f"{pad}# {note}")

    def _stmt(self, s, last: bool) -> None:
        for klass in type(s).__mro__:
            method = _STMT_RULES.get(klass)
            if method is not None:
                method(self, s, last)
                return
        self.emit(f"# unprintable statement {type(s).__name__}")

    def scoped(self, flat: str, with_form: str, body, last: bool, hoist: bool = False) -> None:
        """Print ``flat`` then ``body`` at this depth when last, else ``with with_form:``."""
        if last:
            self.emit(flat)
        else:
            self.emit(f"with {with_form}:")
            self.depth += 1
        if hoist:
            self.hoist(body)
        self.body(body)
        if not last:
            self.depth -= 1

    def hoistable_buffers(self, body) -> list[Buffer]:
        """Buffers the body uses without a defining construct whose vars are already defined,
        so ``A_1 = T.Buffer(..., data=A.data)`` lines can go at the top, like TVM prints them."""
        owned: set[int] = set()
        used: dict[int, Buffer] = {}

        def visit(n):
            if isinstance(n, Block):
                owned.update(id(b) for b in n.alloc_buffers)
                owned.update(id(m.buffer) for m in n.match_buffers)
            elif isinstance(n, DeclBuffer):
                owned.add(id(n.buffer))
            elif isinstance(n, BufferLoad | BufferStore | BufferRegion):
                used.setdefault(id(n.buffer), n.buffer)

        pre_order_visit(body, visit)
        return [
            b for key, b in used.items()
            if key not in owned and key not in self.defined and id(b.data) in self.defined
            and all(id(v) in self.defined for v in buffer_free_vars(b))
        ]

    def hoist(self, body) -> None:
        """Declare the hoistable buffers of ``body``; they print before its first line."""
        for buf in self.hoistable_buffers(body):
            self.buffer(buf)

    # -- statements -------------------------------------------------------------------
    def _store(self, s: BufferStore, last: bool) -> None:
        target = f"{self.buffer(s.buffer)}{self.indices(s.indices)}"
        self.emit(f"{target} = {self.expr(s.value)}")

    def _evaluate(self, s: Evaluate, last: bool) -> None:
        v = s.value
        if isinstance(v, Call) and isinstance(v.op, Op) and v.op.name == "tir.ret" and len(v.args) == 1:
            self.emit(f"return {self.expr(v.args[0])}")  # T.ret(x), as the parser reads `return x`
            return
        self.emit(f"T.evaluate({self.expr(s.value)})")

    def _for(self, s: For, last: bool) -> None:
        loops = [s]
        if _grid_loop(s):
            bound = {id(s.loop_var)}
            while _grid_loop(loops[-1].body) and not _uses_any(loops[-1].body.extent, bound):
                loops.append(loops[-1].body)
                bound.add(id(loops[-1].loop_var))
        if len(loops) > 1:
            extents = ", ".join(self.expr(f.extent) for f in loops)
            names = ", ".join(self.define(f.loop_var, f.loop_var.name) for f in loops)
            header = f"for {names} in T.grid({extents}):"
        else:
            header = f"for {self.loop_header(s)}:"
        self.emit(header)
        for f in loops:
            self.loops[id(f.loop_var)] = f
        self.nested(loops[-1].body)
        for f in loops:
            self.loops.pop(id(f.loop_var), None)
            self.namer.release(f.loop_var)

    def loop_header(self, s: For) -> str:
        dtype = s.loop_var.dtype
        if _is_zero_of(s.min, dtype) and s.extent.dtype is dtype:
            args = [self.expr(s.extent)]
        else:
            args = [self.expr(s.min), self.expr(bound_stop(s.min, s.extent))]
        plain = s.kind == ForKind.SERIAL and not s.annotations
        head = "range" if plain else _LOOP_KIND[s.kind]
        if s.kind == ForKind.THREAD_BINDING:
            tag = s.thread_binding.thread_tag if s.thread_binding is not None else ""
            args.append(f"thread={py_str(tag)}")
        if s.annotations:
            args.append(f"annotations={self.value(s.annotations)}")
        name = self.define(s.loop_var, s.loop_var.name)
        return f"{name} in {head}({', '.join(args)})"

    def _prefetch(self, s: Prefetch, last: bool) -> None:
        bounds = ", ".join(self.expr(r) for r in s.bounds)
        self.emit(f"T.prefetch({self.buffer(s.buffer)}, [{bounds}])")

    def _while(self, s: While, last: bool) -> None:
        self.emit(f"while {self.expr(s.condition)}:")
        self.nested(s.body)

    def _if(self, s: IfThenElse, last: bool) -> None:
        self.emit(f"if {self.expr(s.condition)}:")
        self.nested(s.then_case)
        if s.else_case is not None:
            self.emit("else:")
            self.nested(s.else_case)

    def _let(self, s: LetStmt, last: bool) -> None:
        value = self.expr(s.value)
        name = self.define(s.var, s.var.name)
        typed = s.var.type_annotation is not None or s.var.dtype is not s.value.dtype
        extra = f", var={self.var_decl(s.var)}" if typed else ""
        self.scoped(f"{name}: {self.dtype_annotation(s.var)} = {value}",
                    f"T.LetStmt({value}{extra}) as {name}", s.body, last)

    def dtype_annotation(self, v) -> str:
        if v.dtype.is_handle:
            return "T.handle" if v.type_annotation is None else self.var_decl(v)
        return f"T.{v.dtype}"

    def _allocate(self, s: Allocate, last: bool) -> None:
        if self._is_decl_buffer_sugar(s):  # T.decl_buffer without data= allocates its memory
            self._decl_buffer(s.body, last, owns_data=True)
            return
        ann = s.buffer_var.type_annotation
        scope = ann.storage_scope if ann is not None else "global"
        extents = "[" + ", ".join(self.expr(e) for e in s.extents) + "]"
        args = [extents, py_str(str(s.dtype)), py_str(scope)]
        if not _is_true(s.condition):
            args.append(self.expr(s.condition))
        if s.annotations:
            args.append(f"annotations={self.value(s.annotations)}")
        call = f"T.allocate({', '.join(args)})"
        name = self.define(s.buffer_var, s.buffer_var.name)
        self.scoped(f"{name} = {call}", f"{call} as {name}", s.body, last, hoist=True)

    def _is_decl_buffer_sugar(self, s: Allocate) -> bool:
        body = s.body
        return (isinstance(body, DeclBuffer) and body.buffer.data is s.buffer_var
                and _is_true(s.condition) and not s.annotations and body.buffer.dtype == s.dtype
                and not body.buffer.strides and body.buffer.elem_offset is None
                and len(s.extents) == len(body.buffer.shape)
                and all(self.expr(a) == self.expr(b) for a, b in zip(s.extents, body.buffer.shape)))

    def _decl_buffer(self, s: DeclBuffer, last: bool, owns_data: bool = False) -> None:
        if not owns_data and id(s.buffer.data) not in self.defined:
            self.var(s.buffer.data)  # a data pointer defined elsewhere (or free): data=<it>
        call = self.buffer_call("T.decl_buffer", s.buffer, with_data=True)
        name = self.define(s.buffer, s.buffer.name)
        self.bind_buffer_data(s.buffer, name)
        self.scoped(f"{name} = {call}", f"{call} as {name}", s.body, last)

    def _assert(self, s: AssertStmt, last: bool) -> None:
        cond, msg = self.expr(s.condition), self.expr(s.message)
        self.scoped(f"assert {cond}, {msg}", f"T.Assert({cond}, {msg})", s.body, last)

    def _attr(self, s: AttrStmt, last: bool) -> None:
        if self.is_launch(s):
            iv = s.node
            call = f"T.launch_thread({py_str(iv.thread_tag)}, {self.expr(s.value)})"
            name = self.define(iv.var, iv.var.name)
            self.scoped(f"{name} = {call}", f"{call} as {name}", s.body, last)
            return
        if self.is_realize(s):
            r = s.body
            args = [f"{self.buffer(r.buffer)}[{self.region(r.bounds)}]", self.expr(s.value)]
            if not _is_true(r.condition):
                args.append(self.expr(r.condition))
            call = f"T.realize({', '.join(args)})"
            self.scoped(call, call, r.body, last)
            return
        node = self.iter_var(s.node) if isinstance(s.node, IterVar) else self.value(s.node)
        value = self.expr(s.value) if isinstance(s.value, PrimExpr) else self.value(s.value)
        call = f"T.attr({node}, {py_str(s.attr_key)}, {value})"
        self.scoped(call, call, s.body, last)

    @staticmethod
    def is_realize(s: AttrStmt) -> bool:
        """The ``realize_scope`` attribute over a BufferRealize that ``T.realize`` makes."""
        from ember.ir import StringImm

        return (s.attr_key == "realize_scope" and type(s.body).__name__ == "BufferRealize"
                and s.body.buffer is s.node and isinstance(s.value, StringImm))

    def is_launch(self, s: AttrStmt) -> bool:
        """A thread_extent attribute that ``T.launch_thread`` would make again."""
        iv = s.node
        return (
            s.attr_key == "thread_extent" and isinstance(iv, IterVar)
            and iv.iter_type == IterVarType.ThreadIndex and id(iv.var) not in self.defined
            and iv.dom is not None and _is_zero_of(iv.dom.min, s.value.dtype)
            and structural_equal(iv.dom.extent, s.value, map_free_vars=False)
            and iv.var.dtype is s.value.dtype
        )

    def iter_var(self, iv: IterVar) -> str:
        dom = "None" if iv.dom is None else self.expr(iv.dom)
        kind = py_str(iv.iter_type.name)
        return f"T.iter_var({self.var(iv.var)}, {dom}, {kind}, {py_str(iv.thread_tag)})"

    # -- blocks -----------------------------------------------------------------------
    def _block_realize(self, s: BlockRealize, last: bool) -> None:
        self.block(s.block, s.iter_values, s.predicate)

    def _bare_block(self, s: Block, last: bool) -> None:
        self.block(s, None, None)

    def block(self, block: Block, values, predicate) -> None:
        extra = "" if values is not None else ", no_realize=True"
        self.emit(f"with T.block({py_str(block.name_hint)}{extra}):")
        self.depth += 1
        if values is not None:
            self.axes(block.iter_vars, values)
        else:
            for iv in block.iter_vars:
                kind = _AXIS_KIND.get(iv.iter_type, ("opaque", None))[0]
                self.emit(f"{self.define(iv.var, iv.var.name)} = T.axis.{kind}({self.axis_dom(iv)})")
        if predicate is not None and not _is_true(predicate):
            self.emit(f"T.where({self.expr(predicate)})")
        self.block_header(block)
        if block.init is not None:
            self.emit("with T.init():")
            self.nested(block.init)
        self.body(block.body)
        self.depth -= 1
        for iv in block.iter_vars:
            self.namer.release(iv.var)

    def block_header(self, block: Block, regions: bool = True) -> None:
        """reads, writes, attributes, allocated and matched buffers of a block."""
        if regions:
            self.emit(f"T.reads({', '.join(self.expr(r) for r in block.reads)})")
            self.emit(f"T.writes({', '.join(self.expr(r) for r in block.writes)})")
        if block.annotations:
            self.emit(f"T.block_attr({self.value(block.annotations)})")
        for buf in block.alloc_buffers:
            self.alloc_buffer(buf)
        for mb in block.match_buffers:
            source = self.expr(mb.source)
            call = self.buffer_call("T.match_buffer", mb.buffer, source=source)
            name = self.define(mb.buffer, mb.buffer.name)
            self.bind_buffer_data(mb.buffer, name)
            self.emit(f"{name} = {call}")

    def alloc_buffer(self, buf: Buffer) -> None:
        call = self.buffer_call("T.alloc_buffer", buf)
        name = self.define(buf, buf.name)
        self.bind_buffer_data(buf, name)
        self.emit(f"{name} = {call}")

    def axes(self, iter_vars, values) -> None:
        """Block iterators: each run of two or more bound one-to-one to whole enclosing loops
        prints as one ``T.axis.remap``, the others one ``T.axis.<kind>`` line each."""
        run: list[int] = []
        seen: set[int] = set()

        def flush():
            if len(run) >= 2:
                kinds = "".join(_AXIS_KIND[iter_vars[i].iter_type][1] for i in run)
                vals = ", ".join(self.expr(values[i]) for i in run)
                names = ", ".join(self.define(iter_vars[i].var, iter_vars[i].var.name) for i in run)
                self.emit(f"{names} = T.axis.remap({py_str(kinds)}, [{vals}])")
            else:
                for i in run:
                    self.single_axis(iter_vars[i], values[i])
            run.clear()

        for i, (iv, value) in enumerate(zip(iter_vars, values)):
            if self.remappable(iv, value, seen):
                seen.add(id(value))
                run.append(i)
            else:
                flush()
                self.single_axis(iv, value)
        flush()

    def single_axis(self, iv: IterVar, value) -> None:
        kind = _AXIS_KIND.get(iv.iter_type, ("opaque", None))[0]
        dom = iv.dom
        extra = "" if iv.var.dtype is dom.extent.dtype else f", dtype={py_str(str(iv.var.dtype))}"
        line = f"T.axis.{kind}({self.axis_dom(iv)}, {self.expr(value)}{extra})"
        self.emit(f"{self.define(iv.var, iv.var.name)} = {line}")

    def axis_dom(self, iv: IterVar) -> str:
        """``extent`` for a domain from zero, else ``(min, stop)``."""
        dom = iv.dom
        if _is_zero_of(dom.min, dom.extent.dtype):
            return self.expr(dom.extent)
        return f"({self.expr(dom.min)}, {self.expr(range_stop(dom))})"

    def remappable(self, iv: IterVar, value, seen: set) -> bool:
        """Whether ``iv`` is bound to a whole enclosing loop not already used (remap's form)."""
        loop = self.loops.get(id(value))
        letter = _AXIS_KIND.get(iv.iter_type, (None, None))[1]
        if loop is None or letter is None or id(value) in seen:
            return False
        dom = iv.dom
        if iv.var.dtype is not dom.extent.dtype or iv.var.dtype is not loop.loop_var.dtype:
            return False
        return structural_equal(dom.min, loop.min) and structural_equal(dom.extent, loop.extent)


_SCOPED = (LetStmt, Allocate, DeclBuffer, AssertStmt, AttrStmt)

_STMT_RULES = {
    BufferStore: StmtPrinter._store, Evaluate: StmtPrinter._evaluate, For: StmtPrinter._for,
    While: StmtPrinter._while, IfThenElse: StmtPrinter._if, LetStmt: StmtPrinter._let,
    Allocate: StmtPrinter._allocate, DeclBuffer: StmtPrinter._decl_buffer,
    AssertStmt: StmtPrinter._assert, AttrStmt: StmtPrinter._attr, Prefetch: StmtPrinter._prefetch,
    BlockRealize: StmtPrinter._block_realize, Block: StmtPrinter._bare_block,
    SeqStmt: lambda self, s, last: self.body(s, last),
}
