"""LiftTransformParams(shared_transform=...): one ``transform_params`` for several functions.

The functions taking part (every public function with ``num_input``, or the ones named, in
alphabetical order) must take the same model weights: as many, with equal struct info, or
the pass raises ``TVMError``.  Each function is planned as in the single-function pass
(``lift_transform_params._Plan``); a lifted value is shared when every function computes it
the same way from the same weights (compared structurally, weights by position).  Only the
shared values are lifted, in the order the first function computes them.  ``transform_params``
returns the weights some function still reads, then the lifted values some function reads;
every function takes exactly those after its inputs, so one call of ``transform_params``
serves all of them.
"""

from __future__ import annotations

from ember.error import TVMError
from ember.ir import GlobalVar, IRModule, structural_equal

from ..analysis.vars import free_vars
from ..expr import Function, SeqExpr, Var
from .lift_transform_params import _bindings, _main_function, _Plan, _Rename, _transform_function

__all__ = ["lift_shared"]

SHARED_NAME = "transform_params"


def _participants(mod: IRModule, names) -> list:
    chosen = []
    for gv, func in mod.functions.items():
        if not isinstance(func, Function) or (func.attrs or {}).get("num_input") is None:
            continue
        if gv.name_hint == SHARED_NAME:  # an earlier round's transform
            continue
        if names is None and "global_symbol" not in (func.attrs or {}):
            continue
        if names is not None and gv.name_hint not in names:
            continue
        chosen.append((gv, func))
    return sorted(chosen, key=lambda item: item[0].name_hint)


def _check_weights(plans: list, names: list) -> None:
    first = plans[0].weights
    for plan, name in zip(plans[1:], names[1:]):
        if len(plan.weights) != len(first):
            raise TVMError(f"LiftTransformParams(shared_transform): {name} takes {len(plan.weights)} model "
                           f"weights but {names[0]} takes {len(first)}")
        for k, (a, b) in enumerate(zip(first, plan.weights)):
            if not structural_equal(a.struct_info, b.struct_info):
                raise TVMError(f"LiftTransformParams(shared_transform): weight {k} of {name} is "
                               f"{b.struct_info} but {a.struct_info} in {names[0]}")


class _Canon:
    """Values of one function's lifted bindings with weights and earlier lifted values
    replaced by shared variables, so two functions' bindings compare structurally."""

    def __init__(self, weight_vars: list, plan: _Plan):
        self.plan = plan
        self.remap = dict(zip(plan.weights, weight_vars))

    def value(self, binding):
        rename = _Rename(self.remap)
        return rename.visit_expr(binding.value)


def _match(plans: list) -> list:
    """For each plan, a dict lifted var -> index of the first plan's lifted binding it
    computes the same value as (only those matched in every plan appear in every dict)."""
    weight_vars = [Var(f"w{k}", w.struct_info) for k, w in enumerate(plans[0].weights)]
    entries = []  # (canonical var, canonical value) per binding of the first plan
    canon0 = _Canon(weight_vars, plans[0])
    for b in _lifted_and_copied(plans[0]):
        cvar = Var(b.var.name_hint, b.var.struct_info)
        entries.append((b.var, cvar, canon0.value(b)))
        canon0.remap[b.var] = cvar
    matches = []
    for plan in plans:
        canon = _Canon(weight_vars, plan) if plan is not plans[0] else None
        found: dict = {}
        used: set = set()
        for b in _lifted_and_copied(plan):
            if canon is None:
                index = next(i for i, e in enumerate(entries) if e[0] is b.var)
            else:
                value = canon.value(b)
                index = next((i for i, e in enumerate(entries) if i not in used
                              and structural_equal(e[2], value, map_free_vars=False)), None)
                canon.remap[b.var] = entries[index][1] if index is not None else Var(b.var.name_hint, b.var.struct_info)
            if index is not None:
                used.add(index)
                found[b.var] = index
        matches.append(found)
    return matches


def _lifted_and_copied(plan: _Plan) -> list:
    keep = set(plan.lifted_vars) | plan.copied
    return [b for b in plan.bindings if b.var in keep]


def _restrict(plan: _Plan, lifted: set) -> None:
    """Keep only ``lifted`` of the plan's lifted bindings (and the weight-free ones they need)."""
    plan.lifted_bindings = [b for b in plan.lifted_bindings if b.var in lifted]
    plan.lifted_vars = [b.var for b in plan.lifted_bindings]
    by_var = {b.var: b for b in plan.bindings}
    copied, stack = set(), [u for b in plan.lifted_bindings for u in free_vars(b.value) if u in plan.copied]
    while stack:
        v = stack.pop()
        if v not in copied:
            copied.add(v)
            stack.extend(u for u in free_vars(by_var[v].value) if u in plan.copied)
    plan.copied = copied


def _reads(func: Function, lifted: set) -> set:
    read: set = set()
    for b in _bindings(func):
        if b.var not in lifted:
            read.update(free_vars(b.value))
    read.update(free_vars(func.body.body if isinstance(func.body, SeqExpr) else func.body))
    return read


def lift_shared(mod: IRModule, names, consume: bool) -> IRModule:
    """``mod`` with one shared ``transform_params`` (see the module docstring)."""
    chosen = _participants(mod, None if names is True else set(names))
    if not chosen:
        return mod
    funcs = [f for _, f in chosen]
    plans = []
    for func in funcs:
        plan = _Plan(func, int(func.attrs["num_input"]))
        plan.bindings = _bindings(func)
        plans.append(plan)
    _check_weights(plans, [gv.name_hint for gv, _ in chosen])
    matches = _match(plans)
    shared = set.intersection(*(set(m.values()) for m in matches)) if matches else set()
    entry_vars = [b.var for b in _lifted_and_copied(plans[0])]
    if SHARED_NAME in mod and not any(entry_vars[i] in plans[0].lifted_vars for i in shared):
        return mod  # lifted already: nothing more to share
    per_func = []  # entry index -> that function's var, for each function
    for plan, found in zip(plans, matches):
        mine = {i: v for v, i in found.items() if i in shared}
        _restrict(plan, {v for v in mine.values() if v in plan.lifted_vars})
        per_func.append(mine)
    read_weights, read_entries = set(), set()
    for func, plan, mine in zip(funcs, plans, per_func):
        read = _reads(func, set(plan.lifted_vars))
        read_weights.update(k for k, w in enumerate(plan.weights) if w in read)
        read_entries.update(i for i, v in mine.items() if v in read and v in plan.lifted_vars)
    order = [i for i, v in enumerate(entry_vars) if i in read_entries]
    functions = dict(mod.functions)
    for (gv, func), plan, mine in zip(chosen, plans, per_func):
        plan.outputs = [plan.weights[k] for k in sorted(read_weights)] + [mine[i] for i in order]
        functions[gv] = _main_function(func, plan, int(func.attrs["num_input"]), mod)
    transform = _transform_function(funcs[0], plans[0], mod, consume)
    out = {g: f for g, f in functions.items() if g.name_hint != SHARED_NAME}
    out[GlobalVar(SHARED_NAME)] = transform.with_attr("global_symbol", SHARED_NAME)
    return IRModule(out, dict(mod.attrs or {}), getattr(mod, "global_infos", None))
