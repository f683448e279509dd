"""BlockBuilder: build Relax functions binding by binding, normalising as it goes.

``normalize`` puts an expression in A-normal form (nested calls become bindings when a
block is open) and fills in struct info from each operator's ``FInferStructInfo``.
``emit`` binds a normalised expression to a fresh variable (a DataflowVar inside
``dataflow()``); ``emit_func_output`` closes the function and adds it to the module.
``emit_te`` / ``call_te`` turn a TE function into a PrimFunc plus a ``call_tir``.
"""

from __future__ import annotations

import contextlib

from ember.ir import GlobalVar, IRModule, Op, replace, structural_equal
from ember.error import StructInfoError, StructInfoTypeError, TVMError

from .expr import (
    Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, DataTypeImm, Expr,
    ExternFunc, Function, If, MatchCast, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple,
    TupleGetItem, Var, VarBinding,
)
from .struct_info import (
    FuncStructInfo, ObjectStructInfo, StructInfo, TupleStructInfo,
    struct_info_lca,
)

__all__ = ["BlockBuilder"]

_LEAVES = (Var, GlobalVar, Constant, ShapeExpr, PrimValue, StringImm, DataTypeImm, ExternFunc, Op)


class _FunctionScope:
    def __init__(self, name: str, params, attrs, pure: bool, private: bool):
        self.name, self.params, self.attrs = name, params, dict(attrs or {})
        self.pure, self.private = pure, private
        self.emitted = False


class BlockBuilder:
    """Builds Relax functions into an IRModule (see module docstring)."""

    _current: list[BlockBuilder] = []

    def __init__(self, mod: IRModule | None = None):
        self._mod = mod.copy() if mod is not None else IRModule()
        self._blocks: list[BindingBlock] = []
        self._bindings: list[Binding] | None = None
        self._is_dataflow = False
        self._func: _FunctionScope | None = None
        self._name_counts: dict[str, int] = {}
        self._binding_of: dict[int, tuple] = {}
        self._scope_stack: list[tuple] = []

    # -- context --------------------------------------------------------------------
    @staticmethod
    def current() -> BlockBuilder | None:
        return BlockBuilder._current[-1] if BlockBuilder._current else None

    def get(self) -> IRModule:
        """The module built so far (a copy)."""
        return self._mod.copy()

    def get_context_module(self) -> IRModule:
        return self._mod

    # -- functions --------------------------------------------------------------------
    @contextlib.contextmanager
    def function(self, name: str, params=None, attrs=None, pure: bool = True, private: bool = False):
        """Scope of one function; finish it with ``emit_func_output``."""
        if self._func is not None:
            raise RuntimeError(f"BlockBuilder.function({name!r}): already building {self._func.name!r}")
        if isinstance(params, Var):
            params = [params]
        self._func = _FunctionScope(name, None if params is None else list(params), attrs, pure, private)
        self._blocks, self._bindings, self._is_dataflow = [], [], False
        BlockBuilder._current.append(self)
        try:
            yield self
            if not self._func.emitted:
                raise RuntimeError(f"function {name!r} was left without emit_func_output")
        finally:
            BlockBuilder._current.pop()
            self._func = None
            self._bindings = None

    @contextlib.contextmanager
    def testing_scope(self, def_vars=()):
        """A scope outside any function where ``emit`` works and the symbolic ``def_vars``
        count as defined (TVM's helper for testing analyses); its bindings are dropped."""
        if self._func is not None:
            raise RuntimeError("BlockBuilder.testing_scope() cannot be used inside a function")
        saved = (self._blocks, self._bindings, self._is_dataflow)
        self._blocks, self._bindings, self._is_dataflow = [], [], False
        BlockBuilder._current.append(self)
        try:
            yield self
        finally:
            BlockBuilder._current.pop()
            self._blocks, self._bindings, self._is_dataflow = saved

    @contextlib.contextmanager
    def dataflow(self):
        """Scope of a dataflow block: bindings are pure and local unless ``emit_output``."""
        if self._bindings is None:
            raise RuntimeError("BlockBuilder.dataflow() must be used inside BlockBuilder.function()")
        if self._is_dataflow:
            raise RuntimeError("BlockBuilder.dataflow(): dataflow blocks cannot be nested")
        self._close_block()
        self._is_dataflow = True
        try:
            yield self
        finally:
            self._close_block()
            self._is_dataflow = False

    def emit_func_output(self, output, params=None) -> GlobalVar:
        """Finish the current function with ``output`` and add it to the module."""
        scope = self._func
        if scope is None:
            raise RuntimeError("emit_func_output must be called inside BlockBuilder.function()")
        if scope.emitted:
            raise RuntimeError(f"emit_func_output: function {scope.name!r} already has its output")
        scope.emitted = True  # called (as TVM: even when it raises below, the scope does not complain again)
        if self._is_dataflow:
            raise RuntimeError("emit_func_output must be called after leaving the dataflow block")
        if params is not None:
            if scope.params is not None:
                raise RuntimeError(
                    f"function {scope.name!r}: params were given both to function() and emit_func_output()")
            scope.params = [params] if isinstance(params, Var) else list(params)
        if scope.params is None:
            raise RuntimeError(f"function {scope.name!r} has no params: give them to function() or "
                               "emit_func_output() ([] for none)")
        if isinstance(output, list | tuple):
            output = Tuple(list(output))
        output = self.normalize(output)
        from .analysis.vars import free_vars

        local = [v.name_hint for v in free_vars(output) if isinstance(v, DataflowVar)]
        if local:
            raise ValueError(
                f"emit_func_output: the output uses dataflow variables {local}, which are not visible "
                "after the dataflow block; bind them with emit_output inside the block"
            )
        self._close_block()
        _check_dataflow_vars_stay_home(self._blocks)
        body = SeqExpr(self._blocks, output)
        attrs = dict(scope.attrs)
        if not scope.private and "global_symbol" not in attrs:
            attrs = {"global_symbol": scope.name, **attrs}  # first, as TVMScript's convention
        from .struct_info_subst import defined_tir_vars, erase_to_well_defined

        in_scope = {v: v for v in defined_tir_vars([p.struct_info for p in scope.params])}
        ret = erase_to_well_defined(output.struct_info, in_scope, {p: p for p in scope.params})
        func = Function(scope.params, body, ret, scope.pure, attrs)
        scope.emitted = True
        self._blocks = []
        return self._add_unique(func, scope.name)

    # -- low-level block control (used by mutators) ------------------------------------
    def begin_dataflow_block(self) -> None:
        self._close_block()
        self._is_dataflow = True
        if self._bindings is None:
            self._bindings = []

    def begin_binding_block(self) -> None:
        self._close_block()
        self._is_dataflow = False
        if self._bindings is None:
            self._bindings = []

    def end_block(self) -> BindingBlock:
        """Close the open block and return it (it is not kept in the builder)."""
        bindings = tuple(self._bindings or ())
        block = DataflowBlock(bindings) if self._is_dataflow else BindingBlock(bindings)
        self._bindings = []
        self._is_dataflow = False
        return block

    # TVM's private spellings, which its tests call
    _begin_dataflow_block = begin_dataflow_block
    _begin_binding_block = begin_binding_block
    _end_block = end_block

    def begin_scope(self, params=None) -> None:
        self._scope_stack.append((self._blocks, self._bindings, self._is_dataflow))
        self._blocks, self._bindings, self._is_dataflow = [], [], False

    def end_scope(self) -> None:
        self._blocks, self._bindings, self._is_dataflow = self._scope_stack.pop()

    def _close_block(self) -> None:
        if self._bindings:
            cls = DataflowBlock if self._is_dataflow else BindingBlock
            self._blocks.append(cls(self._bindings))
        if self._bindings is not None:
            self._bindings = []

    # -- emitting -----------------------------------------------------------------------
    def _unique(self, hint: str) -> str:
        n = self._name_counts.get(hint, 0)
        self._name_counts[hint] = n + 1
        return hint if n == 0 else f"{hint}{n}"

    def _require_block(self, what: str) -> None:
        if self._bindings is None:
            raise RuntimeError(f"BlockBuilder.{what} must be called inside BlockBuilder.function()")

    def emit(self, expr, name_hint: str = "") -> Var:
        """Bind ``expr`` (normalised) to a new variable and return the variable."""
        self._require_block("emit")
        expr = self.normalize(expr)
        if isinstance(expr, SeqExpr):
            expr = self._inline_seq(expr)
        cls = DataflowVar if self._is_dataflow else Var
        var = cls(self._unique(name_hint or ("lv" if self._is_dataflow else "gv")), expr.struct_info)
        self._push(VarBinding(var, expr))
        return var

    def _inline_seq(self, seq: SeqExpr) -> Expr:
        """Emit a SeqExpr's bindings here (as TVM): a block of the other kind than the open
        one goes in whole between two parts of the open block. Returns the SeqExpr's body."""
        for block in seq.blocks:
            if isinstance(block, DataflowBlock) == self._is_dataflow:
                for binding in block.bindings:
                    self._push(binding)
            else:
                self._close_block()
                self._blocks.append(block)
        return seq.body

    def emit_normalized(self, binding: Binding) -> None:
        """Append an already-normalised binding."""
        self._require_block("emit_normalized")
        self._push(binding)

    def _push(self, binding: Binding) -> None:
        self._bindings.append(binding)
        self._binding_of[id(binding.var)] = (binding.var, binding.value)  # the var kept alive: ids stay unique

    def lookup_binding(self, var: Var) -> Expr | None:
        """The value bound to ``var`` by this builder, if any."""
        entry = self._binding_of.get(id(var))
        return entry[1] if entry is not None and entry[0] is var else None

    def emit_output(self, output, name_hint: str = "") -> Var:
        """Inside ``dataflow()``: bind ``output`` to a variable visible after the block."""
        if not self._is_dataflow:
            raise RuntimeError("emit_output must be called inside a dataflow block")
        if isinstance(output, list | tuple):
            output = Tuple(list(output))
        output = self.normalize(output)
        var = Var(self._unique(name_hint or "gv"), output.struct_info)
        self._push(VarBinding(var, output))
        return var

    def match_cast(self, value, struct_info: StructInfo, name_hint: str = "") -> Var:
        """Bind ``value`` to a variable of ``struct_info`` (checked at run time)."""
        self._require_block("match_cast")
        value = self.normalize(value)
        cls = DataflowVar if self._is_dataflow else Var
        var = cls(self._unique(name_hint or ("lv" if self._is_dataflow else "gv")), struct_info)
        self._push(MatchCast(var, value, struct_info))
        return var

    # -- module functions -----------------------------------------------------------------
    def add_func(self, func, func_name: str) -> GlobalVar:
        """Add ``func`` under a unique name (reusing an identical function already there)."""
        for gv, existing in self._mod.functions.items():
            if type(existing) is type(func) and structural_equal(existing, func):
                return gv
        return self._add_unique(func, func_name)

    def _add_unique(self, func, func_name: str) -> GlobalVar:
        """Add ``func`` under ``func_name``, or ``func_name1``… when the name is taken (as TVM:
        ``finalize`` then gives public functions the names of their symbols)."""
        name, i = func_name, 0
        while name in self._mod:
            i += 1
            name = f"{func_name}{i}"
        self._mod[name] = func
        return self._mod.get_global_var(name)

    def finalize(self) -> IRModule:
        """The module built, each public function under the name of its ``global_symbol``
        (a private function holding that name moves to a fresh one)."""
        from .transform.normalize_global_var import NormalizeGlobalVar

        return NormalizeGlobalVar()(self.get())

    def update_func(self, gv: GlobalVar, func) -> None:
        self._mod[gv] = func

    # -- normalisation ------------------------------------------------------------------
    def normalize(self, expr) -> Expr:
        """A-normal form with struct info filled in (nested non-leaves are emitted when a block is open)."""
        from .op.base import as_operand

        return self._normalize(as_operand(expr))

    def _normalize_arg(self, expr) -> Expr:
        expr = self._normalize(expr)
        if isinstance(expr, _LEAVES) or isinstance(expr, Tuple):
            return expr
        if self._bindings is not None and not isinstance(expr, Function):
            return self.emit(expr)
        return expr

    def _normalize(self, e):
        if isinstance(e, _LEAVES):
            return e
        if isinstance(e, Tuple):
            fields = tuple(self._normalize_arg(f) for f in e.fields)
            return e if all(a is b for a, b in zip(fields, e.fields)) and e.struct_info_or_none() else Tuple(fields)
        if isinstance(e, TupleGetItem):
            tup = self._normalize_arg(e.tuple_value)
            out = e if tup is e.tuple_value and e.struct_info_or_none() else TupleGetItem(tup, e.index)
            if out.struct_info_or_none() is None:
                sinfo = tup.struct_info
                if not isinstance(sinfo, TupleStructInfo):
                    out._set_struct_info(ObjectStructInfo())
            return out
        if isinstance(e, Call):
            return self._normalize_call(e)
        if isinstance(e, SeqExpr):
            return self._normalize_seq(e)
        if isinstance(e, If):
            cond = self._normalize_arg(e.cond)
            t, f = self._normalize_branch(e.true_branch), self._normalize_branch(e.false_branch)
            out = replace(e, cond=cond, true_branch=t, false_branch=f)
            if out.struct_info_or_none() is None:
                out._set_struct_info(struct_info_lca(t.struct_info, f.struct_info))
            return out
        if isinstance(e, Function):
            body = self._normalize_branch(e.body)
            if not isinstance(body, SeqExpr):
                body = SeqExpr([], body)
            return e if body is e.body else Function(e.params, body, e.ret_struct_info, e.is_pure, e.attrs)
        raise TypeError(f"BlockBuilder.normalize: cannot normalise {type(e).__name__}")

    def _normalize_branch(self, e) -> Expr:
        """Normalise a nested scope (if branch, function body) into a SeqExpr of its own."""
        self.begin_scope()
        try:
            body = self._normalize(e) if isinstance(e, SeqExpr) else self._normalize_arg(e)
            self._close_block()
            blocks = self._blocks
        finally:
            self.end_scope()
        if not blocks:
            return body
        if isinstance(body, SeqExpr):
            return SeqExpr(blocks + list(body.blocks), body.body)
        return SeqExpr(blocks, body)

    def _normalize_seq(self, seq: SeqExpr) -> SeqExpr:
        self.begin_scope()
        try:
            blocks = []
            for block in seq.blocks:
                self._is_dataflow = isinstance(block, DataflowBlock)
                for b in block.bindings:
                    value = self._normalize(b.value)
                    self._push(b if value is b.value else replace(b, value=value))
                self._close_block()
            self._is_dataflow = False
            body = self._normalize_arg(seq.body)  # a non-leaf body becomes a binding (A-normal form)
            self._close_block()
            blocks = self._blocks
        finally:
            self.end_scope()
        if len(blocks) == len(seq.blocks) and all(
            len(a.bindings) == len(b.bindings) and all(x is y for x, y in zip(a.bindings, b.bindings))
            for a, b in zip(blocks, seq.blocks)
        ) and body is seq.body and seq.struct_info_or_none() is not None:
            return seq
        return SeqExpr(blocks, body)

    def _normalize_call(self, call: Call) -> Call:
        args = tuple(self._normalize_arg(a) for a in call.args)
        op = call.op if isinstance(call.op, Op | GlobalVar) else self._normalize_arg(call.op)
        out = call
        if any(a is not b for a, b in zip(args, call.args)) or op is not call.op:
            out = Call(op, args, call.attrs, call.sinfo_args)
        if out.struct_info_or_none() is None:
            out._set_struct_info(self.infer_call(out))
        return out

    def infer_call(self, call: Call) -> StructInfo:
        """The struct info a call produces (operator rule, callee signature, or sinfo_args)."""
        op = call.op
        if isinstance(op, Op):
            rule = op.get_attr("FInferStructInfo")
            if rule is None:
                raise ValueError(f"operator {op.name} has no FInferStructInfo rule")
            try:
                return rule(call, self)
            except TVMError:
                raise
            except TypeError as err:  # operand kinds/dtypes: also a TVMError, as in TVM
                raise StructInfoTypeError(str(err)) from err
            except ValueError as err:  # operand shapes/values
                raise StructInfoError(str(err)) from err
        if isinstance(op, GlobalVar):
            func = self._mod.functions.get(op) if op in self._mod.functions else (
                self._mod[op.name_hint] if op.name_hint in self._mod else None
            )
            if isinstance(func, Function):
                return _call_ret(func.struct_info, call)
            ret_type = getattr(func, "ret_type", None)
            if _is_prim_func(func) and not call.sinfo_args and (ret_type is None or str(ret_type) == "void"):
                return TupleStructInfo([])  # a PrimFunc returning nothing, as TVM types it: R.Tuple()
            if ret_type is not None and str(ret_type) not in ("void", "handle") and not call.sinfo_args:
                from .struct_info import PrimStructInfo  # a PrimFunc returning a scalar (T.ret)

                return PrimStructInfo(str(ret_type))
            return call.sinfo_args[0] if call.sinfo_args else ObjectStructInfo()
        sinfo = op.struct_info
        if isinstance(sinfo, FuncStructInfo):
            if sinfo.is_opaque() and call.sinfo_args:
                return call.sinfo_args[0]
            return _call_ret(sinfo, call)
        raise TypeError(f"cannot call a value of {type(sinfo).__name__}")

    # -- TE integration ------------------------------------------------------------------
    def call_te(self, func, *args, **kwargs) -> Call:
        """Build a PrimFunc from the TE function ``func`` over ``args`` and return its call_tir."""
        from .te_bridge import call_te

        return call_te(self, func, *args, **kwargs)

    def call_te_with_grad(self, func, *args, te_grad_name: str, te_grad_kwargs=None, **kwargs) -> Call:
        """``call_te`` as a ``call_tir_with_grad`` whose gradient is the TE function registered
        as ``te_grad_name`` (see ``relax.transform.Gradient``)."""
        from .op import call_tir_with_grad

        call = self.call_te(func, *args, **kwargs)
        tir_vars = call.args[2] if len(call.args) > 2 else None
        return call_tir_with_grad(call.args[0], call.args[1], call.sinfo_args, te_grad_name, te_grad_kwargs,
                                  tir_vars)

    def emit_te(self, func, *args, **kwargs) -> Var:
        """``emit(call_te(func, *args, **kwargs))``."""
        name_hint = kwargs.pop("name_hint", "")
        return self.emit(self.call_te(func, *args, **kwargs), name_hint=name_hint)


def _call_ret(sinfo: FuncStructInfo, call: Call) -> StructInfo:
    """The callee's return info with symbolic dims bound from the arguments' shapes."""
    if sinfo.derive_func is not None:
        return sinfo.derive_func(call)
    if sinfo.params is None:
        return sinfo.ret
    if len(sinfo.params) != len(call.args):
        raise ValueError(f"call expects {len(sinfo.params)} arguments, got {len(call.args)}")
    from ember.ir import Var as TirVar

    from .struct_info import shape_values

    from .struct_info import PrimStructInfo

    binding: dict = {}
    for p, a in zip(sinfo.params, call.args):
        a_sinfo = a.struct_info_or_none()
        if isinstance(p, PrimStructInfo) and isinstance(p.value, TirVar) and isinstance(a_sinfo, PrimStructInfo):
            if a_sinfo.value is not None and p.value not in binding:  # R.Prim(value="n") parameters
                binding[p.value] = a_sinfo.value
            continue
        pv, av = shape_values(p), shape_values(a_sinfo)
        if pv is None or av is None or len(pv) != len(av):
            continue
        for d, v in zip(pv, av):
            if isinstance(d, TirVar) and d not in binding:
                binding[d] = v
    if not binding:
        return sinfo.ret
    from .struct_info_subst import substitute_sinfo

    return substitute_sinfo(sinfo.ret, binding)


def _check_dataflow_vars_stay_home(blocks) -> None:
    """A DataflowVar used outside a dataflow block (an inlined SeqExpr can do that) is an error."""
    from .analysis.vars import free_vars

    for block in blocks:
        if isinstance(block, DataflowBlock):
            continue
        for binding in block.bindings:
            local = [v.name_hint for v in free_vars(binding.value) if isinstance(v, DataflowVar)]
            if local:
                raise TVMError(f"Malformed AST: the binding of {binding.var.name_hint!r} outside a dataflow "
                               f"block uses the dataflow variables {local}")


def _is_prim_func(func) -> bool:
    from ember.tir import PrimFunc

    return isinstance(func, PrimFunc)
