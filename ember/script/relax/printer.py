"""Printing Relax as TVMScript: functions, bindings, dataflow blocks, struct info.

Registered into the script printer's dispatch table for ``relax.Function`` (whole
functions, also inside ``@I.ir_module``), Relax expressions and StructInfo.  Symbolic
dims are declared at the top of the body (``n = T.int64()``) as TVM prints them;
every binding carries its struct info annotation; operator attributes print as the
keyword arguments of the op's builder, so printing then parsing gives the same IR.
"""

from __future__ import annotations

import numpy as np

from ember.ir import GlobalVar, IntImm, Op
from ember.relax.expr import (
    Call, Constant, DataflowBlock, DataflowVar, DataTypeImm, Expr, ExternFunc, Function, If,
    MatchCast, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple, TupleGetItem, Var, VarBinding,
)
from ember.relax.struct_info import (
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo,
    TensorStructInfo, TupleStructInfo,
)
from ember.script.printer.dispatch import register_printer
from ember.script.printer.tir_expr import PREC, ExprPrinter, py_str

__all__ = ["RelaxPrinter", "print_relax_function", "print_relax_node"]

INLINE_CONSTANT_LIMIT = 256
# call_tir-like ops: name → how they print (see RelaxPrinter.call)
_DPS_OPS = {"relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed", "relax.call_tir_with_grad"}


class _ShapePrinter(ExprPrinter):
    """TIR expressions as Relax prints them: int64 constants are plain ints (``n * 4``),
    which parse back to int64 next to the int64 dims they always appear with."""

    def render(self, e):
        if isinstance(e, IntImm) and str(e.dtype) == "int64":
            return str(e.value), PREC["unary"] if e.value < 0 else PREC["atom"]
        return super().render(e)


class RelaxPrinter:
    """Prints one Relax function (or fragment) with its own naming state."""

    def __init__(self, module_funcs: frozenset = frozenset()):
        self.ep = _ShapePrinter(declare_free=True, module_funcs=module_funcs)
        self.module_funcs = module_funcs
        self.lines: list[str] = []
        self.depth = 0
        self.constants = 0
        self.quote_dims = False  # in a signature, symbolic dims print as strings ("n")

    # -- output ---------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        for pending in self.ep.take_pending():
            self.lines.append("    " * self.depth + pending)
        self.lines.append("    " * self.depth + line)

    # -- names ------------------------------------------------------------------------------
    def define(self, var: Var) -> str:
        return self.ep.define(var, var.name_hint)

    def var(self, var: Var) -> str:
        name = self.ep.namer.get(var)
        return name if name is not None else self.ep.namer.name(var, var.name_hint)

    # -- struct info ---------------------------------------------------------------------------
    def dim(self, e) -> str:
        if isinstance(e, IntImm) and str(e.dtype) == "int64":
            return str(e.value)
        text = self.ep.expr(e)
        return py_str(text) if self.quote_dims else text

    def dims(self, values) -> str:
        parts = [self.dim(v) for v in values]
        return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"

    def sinfo(self, s: StructInfo) -> str:
        if isinstance(s, ObjectStructInfo):
            return "R.Object"
        if isinstance(s, PrimStructInfo):
            if s.value is not None:
                text = self.ep.typed(s.value)
                return f"R.Prim(value={py_str(text) if self.quote_dims else text})"
            return f"R.Prim({py_str(str(s.dtype))})" if s.dtype is not None else "R.Prim"
        if isinstance(s, ShapeStructInfo):
            if s.values is not None:
                return f"R.Shape([{', '.join(self.dim(v) for v in s.values)}])"
            return f"R.Shape(ndim={s.ndim})"
        if isinstance(s, TensorStructInfo):
            args = []
            if isinstance(s.shape, ShapeExpr):
                args.append(self.dims(s.shape.values))
            elif s.shape is not None:
                args.append(self.expr(s.shape))
            if s.dtype is not None:
                args.append(f"dtype={py_str(str(s.dtype))}")
            if s.shape is None and s.ndim != -1:
                args.append(f"ndim={s.ndim}")
            return f"R.Tensor({', '.join(args)})"
        if isinstance(s, TupleStructInfo):
            return f"R.Tuple({', '.join(self.sinfo(f) for f in s.fields)})"
        if isinstance(s, FuncStructInfo):
            ret = self.sinfo(s.ret)
            purity = "" if s.purity else ", purity=False"
            if s.params is None:
                return f"R.Callable(ret={ret}{purity})"
            return f"R.Callable(({', '.join(self.sinfo(p) for p in s.params)}{',' if len(s.params) == 1 else ''}), {ret}{purity})"
        return f"<{type(s).__name__}>"

    # -- expressions -------------------------------------------------------------------------
    def expr(self, e) -> str:
        if isinstance(e, Var):
            return self.var(e)
        if isinstance(e, GlobalVar):
            return f"cls.{e.name_hint}" if e.name_hint in self.module_funcs else f"I.GlobalVar({py_str(e.name_hint)})"
        if isinstance(e, Constant):
            return self.constant(e)
        if isinstance(e, Tuple):
            parts = [self.expr(f) for f in e.fields]
            return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
        if isinstance(e, TupleGetItem):
            return f"{self.expr(e.tuple_value)}[{e.index}]"
        if isinstance(e, ShapeExpr):
            return f"R.shape([{', '.join(self.dim(v) for v in e.values)}])"
        if isinstance(e, PrimValue):
            return f"R.prim_value({self.ep.typed(e.value)})"
        if isinstance(e, StringImm):
            return f"R.str({py_str(e.value)})"
        if isinstance(e, DataTypeImm):
            return f"R.dtype({py_str(str(e.value))})"
        if isinstance(e, ExternFunc):
            return f"R.ExternFunc({py_str(e.global_symbol)})"
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, Op):
            return f"R.{e.name[6:]}" if e.name.startswith("relax.") else py_str(e.name)
        return f"<{type(e).__name__}>"

    def constant(self, c: Constant) -> str:
        arr = c.numpy()
        dtype = py_str(str(c.struct_info.dtype))
        if arr.ndim == 0:
            return f"R.const({_scalar(arr)}, {dtype})"
        if arr.size > INLINE_CONSTANT_LIMIT:
            self.constants += 1
            return f'metadata["relax.expr.Constant"][{self.constants - 1}]'
        return f"R.const({_nested(arr)}, {dtype})"

    def value(self, v) -> str:
        """An attribute value as a Python literal."""
        if isinstance(v, StructInfo):
            return self.sinfo(v)
        if isinstance(v, Expr):
            return self.expr(v)
        from ember.tir.schedule.index_map import IndexMap

        if isinstance(v, IndexMap):  # layout_transform's map, as TVM prints it
            dtype = v.initial_indices[0].dtype if v.initial_indices else "int64"
            return f"T.index_map({v.to_python()}, index_dtype={py_str(str(dtype))})"
        return self.ep.value(v)

    def call(self, c: Call) -> str:
        op = c.op
        if isinstance(op, Op):
            name = op.name
            if name in _DPS_OPS:
                return self.dps_call(c)
            if name == "relax.call_pure_packed":
                args = [self.callee(c.args[0])] + [self.expr(a) for a in c.args[1:]]
                return f"R.call_pure_packed({', '.join(args)}, sinfo_args={self.sinfo_args(c.sinfo_args)})"
            short = name[6:] if name.startswith("relax.") else name
            args = [self.expr(a) for a in c.args]
            if c.attrs is not None:
                args += [f"{k}={self.value(getattr(c.attrs, k))}" for k in c.attrs.keys()]
            if c.sinfo_args:
                args.append(f"sinfo_args={self.sinfo_args(c.sinfo_args)}")
            return f"R.{short}({', '.join(args)})"
        args = [self.expr(a) for a in c.args]
        if c.sinfo_args:
            args.append(f"sinfo_args={self.sinfo_args(c.sinfo_args)}")
        if isinstance(op, ExternFunc):  # TVM prints a call of an extern function as R.call_packed
            return f"R.call_packed({', '.join([py_str(op.global_symbol)] + args)})"
        return f"{self.expr(op)}({', '.join(args)})"

    def callee(self, e) -> str:
        return py_str(e.global_symbol) if isinstance(e, ExternFunc) else self.expr(e)

    def sinfo_args(self, infos) -> str:
        if len(infos) == 1:
            return self.sinfo(infos[0])
        return "[" + ", ".join(self.sinfo(s) for s in infos) + "]"

    def dps_call(self, c: Call) -> str:
        name = c.op.name[6:]
        args = [self.callee(c.args[0]), self.expr(c.args[1])]
        if c.op.name == "relax.call_tir_inplace":
            args.append(f"inplace_indices={list(c.attrs.inplace_indices)}")
        out = c.sinfo_args[0]
        if isinstance(out, TupleStructInfo):
            args.append("out_sinfo=[" + ", ".join(self.sinfo(f) for f in out.fields) + "]")
        else:
            args.append(f"out_sinfo={self.sinfo(out)}")
        if c.op.name == "relax.call_tir_with_grad":
            args.append(f"te_grad_name={py_str(c.attrs.te_grad_name)}")
            if c.attrs.te_grad_kwargs:
                args.append(f"te_grad_kwargs={self.value(c.attrs.te_grad_kwargs)}")
        if len(c.args) > 2:
            args.append(f"tir_vars={self.expr(c.args[2])}")
        return f"R.{name}({', '.join(args)})"

    # -- statements -----------------------------------------------------------------------------
    def binding(self, b) -> None:
        if isinstance(b, MatchCast):
            value = self.expr(b.value)
            target = self.define(b.var)
            self.emit(f"{target} = R.match_cast({value}, {self.sinfo(b.struct_info)})")
            return
        if isinstance(b.value, If):
            self.if_binding(b)
            return
        if isinstance(b.value, Function):
            self.inner_function(b)
            return
        value = self.expr(b.value)
        ann = self.sinfo(b.var.struct_info)
        self.emit(f"{self.define(b.var)}: {ann} = {value}")

    def if_binding(self, b: VarBinding) -> None:
        e: If = b.value
        self.emit(f"if {self.expr(e.cond)}:")
        for branch in (e.true_branch, e.false_branch):
            if branch is e.false_branch:
                self.emit("else:")
            self.depth += 1
            result = self.seq(branch)
            name = self.ep.namer.get(b.var) or self.ep.namer.name(b.var, b.var.name_hint)
            self.emit(f"{name}: {self.sinfo(b.var.struct_info)} = {result}")
            self.depth -= 1
        self.ep.defined.add(id(b.var))

    def inner_function(self, b: VarBinding) -> None:
        sub = RelaxPrinter(self.module_funcs)
        sub.ep.namer = self.ep.namer
        sub.ep.defined = self.ep.defined
        text = sub.function(b.value, self.define(b.var), private=True)
        for line in text:
            self.emit(line)

    def block(self, block) -> None:
        if isinstance(block, DataflowBlock):
            self.emit("with R.dataflow():")
            self.depth += 1
            for b in block.bindings:
                self.binding(b)
            outs = [self.var(b.var) for b in block.bindings if not isinstance(b.var, DataflowVar)]
            self.emit(f"R.output({', '.join(outs)})")
            self.depth -= 1
        else:
            for b in block.bindings:
                self.binding(b)

    def seq(self, e) -> str:
        """Print a SeqExpr's blocks; return the text of its result expression."""
        if isinstance(e, SeqExpr):
            for block in e.blocks:
                self.block(block)
            return self.expr(e.body)
        return self.expr(e)

    # -- functions ---------------------------------------------------------------------------------
    def function(self, f: Function, name: str, private: bool) -> list[str]:
        self.quote_dims = True
        params = [f"{self.define(p)}: {self.sinfo(p.struct_info)}" for p in f.params]
        ret = self.sinfo(f.ret_struct_info)
        self.quote_dims = False
        decl = self.ep.take_pending()
        options = []
        if private:
            options.append("private=True")
        if not f.is_pure:
            options.append("pure=False")
        decorator = "@R.function" + (f"({', '.join(options)})" if options else "")
        start = len(self.lines)
        self.lines.append("    " * self.depth + decorator)
        self.lines.append("    " * self.depth + f"def {name}({', '.join(params)}) -> {ret}:")
        self.depth += 1
        for line in decl:
            self.lines.append("    " * self.depth + line)
        attrs = dict(f.attrs)
        if not private and next(iter(attrs), None) == "global_symbol" and attrs["global_symbol"] == name:
            del attrs["global_symbol"]  # implied by the decorator (the parser puts it first again)
        if attrs:
            self.emit(f"R.func_attr({self.value(attrs)})")
        result = self.seq(f.body)
        self.emit(f"return {result}")
        self.depth -= 1
        return self.lines[start:]


def _scalar(arr) -> str:
    v = arr.item()
    if isinstance(v, float) and not np.isfinite(v):
        return f'float("{v}")'
    return repr(v)


def _nested(arr) -> str:
    return repr(arr.tolist()).replace("inf", 'float("inf")').replace("nan", 'float("nan")')


# -- registration ---------------------------------------------------------------------------------

def print_relax_function(f: Function, config) -> str:
    name = config.name or f.attrs.get("global_symbol") or "main"
    private = "global_symbol" not in f.attrs
    printer = RelaxPrinter(module_funcs=config.module_funcs)
    return "\n".join(printer.function(f, str(name), private))


def print_relax_node(node, config) -> str:
    """Fragments: an expression, a struct info, a binding or a block."""
    printer = RelaxPrinter(module_funcs=config.module_funcs)
    if isinstance(node, StructInfo):
        return printer.sinfo(node)
    if isinstance(node, VarBinding | MatchCast):
        printer.binding(node)
        return "\n".join(printer.lines)
    if isinstance(node, DataflowBlock) or hasattr(node, "bindings"):
        printer.block(node)
        return "\n".join(printer.lines)
    if isinstance(node, SeqExpr):
        result = printer.seq(node)
        return "\n".join(printer.lines + [result])
    return printer.expr(node)


def register() -> None:
    from ember.relax.expr import Binding, BindingBlock

    register_printer(Function, print_relax_function, ("ir", "relax", "tir"))
    for cls in (Expr, StructInfo, Binding, BindingBlock):
        register_printer(cls, print_relax_node)


register()
