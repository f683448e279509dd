"""ember.testing's TVM-style helpers: fixtures in classes, linked parameters, target
parametrisation, requirement marks, CompareBeforeAfter and assert_prim_expr_equal."""

import pytest

import ember
import ember.testing
from ember import tir
from ember.script import tir as T

module_value = ember.testing.parameter(1, 2, 3)
left, right = ember.testing.parameters((1, 2), (10, 20), (7, 14))
calls = []


@ember.testing.fixture(cache_return_value=True)
def expensive(module_value):
    calls.append(module_value)
    return module_value * 100


def test_parameter_at_module_level(module_value):
    assert module_value in (1, 2, 3)


def test_parameters_vary_together(left, right):
    assert right == 2 * left


def test_cached_fixture_computes_once_per_value(module_value, expensive):
    assert expensive == module_value * 100
    assert calls.count(module_value) == 1


class TestParameterInClass:
    dtype = ember.testing.parameter("float32", "int8", ids=["f32", "i8"])
    by_name = ember.testing.parameter(by_dict={"small": 1, "large": 1000})

    def test_values(self, dtype, by_name):
        assert dtype in ("float32", "int8")
        assert by_name in (1, 1000)


@ember.testing.parametrize_targets("llvm", "cuda")
def test_parametrize_targets_passes_target_and_device(target, dev):
    assert target == "llvm"  # cuda is skipped on a machine without a GPU
    assert dev.exist


@ember.testing.parametrize_targets
def test_parametrize_targets_bare_uses_enabled_targets(target):
    assert target in [name for name, _ in ember.testing.enabled_targets()]


@ember.testing.requires_package("a_package_that_does_not_exist")
def test_requires_package_skips_when_missing():
    raise AssertionError("must have been skipped")


@ember.testing.requires_rocm
def test_vendor_requirement_skips():
    raise AssertionError("must have been skipped")


def test_assert_prim_expr_equal():
    x = tir.Var("x", "int32")
    ember.testing.assert_prim_expr_equal(x * 2, x + x)
    with pytest.raises(ValueError, match="not provably equal"):
        ember.testing.assert_prim_expr_equal(x * 2, x + 1)


def _rename_nothing(mod):
    return mod


class TestCompareIdentity(ember.testing.CompareBeforeAfter):
    transform = staticmethod(_rename_nothing)
    size = 16

    def before(A: T.Buffer((16,), "float32")):
        for i in range(size):  # noqa: F821  (a class attribute, resolved by the parser)
            A[i] = T.float32(0)

    def expected(A: T.Buffer((16,), "float32")):
        for i in range(16):
            A[i] = T.float32(0)


class TestCompareExpectsError(ember.testing.CompareBeforeAfter):
    def transform(self):
        def fail(mod):
            raise ValueError("refused")

        return fail

    def before(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    expected = ValueError


def test_compare_before_after_parses_cases_when_a_test_runs():
    """A case that does not parse (here: a loop variable used inside a block with iterators)
    fails its own test, with the parser's message, instead of the import of the whole file."""

    class Broken(ember.testing.CompareBeforeAfter):  # class creation must not raise
        transform = staticmethod(_rename_nothing)

        def before(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(1)

        def expected(A: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("b"):
                    vi = T.axis.spatial(4, i)
                    A[vi + i - i] = T.float32(1)

    fixture = Broken.__dict__["expected"]
    with pytest.raises(Exception, match="loop variable i is used inside block 'b'"):
        getattr(fixture, "__wrapped__", fixture)(Broken())
