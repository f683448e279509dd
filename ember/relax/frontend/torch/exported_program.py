"""``from_exported_program``: a ``torch.export.ExportedProgram`` → an IRModule with ``main``.

``main`` takes the user inputs (named as the program's placeholders); parameters, buffers
and lifted constants are bound as Relax constants, or — with ``keep_params_as_input`` —
become trailing parameters named after their state-dict keys (dots → ``_``) whose values
sit in the function attribute ``params`` (``num_input`` counts the user inputs).  Input
dims marked dynamic become int64 ``tir.Var``s named as torch's symbols; finite upper bounds
from ``range_constraints`` go to the attribute ``tir_var_upper_bound``.
"""

from __future__ import annotations

import numpy as np

from ember.relax.expr import Tuple, Var, const
from ember.relax.struct_info import TensorStructInfo

from . import registry
from .importer import GraphImporter, to_prim, torch_dtype

__all__ = ["from_exported_program"]


def from_exported_program(exported_program, keep_params_as_input: bool = False,
                          unwrap_unit_return_tuple: bool = False, no_bind_return_tuple: bool = False,
                          custom_convert_map: dict | None = None, run_ep_decomposition: bool = True,
                          entry: str = "from_exported_program"):
    """See module docstring; the options follow TVM's importer of the same name."""
    import torch

    if not isinstance(exported_program, torch.export.ExportedProgram):
        raise TypeError("from_exported_program: exported_program must be a torch.export.ExportedProgram, "
                        f"got {type(exported_program).__name__}")
    ep = exported_program
    if run_ep_decomposition:
        ep = ep.run_decompositions(_decomposition_table(custom_convert_map))
    importer = GraphImporter(custom_convert_map, entry)
    nodes = list(ep.graph.nodes)
    importer.check_supported(nodes)
    return _build(importer, ep, nodes, keep_params_as_input, unwrap_unit_return_tuple, no_bind_return_tuple)


def _decomposition_table(custom_convert_map: dict | None) -> dict:
    """Core-ATen decompositions, minus ops that have a converter (ours or the user's): those
    stay whole (``linear``, ``layer_norm``, ``scaled_dot_product_attention``, ``selu`` …), so
    the module keeps one Relax op where PyTorch would spell out its arithmetic."""
    import torch

    registry.load_converters()
    table = torch.export.default_decompositions()
    keep = set(registry.CONVERTERS)
    if custom_convert_map:
        user = {registry.target_key(k) if not isinstance(k, str) else k for k in custom_convert_map}
        keep |= user | {"aten." + k for k in user}
    for op in list(table):
        if str(op) in keep:
            del table[op]
    return table


def _tensor_value(ep, target: str):
    value = ep.state_dict.get(target)
    if value is None:
        value = ep.constants.get(target)
    if value is None:
        raise KeyError(f"from_exported_program: no value for parameter/buffer/constant {target!r}")
    return value


def _to_numpy(t) -> np.ndarray:
    import torch

    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _build(importer: GraphImporter, ep, nodes, keep_params, unwrap_unit, no_bind):
    import torch
    from torch.export.graph_signature import InputKind, OutputKind

    bb = importer.bb
    symbols: dict = {}
    specs = {spec.arg.name: spec for spec in ep.graph_signature.input_specs
             if hasattr(spec.arg, "name")}
    user_vars, param_vars, param_values = [], [], []
    for node in nodes:
        if node.op != "placeholder":
            continue
        spec = specs.get(node.name)
        val = node.meta.get("val")
        if spec is not None and spec.kind != InputKind.USER_INPUT:
            if spec.kind == InputKind.TOKEN:
                importer.env[node] = None
                continue
            array = _to_numpy(_tensor_value(ep, spec.target))
            if keep_params:
                name = spec.target.replace(".", "_")
                var = Var(name, TensorStructInfo(list(array.shape), str(array.dtype)))
                param_vars.append(var)
                param_values.append(array)
                importer.env[node] = var
            else:
                importer.env[node] = const(array, str(array.dtype))
            continue
        if isinstance(val, torch.Tensor):
            shape = [to_prim(d.node.expr, symbols) if isinstance(d, torch.SymInt) else int(d) for d in val.shape]
            var = Var(node.name, TensorStructInfo(shape, torch_dtype(val.dtype)))
            user_vars.append(var)
            importer.env[node] = var
        else:  # ints, floats, bools: specialised at export time
            importer.env[node] = val

    attrs = {}
    bounds = _upper_bounds(ep, symbols)
    if bounds:
        attrs["tir_var_upper_bound"] = bounds
    if keep_params:
        from ember.runtime import ndarray

        attrs["num_input"] = len(user_vars)
        attrs["params"] = [ndarray.array(a) for a in param_values]
    user_outputs = [i for i, spec in enumerate(ep.graph_signature.output_specs)
                    if spec.kind == OutputKind.USER_OUTPUT]
    with bb.function("main", user_vars + param_vars, attrs=attrs or None):
        with bb.dataflow():
            out_node = None
            for node in nodes:
                if node.op == "call_function":
                    importer.convert_node(node)
                elif node.op == "output":
                    out_node = node
                elif node.op == "get_attr":
                    importer.env[node] = const(_to_numpy(getattr(ep.graph_module, node.target)))
            results = importer.retrieve(list(out_node.args[0]))
            results = [results[i] for i in user_outputs] if len(results) == len(ep.graph_signature.output_specs) \
                else results
            output = _emit_outputs(importer, results, unwrap_unit, no_bind)
        bb.emit_func_output(output)
    return bb.get()


def _emit_outputs(importer: GraphImporter, results: list, unwrap_unit: bool, no_bind: bool):
    bb = importer.bb
    fields = [_as_expr(r) for r in results]
    if unwrap_unit and len(fields) == 1:
        return bb.emit_output(fields[0])
    if no_bind:
        return Tuple([bb.emit_output(f) for f in fields])
    return bb.emit_output(Tuple(fields))


def _as_expr(value):
    from ember.relax.expr import Expr, PrimValue

    if isinstance(value, Expr):
        return value
    if isinstance(value, list | tuple):
        return Tuple([_as_expr(v) for v in value])
    if isinstance(value, bool | int | float):
        return const(value)
    if value is None:
        return Tuple([])
    return PrimValue(value)


def _upper_bounds(ep, symbols: dict) -> dict:
    bounds = {}
    for sym, vr in ep.range_constraints.items():
        name = str(sym)
        if name not in symbols:
            continue
        if not getattr(vr.upper, "is_finite", True) or str(vr.upper) in ("oo", "int_oo"):
            continue
        try:
            upper = int(vr.upper)
        except (TypeError, ValueError, OverflowError, AttributeError):
            continue
        if upper < 2**62:
            bounds[name] = upper
    return bounds
