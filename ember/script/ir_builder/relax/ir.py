"""Relax frames and words of the IR builder (``ir_builder.relax``, used as ``R``).

``with R.function():`` collects ``R.arg`` parameters, ``R.func_name`` / ``R.func_attr`` /
``R.func_ret_struct_info`` declarations and the bindings ``R.emit``, ``R.emit_match_cast``
and ``R.emit_var_binding`` add; ``with R.dataflow() as df:`` opens a dataflow block whose
``R.output(...)`` variables leave it (``df.output_vars``); ``R.func_ret_value`` sets the
result.  Closing the function frame builds the ``relax.Function``.  Operators are those
of ``relax.op`` (``R.add``, ``R.call_dps_packed`` …).
"""

from __future__ import annotations

from ember.relax.op import *  # noqa: F403 - R.add, R.call_dps_packed, …

from ..base import IRBuilder, IRBuilderFrame

import builtins as _builtins  # noqa: E402

py_print = _builtins.print  # the Python builtin (relax.op's print is the Relax operator)

import ember.relax.op as _ops  # noqa: E402

_op_names = [n for n in dir(_ops) if not n.startswith("_")]
__all__ = _op_names + ["FunctionFrame", "BlockFrame", "function", "func_name", "func_attr", "func_ret_struct_info",
           "func_ret_value", "arg", "emit", "emit_match_cast", "emit_var_binding", "dataflow", "output",
           "py_print"]


class FunctionFrame(IRBuilderFrame):
    def __init__(self, is_pure: bool = True, is_private: bool = False) -> None:
        super().__init__()
        from ember import relax

        self.bb = relax.BlockBuilder()  # normalises values (struct info); bindings are ours
        self.name: str | None = None
        self.is_pure, self.is_private = is_pure, is_private
        self.params: list = []
        self.attrs: dict = {}
        self.ret_struct_info = None
        self.ret_value = None
        self.blocks: list = []
        self.bindings: list = []

    def close_block(self) -> None:
        from ember import relax

        if self.bindings:
            self.blocks.append(relax.BindingBlock(list(self.bindings)))
            self.bindings = []

    def finish(self):
        from ember import relax

        if self.ret_value is None:
            raise ValueError("R.function: set the result with R.func_ret_value(...) before the frame closes")
        self.close_block()
        body = relax.SeqExpr(list(self.blocks), self.ret_value)
        attrs = dict(self.attrs)
        if self.name is not None and not self.is_private:
            attrs.setdefault("global_symbol", self.name)
        ret = self.ret_struct_info
        if ret is None:  # the body's, with variables the parameters do not define erased
            from ember.relax.struct_info_subst import defined_tir_vars, erase_to_well_defined

            in_scope = {v: v for v in defined_tir_vars([p.struct_info for p in self.params])}
            ret = erase_to_well_defined(self.ret_value.struct_info, in_scope, {p: p for p in self.params})
        return relax.Function(list(self.params), body, ret, self.is_pure, attrs or None)


class BlockFrame(IRBuilderFrame):
    """``with R.dataflow() as df:`` — a dataflow block; ``df.output_vars`` after it closes."""

    def __init__(self) -> None:
        super().__init__()
        self.bindings: list = []
        self.output_vars: list = []

    def enter_value(self):
        _function("dataflow").close_block()
        return self

    def finish(self):
        from ember import relax

        if self.bindings:
            _function("dataflow").blocks.append(relax.DataflowBlock(list(self.bindings)))
        return None


def _function(word: str) -> FunctionFrame:
    frame = IRBuilder.current().find_frame(FunctionFrame)
    if frame is None:
        raise ValueError(f"R.{word} must be used inside `with R.function():`")
    return frame


def _block() -> BlockFrame | None:
    return IRBuilder.current().find_frame(BlockFrame)


def _bind(binding):
    block = _block()
    (block.bindings if block is not None else _function("emit").bindings).append(binding)
    return binding.var


def function(is_pure: bool = True, is_private: bool = False) -> FunctionFrame:
    return FunctionFrame(is_pure, is_private)


def func_name(name: str) -> None:
    _function("func_name").name = name


def func_attr(attrs: dict) -> None:
    _function("func_attr").attrs.update(attrs)


def func_ret_struct_info(sinfo) -> None:
    _function("func_ret_struct_info").ret_struct_info = sinfo


def func_ret_value(value) -> None:
    frame = _function("func_ret_value")
    frame.ret_value = frame.bb.normalize(value)


def arg(name: str, struct_info):
    from ember import relax

    var = relax.Var(name, struct_info)
    _function("arg").params.append(var)
    return var


def emit(value, annotate_struct_info=None):
    """Bind ``value`` to a new variable (a DataflowVar inside ``R.dataflow()``)."""
    from ember import relax

    frame = _function("emit")
    value = frame.bb.normalize(value)
    sinfo = annotate_struct_info if annotate_struct_info is not None else value.struct_info
    cls = relax.DataflowVar if _block() is not None else relax.Var
    return _bind(relax.VarBinding(cls("lv" if cls is relax.DataflowVar else "gv", sinfo), value))


def emit_match_cast(value, struct_info):
    from ember import relax

    frame = _function("emit_match_cast")
    value = frame.bb.normalize(value)
    cls = relax.DataflowVar if _block() is not None else relax.Var
    return _bind(relax.MatchCast(cls("lv", struct_info), value, struct_info))


def emit_var_binding(binding):
    return _bind(binding)


def dataflow() -> BlockFrame:
    return BlockFrame()


def output(*vars) -> None:
    """Make these dataflow variables visible after the block (their bindings get Vars)."""
    from ember import relax
    from ember.ir import replace

    block = _block()
    if block is None:
        raise ValueError("R.output must be used inside `with R.dataflow():`")
    for v in vars:
        for k, b in enumerate(block.bindings):
            if b.var is v:
                new = relax.Var(v.name_hint, v.struct_info)
                block.bindings[k] = replace(b, var=new)
                block.output_vars.append(new)
                break
        else:
            raise ValueError(f"R.output: {v!r} is not bound in this dataflow block")
