"""``Module.export_tvm``: trace a module's methods into Relax functions of one IRModule.

For each method in the spec, a Relax function of the same name takes the user inputs
(named as the method's arguments), then — with ``debug=True`` — the effect object
``_io``, then the parameters in declaration order (dots in their names become
underscores; ``param_mode="packed"`` passes them as one tuple, ``"none"`` not at all).
The method runs on ``nn.Tensor`` wrappers of those variables inside a dataflow block;
its result is bound to ``gv`` and returned.  The function carries the attribute
``num_input`` (arguments before the parameters), as TVM's exporter sets it.
Returns ``(mod, param_spec)`` with ``param_spec = [(name, nn.spec.Tensor), …]``.
"""

from __future__ import annotations

from contextlib import contextmanager

from ember.ir import IRModule, PrimExpr
from ember.relax.block_builder import BlockBuilder
from ember.relax.expr import Expr, Tuple, TupleGetItem, Var
from ember.relax.op import null_value
from ember.relax.struct_info import ObjectStructInfo, PrimStructInfo, TensorStructInfo, TupleStructInfo

from . import spec as _spec
from .core import Module, Parameter, Tensor

__all__ = ["export"]


def export(module: Module, spec: dict, debug: bool = False) -> tuple[IRModule, list]:
    """See module docstring."""
    mspec = _spec.ModuleSpec.from_raw(spec, module)
    params = list(module.named_parameters())
    bb = BlockBuilder()
    if debug:
        _emit_initialize_effect(bb)
    for method in mspec.methods:
        _emit_method(bb, module, method, params, debug)
    param_spec = [(name, _spec.Tensor(p.shape, p.dtype)) for name, p in params]
    return bb.get(), param_spec


def _emit_initialize_effect(bb: BlockBuilder) -> None:
    with bb.function("_initialize_effect", []):
        with bb.dataflow():
            io = bb.emit(null_value(), "_io")
            out = bb.emit_output(Tuple([io]), "gv")
        bb.emit_func_output(out)


def _emit_method(bb: BlockBuilder, module: Module, method: _spec.MethodSpec, params: list, debug: bool) -> None:
    symbols = _spec.SymbolTable()
    inputs, traced_args = [], []
    for name, arg in zip(method.arg_names, method.arg_specs):
        if isinstance(arg, _spec.Int):
            value = symbols.dim(name)
            inputs.append(Var(name, PrimStructInfo(value=value)))
            traced_args.append(value)
        else:
            var = Var(name, TensorStructInfo(symbols.shape(arg.shape), arg.dtype))
            inputs.append(var)
            traced_args.append(Tensor(_expr=var))
    effects = [Var("_io", ObjectStructInfo())] if debug else []
    param_sinfo = [TensorStructInfo(symbols.shape(p.shape), p.dtype) for _, p in params]
    if method.param_mode == "plain":
        param_vars = [Var(name.replace(".", "_"), s) for (name, _), s in zip(params, param_sinfo)]
    elif method.param_mode == "packed":
        param_vars = [Var("packed_params", TupleStructInfo(param_sinfo))]
    else:
        param_vars = []
    attrs = {"num_input": len(inputs) + len(effects)}
    with bb.function(method.method_name, inputs + effects + param_vars, attrs=attrs):
        with bb.dataflow():
            if method.param_mode == "packed":
                bound = [bb.emit(TupleGetItem(param_vars[0], i), name.replace(".", "_"))
                         for i, (name, _) in enumerate(params)]
            else:
                bound = param_vars
            with _bind_parameters([p for _, p in params], bound):
                result = getattr(module, method.method_name)(*traced_args)
            output = _as_relax(result, method.method_name)
            if debug:
                output = Tuple([output, Tuple(effects)])
            gv = bb.emit_output(output, "gv")
        bb.emit_func_output(gv)


@contextmanager
def _bind_parameters(params: list[Parameter], values: list):
    """Make each Parameter stand for its function parameter while the method is traced."""
    if not values:  # param_mode="none": parameters stay unbound (using one is an error)
        yield
        return
    for p, v in zip(params, values):
        p._expr = v
    try:
        yield
    finally:
        for p in params:
            p._expr = None


def _as_relax(result, method_name: str) -> Expr:
    if isinstance(result, Tensor):
        return result._expr
    if isinstance(result, list | tuple):
        return Tuple([_as_relax(r, method_name) for r in result])
    if isinstance(result, PrimExpr | int):
        from ember.relax.expr import PrimValue

        return PrimValue(result)
    raise TypeError(
        f"export_tvm: method {method_name!r} must return nn.Tensor values (or tuples of them), "
        f"got {type(result).__name__}"
    )
