"""pytest fixtures the TVM way: ``parameter``, ``parameters``, ``fixture``, ``parametrize_targets``.

TVM's test files declare their parameters as fixtures bound to a name, at module level or
in a test class (``dtype = tvm.testing.parameter("float32", "int8")``), and ask for a
``target``/``dev`` pair with ``@tvm.testing.parametrize_targets("llvm", "cuda")``. The
fixtures here accept an optional leading ``self``, so the same object works in both
places; targets this machine cannot run are kept as skipped cases, never dropped.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import sys

__all__ = [
    "parameter", "parameters", "fixture", "parametrize_targets", "exclude_targets",
    "known_failing_targets",
]

_hidden_names = itertools.count()


def _param_fixture(values, ids, name=None):
    import pytest

    def value(*_self, request):
        return request.param

    if name:
        value.__name__ = name
    return pytest.fixture(params=list(values), ids=ids)(value)


def parameter(*values, ids=None, by_dict=None):
    """A fixture that takes each of ``values`` in turn; ``by_dict={id: value}`` names the cases."""
    if by_dict is not None:
        if values or ids is not None:
            raise TypeError("parameter: pass either values (and ids) or by_dict, not both")
        ids, values = list(by_dict), tuple(by_dict.values())
    if not values:
        raise ValueError("parameter: expected at least one value, got none")
    return _param_fixture(values, ids)


def parameters(*value_sets, ids=None):
    """Fixtures that vary together: ``a, b = parameters((1, 2), (3, 4))`` gives two cases.

    The returned fixtures all depend on one hidden fixture (the index of the case), which
    is placed in the namespace of the caller (module or class body) so pytest finds it.
    """
    if not value_sets:
        raise ValueError("parameters: expected at least one set of values, got none")
    widths = {len(v) for v in value_sets}
    if len(widths) != 1:
        raise ValueError(f"parameters: every set of values must have the same length, got {sorted(widths)}")
    hidden = f"_ember_parameters_{next(_hidden_names)}"
    caller = sys._getframe(1).f_locals
    caller[hidden] = _param_fixture(range(len(value_sets)), ids, name=hidden)

    import pytest

    def column(i):
        def value(*_self, **fixtures):
            return value_sets[fixtures[hidden]][i]

        value.__signature__ = inspect.Signature([
            inspect.Parameter("_self", inspect.Parameter.VAR_POSITIONAL),
            inspect.Parameter(hidden, inspect.Parameter.KEYWORD_ONLY),
        ])
        return pytest.fixture(value)

    return tuple(column(i) for i in range(widths.pop()))


def fixture(func=None, *, cache_return_value=False):
    """``pytest.fixture`` that also works on methods; ``cache_return_value`` computes a
    value once per distinct set of argument values (for expensive setups)."""
    import pytest

    def decorate(f):
        if not cache_return_value:
            return pytest.fixture(f)
        cache: dict = {}

        skip_self = next(iter(inspect.signature(f).parameters), None) == "self"

        @functools.wraps(f)
        def cached(*args, **kwargs):
            key = repr((args[1:] if skip_self else args, sorted(kwargs.items())))
            if key not in cache:
                cache[key] = f(*args, **kwargs)
            return cache[key]

        return pytest.fixture(cached)

    return decorate if func is None else decorate(func)


def _target_cases(targets, wants_dev: bool, excluded=(), failing=()):
    import pytest

    from ..runtime.device import device
    from ..target import Target

    cases = []
    for name in targets:
        kind = str(name).split()[0]
        try:
            target_kind = Target(name).kind.name
            dev = device("cpu" if target_kind in ("llvm", "c") else target_kind, 0)
            usable = dev.exist
            reason = f"target {name!r}: no such device on this machine"
        except Exception as err:  # an unknown target kind: keep the case, skipped, with why
            dev, usable, reason = None, False, f"target {name!r} is not supported by ember: {err}"
        if kind in excluded:
            usable, reason = False, f"target {name!r} is excluded by this test"
        marks = () if usable else (pytest.mark.skip(reason=reason),)
        if kind in failing:
            marks += (pytest.mark.xfail(reason=f"known failing on {name!r}", strict=False),)
        values = (name, dev) if wants_dev else (name,)
        cases.append(pytest.param(*values, id=str(name), marks=marks))
    return cases


def parametrize_targets(*args):
    """``@parametrize_targets`` or ``@parametrize_targets("llvm", "cuda")``: run the test
    once per target, passing ``target`` (and ``dev`` when the test asks for it)."""
    from .devices import enabled_targets

    def decorate(test, targets):
        import pytest

        params = inspect.signature(test).parameters
        wants_dev = "dev" in params
        names = "target,dev" if wants_dev else "target"
        cases = _target_cases(targets, wants_dev, getattr(test, "_ember_excluded_targets", ()),
                              getattr(test, "_ember_failing_targets", ()))
        return pytest.mark.parametrize(names, cases)(test)

    if len(args) == 1 and callable(args[0]):
        return decorate(args[0], [t for t, _ in enabled_targets()])
    return lambda test: decorate(test, args)


def exclude_targets(*excluded):
    """Skip the named targets of a ``parametrize_targets`` test (apply below it)."""

    def decorate(test):
        test._ember_excluded_targets = excluded
        return test

    return decorate


def known_failing_targets(*targets):
    """Expect the named targets of a ``parametrize_targets`` test to fail (apply below it)."""

    def decorate(test):
        test._ember_failing_targets = targets
        return test

    return decorate
