"""``ApplyPassToFunction``: run a pass on only the functions whose name matches a regex.

The pass sees a module holding just those functions (so references to the others dangle in
it, which passes such as DeadCodeElimination accept); its results replace the matched
functions of the original module, functions it added are added, and every other function
is kept as it was.
"""

from __future__ import annotations

import re

from .pass_infra import Pass, module_pass

__all__ = ["ApplyPassToFunction"]


def ApplyPassToFunction(transform: Pass, func_name_regex: str,  # noqa: N802 - TVM's name
                        error_if_no_function_matches_regex: bool = False) -> Pass:
    pattern = re.compile(func_name_regex)

    def run(mod, ctx):
        from ember.ir import IRModule

        matched = {gv: f for gv, f in mod.functions.items() if pattern.fullmatch(gv.name_hint)}
        if not matched:
            if error_if_no_function_matches_regex:
                raise ValueError(f"ApplyPassToFunction: no function matches the regex {func_name_regex!r} "
                                 f"(functions: {', '.join(gv.name_hint for gv in mod.functions)})")
            return mod
        result = transform(IRModule(matched, dict(mod.attrs or {})))
        produced = {gv.name_hint: (gv, f) for gv, f in result.functions.items()}
        out = {}
        for gv, f in mod.functions.items():
            if gv in matched:
                if gv.name_hint in produced:
                    new_gv, new_f = produced.pop(gv.name_hint)
                    out[new_gv] = new_f
            else:
                out[gv] = f
        out.update({gv: f for gv, f in produced.values()})
        return IRModule(out, dict(mod.attrs or {}), getattr(mod, "global_infos", None))

    return module_pass(run, opt_level=0, name="ApplyPassToFunction")
