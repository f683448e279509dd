"""``CompareBeforeAfter``: a test class whose cases are (before, transform, expected) triples.

A subclass names three things, each a class attribute, a TVMScript function written
without a decorator, or a fixture method (a method whose first parameter is ``self``):

- ``before``: the input (PrimFunc, IRModule, or an undecorated TVMScript function);
- ``transform``: a pass, or a callable from IRModule to IRModule;
- ``expected``: the wanted output, or an exception class the transform must raise.

``Before`` and ``Expected`` (capitalised, usually ``@I.ir_module`` classes) are accepted too.

The generated ``test_compare`` applies the transform and checks the result is
structurally equal to ``expected`` (free variables mapped), reporting where they differ.
"""

from __future__ import annotations

import ast
import inspect

__all__ = ["CompareBeforeAfter"]

_CASE_NAMES = ("before", "expected", "transform")


def _is_fixture(obj) -> bool:
    return hasattr(obj, "_pytestfixturefunction") or type(obj).__name__ == "FixtureFunctionDefinition"


def _takes_self(obj) -> bool:
    try:
        first = next(iter(inspect.signature(obj).parameters), None)
    except (TypeError, ValueError):
        return False
    return first == "self"


def _class_names(cls) -> dict:
    names: dict = {}
    for klass in reversed(cls.__mro__):
        names.update(vars(klass))
    return names


def _parse_script(func, cls, kwargs=None):
    """Parse an undecorated TVMScript function found in a test class as a PrimFunc."""
    from ..script.parser.entry import _captured
    from ..script.parser.source import Source
    from ..script.parser.tir_func import parse_prim_func

    source = Source.from_object(func)
    fdef = next(node for node in source.tree.body if isinstance(node, ast.FunctionDef))
    names = {**_class_names(cls), **_captured(func, None)}
    kwargs = dict(kwargs or {})
    return parse_prim_func(source, fdef, names, private=kwargs.get("private", False),
                           check_well_formed=kwargs.get("check_well_formed", True))


def _as_fixture(cls, name, value):
    import pytest

    from ..script.parser.entry import DeferredFunction

    if _is_fixture(value):
        return value
    source = None
    if isinstance(value, DeferredFunction):
        source = (value.func, value.kwargs)
    elif inspect.isfunction(value) and _takes_self(value):
        return pytest.fixture(value)
    elif inspect.isfunction(value) and name != "transform":
        source = (value, {"check_well_formed": cls.check_well_formed})

    def constant(self):
        # parsed when a test asks for it: a case that does not parse fails that test, not the
        # whole file's import
        return value if source is None else _parse_script(source[0], cls, source[1])

    constant.__name__ = name
    return pytest.fixture(constant)


def _to_module(obj):
    from ..ir import IRModule
    from ..tir import PrimFunc

    if isinstance(obj, PrimFunc):
        return IRModule({"main": obj.with_attr("global_symbol", "main")})
    return obj


class CompareBeforeAfter:
    """Base class of before/transform/expected tests (see the module docstring)."""

    check_well_formed = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for alias, name in (("Before", "before"), ("Expected", "expected")):  # TVM accepts both spellings
            if alias in cls.__dict__ and name not in cls.__dict__:
                setattr(cls, name, cls.__dict__[alias])
        for name in _CASE_NAMES:
            if name in cls.__dict__:
                setattr(cls, name, _as_fixture(cls, name, cls.__dict__[name]))

    def test_compare(self, before, expected, transform):
        import pytest

        from ..ir import assert_structural_equal

        before_mod = _to_module(before)
        if inspect.isclass(expected) and issubclass(expected, BaseException):
            with pytest.raises(expected):
                transform(before_mod)
            return
        after = transform(before_mod)
        expected_mod = _to_module(expected)
        assert_structural_equal(_strip_symbols(after), _strip_symbols(expected_mod), map_free_vars=True)


def _strip_symbols(mod):
    """Compare modules without the functions' ``global_symbol`` (before and expected are
    parsed from differently named Python functions)."""
    from ..ir import IRModule
    from ..tir import PrimFunc

    if not isinstance(mod, IRModule):
        return mod
    out = {}
    for gv, func in mod.functions.items():
        if isinstance(func, PrimFunc) and "global_symbol" in func.attrs:
            func = func.without_attr("global_symbol")
        out[gv.name_hint] = func
    return IRModule(out)
