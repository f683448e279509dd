"""BindParams: replace parameters of a Relax function by constants (TVM's pass).

``BindParams("main", {"w1": array, w2_var: array})`` binds parameters by name or by
``relax.Var``; the bound parameters disappear from the signature and their uses read
the constants.  Symbolic dims of a bound parameter's shape take the constant's sizes
everywhere in the function (BindSymbolicVars); a constant whose shape or dtype
disagrees with its parameter is refused, naming both.
"""

from __future__ import annotations

from ember.ir import IntImm, IRModule
from ember.ir import Var as TirVar

from ..backend.ir_util import substitute
from ..expr import Constant, Function, Var
from ..struct_info import TensorStructInfo, shape_values

__all__ = ["BindParams", "bind_params"]


def bind_params(mod: IRModule, params: dict, func_name: str = "main") -> IRModule:
    """``mod`` with the parameters of ``func_name`` named in ``params`` replaced by constants."""
    func = mod[func_name]
    if not isinstance(func, Function):
        raise TypeError(f"BindParams: {func_name} must be a relax.Function, got {type(func).__name__}")
    by_name = {p.name_hint: p for p in func.params}
    mapping = {}
    unknown = []
    for key, value in params.items():
        param = key if isinstance(key, Var) and key in func.params else by_name.get(key)
        if param is None and isinstance(key, str):  # nn's param_spec says "fc1.weight" for fc1_weight
            param = by_name.get(key.replace(".", "_"))
        if param is None:
            unknown.append(key.name_hint if isinstance(key, Var) else key)
            continue
        mapping[param] = value if isinstance(value, Constant) else Constant(value)
    if unknown:
        raise ValueError(f"BindParams: {func_name} has no parameters {sorted(unknown)}; its parameters are "
                         f"{sorted(by_name)}")
    dims = _symbolic_dims(func_name, mapping)
    body = substitute(func.body, mapping)
    rest = [p for p in func.params if p not in mapping]
    new = Function(rest, body, func.ret_struct_info, func.is_pure, func.attrs)
    if dims:
        from .bind_symbolic_vars import bind_symbolic_vars

        new = bind_symbolic_vars(new, dims, mod)
    out = mod.copy()
    out[func_name] = new
    return out


def _symbolic_dims(func_name: str, mapping: dict) -> dict:
    """{tir Var: size} from the constants' shapes; checks static dims and dtypes on the way."""
    dims: dict = {}
    for param, const in mapping.items():
        sinfo, arr = param.struct_info, const.numpy()
        where = f"BindParams: {func_name} parameter {param.name_hint!r}"
        if not isinstance(sinfo, TensorStructInfo):
            continue
        if sinfo.dtype is not None and str(sinfo.dtype) != str(arr.dtype):
            raise ValueError(f"{where} has dtype {sinfo.dtype}, the bound array {arr.dtype}")
        values = shape_values(sinfo)
        if values is None:
            continue
        if len(values) != arr.ndim:
            raise ValueError(f"{where} has {len(values)} dims, the bound array shape {arr.shape}")
        for axis, (d, size) in enumerate(zip(values, arr.shape)):
            if isinstance(d, TirVar):
                if dims.setdefault(d, size) != size:
                    raise ValueError(f"{where}: {d.name} = {size} on axis {axis}, but {dims[d]} elsewhere")
            elif isinstance(d, IntImm) and d.value != size:
                raise ValueError(f"{where} has shape[{axis}] == {d.value}, the bound array {size}")
    return dims


def BindParams(func_name: str, params: dict):  # noqa: N802 - TVM's pass name
    from ember.transform import module_pass

    return module_pass(lambda mod, ctx: bind_params(mod, params, func_name), opt_level=0, name="BindParams")
