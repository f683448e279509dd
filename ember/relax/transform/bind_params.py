"""BindParams: replace parameters of a Relax function by constants (TVM's pass).

``BindParams("main", {"w1": array, w2_var: array})`` binds parameters by name or by
``relax.Var``; the bound parameters disappear from the signature and their uses read
the constants.  Symbolic dims of a bound parameter's shape are not propagated (the
constant's shape must already satisfy the other parameters' checks).
"""

from __future__ import annotations

from ember.ir import IRModule

from ..backend.ir_util import substitute
from ..expr import Constant, Function, Var

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
        if param is None:
            unknown.append(key.name_hint if isinstance(key, Var) else key)
            continue
        mapping[param] = value if isinstance(value, Constant) else Constant(value)
    if unknown:
        raise ValueError(f"BindParams: {func_name} has no parameters {sorted(unknown)}; its parameters are "
                         f"{sorted(by_name)}")
    body = substitute(func.body, mapping)
    rest = [p for p in func.params if p not in mapping]
    out = mod.copy()
    out[func_name] = Function(rest, body, func.ret_struct_info, func.is_pure, func.attrs)
    return out


def BindParams(func_name: str, params: dict):  # noqa: N802 - TVM's pass name
    from ember.transform import module_pass

    return module_pass(lambda mod, ctx: bind_params(mod, params, func_name), opt_level=0, name="BindParams")
