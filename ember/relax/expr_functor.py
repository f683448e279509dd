"""Visitors and mutators over Relax, with TVM's method names.

``ExprVisitor`` walks an expression: ``visit_expr`` dispatches to ``visit_call_``,
``visit_var_``, ``visit_function_`` … and bindings to ``visit_var_binding_`` /
``visit_match_cast_``; defining occurrences of variables go to ``visit_var_def``.
``ExprMutator`` rebuilds what changed: bindings are re-emitted into ``builder_`` (a
BlockBuilder, so results are normalised), variables whose struct info changed are
renamed consistently, and an unchanged expression comes back as the same object.
``PyExprVisitor`` / ``PyExprMutator`` and the ``@visitor`` / ``@mutator`` decorators are
the names TVM users write.
"""

from __future__ import annotations

from ember.ir import GlobalVar, Op, replace

from .block_builder import BlockBuilder
from .expr import (
    Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, DataTypeImm, ExternFunc, Function, If, MatchCast, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple,
    TupleGetItem, Var, VarBinding,
)

__all__ = ["ExprVisitor", "ExprMutator", "PyExprVisitor", "PyExprMutator", "visitor", "mutator"]

# node class → method suffix (checked most-derived first)
_EXPR_METHODS = (
    (DataflowVar, "dataflow_var_"), (Var, "var_"), (Constant, "constant_"), (Tuple, "tuple_"),
    (TupleGetItem, "tuple_getitem_"), (Call, "call_"), (ShapeExpr, "shape_expr_"),
    (PrimValue, "prim_value_"), (StringImm, "string_imm_"), (DataTypeImm, "data_type_imm_"),
    (ExternFunc, "extern_func_"), (If, "if_"), (SeqExpr, "seq_expr_"), (Function, "function_"),
    (GlobalVar, "global_var_"), (Op, "op_"),
)


def _method_name(expr) -> str:
    for cls, suffix in _EXPR_METHODS:
        if isinstance(expr, cls):
            return "visit_" + suffix
    raise TypeError(f"not a Relax expression: {type(expr).__name__}")


class _Dispatch:
    """Routing shared by the visitor and the mutator: a binding block, a binding or a
    variable (use or definition) goes to the hook of its kind, whose result (None for
    the visitor, the rebuilt node for the mutator) is passed back."""

    def visit_dataflow_var_(self, op: DataflowVar):
        return self.visit_var_(op)

    def visit_binding_block(self, block: BindingBlock):
        if isinstance(block, DataflowBlock):
            return self.visit_dataflow_block_(block)
        return self.visit_binding_block_(block)

    def visit_binding(self, binding: Binding) -> None:
        if isinstance(binding, MatchCast):
            self.visit_match_cast_(binding)
        else:
            self.visit_var_binding_(binding)

    def visit_var_def(self, var: Var):
        if isinstance(var, DataflowVar):
            return self.visit_dataflow_var_def_(var)
        return self.visit_var_def_(var)

    def visit_dataflow_var_def_(self, var: DataflowVar):
        return self.visit_var_def_(var)


class ExprVisitor(_Dispatch):
    """Read-only walk over a Relax expression (override ``visit_*_`` methods)."""

    def visit_expr(self, expr) -> None:
        getattr(self, _method_name(expr))(expr)

    # leaves
    def visit_var_(self, op: Var) -> None: ...
    def visit_constant_(self, op: Constant) -> None: ...
    def visit_shape_expr_(self, op: ShapeExpr) -> None: ...
    def visit_prim_value_(self, op: PrimValue) -> None: ...
    def visit_string_imm_(self, op: StringImm) -> None: ...
    def visit_data_type_imm_(self, op: DataTypeImm) -> None: ...
    def visit_extern_func_(self, op: ExternFunc) -> None: ...
    def visit_global_var_(self, op: GlobalVar) -> None: ...
    def visit_op_(self, op: Op) -> None: ...

    # compound
    def visit_tuple_(self, op: Tuple) -> None:
        for f in op.fields:
            self.visit_expr(f)

    def visit_tuple_getitem_(self, op: TupleGetItem) -> None:
        self.visit_expr(op.tuple_value)

    def visit_call_(self, op: Call) -> None:
        self.visit_expr(op.op)
        for a in op.args:
            self.visit_expr(a)

    def visit_if_(self, op: If) -> None:
        self.visit_expr(op.cond)
        self.visit_expr(op.true_branch)
        self.visit_expr(op.false_branch)

    def visit_function_(self, op: Function) -> None:
        for p in op.params:
            self.visit_var_def(p)
        self.visit_expr(op.body)

    def visit_seq_expr_(self, op: SeqExpr) -> None:
        for block in op.blocks:
            self.visit_binding_block(block)
        self.visit_expr(op.body)

    # bindings (each hook its own attribute, so overriding one leaves the other alone)
    def visit_binding_block_(self, block: BindingBlock) -> None:
        for b in block.bindings:
            self.visit_binding(b)

    visit_dataflow_block_ = visit_binding_block_

    def visit_var_binding_(self, binding: VarBinding) -> None:
        self.visit_expr(binding.value)
        self.visit_var_def(binding.var)

    visit_match_cast_ = visit_var_binding_

    def visit_var_def_(self, var: Var) -> None: ...

    def visit_span(self, span) -> None: ...


class ExprMutator(_Dispatch):
    """Rebuilds a Relax expression; bindings are re-emitted through ``self.builder_``."""

    def __init__(self, mod=None):
        self.builder_ = BlockBuilder(mod)
        self.var_remap_: dict[int, Var] = {}
        self._keep: list = []

    # -- entry points -------------------------------------------------------------------
    def visit_expr(self, expr):
        return getattr(self, _method_name(expr))(expr)

    def visit_expr_post_order(self, expr):
        """Visit the children of ``expr`` and rebuild it (no user hook on ``expr`` itself)."""
        return getattr(ExprMutator, _method_name(expr))(self, expr)

    def lookup_binding(self, var: Var):
        return self.builder_.lookup_binding(var)

    def set_var_remap(self, vid, var: Var) -> None:
        key = vid if isinstance(vid, int) else id(vid)
        self.var_remap_[key] = var
        self._keep.append(vid)

    def get_var_remap(self, var: Var) -> Var:
        return self.var_remap_.get(id(var), var)

    def with_struct_info(self, var: Var, sinfo) -> Var:
        """``var`` itself if it already has ``sinfo``, else a fresh var of the same kind."""
        if var.struct_info is sinfo:
            return var
        from ember.ir import structural_equal

        if structural_equal(var.struct_info, sinfo, map_free_vars=False):
            return var
        return type(var)(var.name_hint, sinfo)

    # -- leaves ---------------------------------------------------------------------------
    def visit_var_(self, op: Var):
        return self.var_remap_.get(id(op), op)

    def visit_constant_(self, op):
        return op

    visit_shape_expr_ = visit_prim_value_ = visit_string_imm_ = visit_constant_
    visit_data_type_imm_ = visit_extern_func_ = visit_global_var_ = visit_op_ = visit_constant_

    # -- compound -------------------------------------------------------------------------
    def visit_tuple_(self, op: Tuple):
        fields = [self.visit_expr(f) for f in op.fields]
        if all(a is b for a, b in zip(fields, op.fields)):
            return op
        return self.builder_.normalize(Tuple(fields))

    def visit_tuple_getitem_(self, op: TupleGetItem):
        tup = self.visit_expr(op.tuple_value)
        return op if tup is op.tuple_value else self.builder_.normalize(TupleGetItem(tup, op.index))

    def visit_call_(self, op: Call):
        callee = self.visit_expr(op.op)
        args = [self.visit_expr(a) for a in op.args]
        if callee is op.op and all(a is b for a, b in zip(args, op.args)):
            return op
        return self.builder_.normalize(Call(callee, args, op.attrs, op.sinfo_args))

    def visit_if_(self, op: If):
        cond = self.visit_expr(op.cond)
        t = self.visit_with_new_scope(op.true_branch)
        f = self.visit_with_new_scope(op.false_branch)
        if cond is op.cond and t is op.true_branch and f is op.false_branch:
            return op
        return self.builder_.normalize(If(cond, t, f))

    def visit_with_new_scope(self, expr):
        self.builder_.begin_scope()
        try:
            self.builder_.begin_binding_block()
            out = self.visit_expr(expr)
            block = self.builder_.end_block()
        finally:
            self.builder_.end_scope()
        if block.bindings:
            out = SeqExpr([block], out)
        return out

    def visit_function_(self, op: Function):
        params = [self.visit_var_def(p) for p in op.params]
        body = self.visit_with_new_scope(op.body)
        if all(a is b for a, b in zip(params, op.params)) and body is op.body:
            return op
        ret = op.ret_struct_info
        body_sinfo = body.struct_info_or_none()
        if body_sinfo is not None and not _base_of(ret, body_sinfo):
            ret = body_sinfo
        return Function(params, body, ret, op.is_pure, op.attrs)

    def visit_seq_expr_(self, op: SeqExpr):
        blocks = [self.visit_binding_block(b) for b in op.blocks]
        blocks = [b for b in blocks if b.bindings]
        self.builder_.begin_binding_block()
        body = self.visit_expr(op.body)
        tail = self.builder_.end_block()
        if tail.bindings:  # normalising the body emitted bindings of its own
            blocks.append(tail)
        if (
            len(blocks) == len(op.blocks)
            and all(a is b for a, b in zip(blocks, op.blocks))
            and body is op.body
        ):
            return op
        return SeqExpr(blocks, body)

    # -- bindings -------------------------------------------------------------------------
    def _rebuild_block(self, block, dataflow: bool):
        if dataflow:
            self.builder_.begin_dataflow_block()
        else:
            self.builder_.begin_binding_block()
        for b in block.bindings:
            self.visit_binding(b)
        new = self.builder_.end_block()
        if len(new.bindings) == len(block.bindings) and all(a is b for a, b in zip(new.bindings, block.bindings)):
            return block
        return new

    def visit_binding_block_(self, block: BindingBlock):
        return self._rebuild_block(block, False)

    def visit_dataflow_block_(self, block: DataflowBlock):
        return self._rebuild_block(block, True)

    def visit_var_binding_(self, binding: VarBinding) -> None:
        value = self.visit_expr(binding.value)
        if value is binding.value:
            var = self.visit_var_def(binding.var)
            self.builder_.emit_normalized(binding if var is binding.var else VarBinding(var, value))
            return
        value = self.builder_.normalize(value)
        var = self.with_struct_info(self.visit_var_def(binding.var), value.struct_info)
        if var is not binding.var:
            self.set_var_remap(binding.var, var)
        self.builder_.emit_normalized(VarBinding(var, value))

    def visit_match_cast_(self, binding: MatchCast) -> None:
        value = self.visit_expr(binding.value)
        var = self.visit_var_def(binding.var)
        if value is binding.value and var is binding.var:
            self.builder_.emit_normalized(binding)
            return
        self.builder_.emit_normalized(replace(binding, var=var, value=self.builder_.normalize(value)))

    def visit_var_def_(self, var: Var) -> Var:
        return self.var_remap_.get(id(var), var)

    def visit_span(self, span):
        return span


def _base_of(base, derived) -> bool:
    from .struct_info import is_base_of

    return is_base_of(base, derived)


PyExprVisitor = ExprVisitor
PyExprMutator = ExprMutator


def visitor(cls=None):
    """Class decorator for ``PyExprVisitor`` subclasses (TVM's spelling; checks the base)."""
    def wrap(c):
        if not issubclass(c, ExprVisitor):
            raise TypeError(f"@relax.expr_functor.visitor expects a PyExprVisitor subclass, got {c.__name__}")
        return c

    return wrap if cls is None else wrap(cls)


def mutator(cls=None):
    """Class decorator for ``PyExprMutator`` subclasses (TVM's spelling; checks the base)."""
    def wrap(c):
        if not issubclass(c, ExprMutator):
            raise TypeError(f"@relax.expr_functor.mutator expects a PyExprMutator subclass, got {c.__name__}")
        return c

    return wrap if cls is None else wrap(cls)


