"""detect_iter_map: fused and split index patterns, failures with reasons, normalisation."""

from __future__ import annotations

import itertools

import pytest

from ember import tir
from ember.arith import (
    Analyzer, IterMark, IterSplitExpr, IterSumExpr, detect_iter_map, evaluate, iter_map_simplify,
    normalize_iter_map_to_expr,
)
from ember.ir import Range, structural_equal

i, j, k, f, n = (tir.Var(c) for c in ("i", "j", "k", "f", "n"))


def same(a, b) -> bool:
    b = tir.const(b) if isinstance(b, int) else b
    return structural_equal(a, b, map_free_vars=False)


def _values(indices, iters):
    """Every tuple of index values over the whole input domain."""
    names = list(iters)
    out = []
    for point in itertools.product(*(range(int(r.min), int(r.min) + int(r.extent)) for r in iters.values())):
        env = dict(zip(names, point))
        out.append(tuple(evaluate(e, env) for e in indices))
    return out


def _check_normalized(indices, iters, result):
    normalized = [normalize_iter_map_to_expr(s) for s in result.indices]
    assert _values(normalized, iters) == _values(indices, iters)


@pytest.mark.parametrize("indices, iters", [
    ([(i * 8 + j) // 4, (i * 8 + j) % 4], {i: Range(0, 16), j: Range(0, 8)}),
    ([i * 8 + j], {i: Range(0, 16), j: Range(0, 8)}),
    ([f // 4, f % 4], {f: Range(0, 64)}),
    ([f // 16, f // 4 % 4, f % 4], {f: Range(0, 64)}),
    ([i, j], {i: Range(0, 4), j: Range(0, 8)}),
    ([j * 4 + i], {i: Range(0, 4), j: Range(0, 8)}),
    ([(i * 4 + j) // 2, (i * 4 + j) % 2, k], {i: Range(0, 3), j: Range(0, 4), k: Range(0, 2)}),
    ([i * 2 + j // 4, j % 4], {i: Range(0, 4), j: Range(0, 8)}),
    ([(i * 12 + j * 4 + k) // 6, (i * 12 + j * 4 + k) % 6],
     {i: Range(0, 2), j: Range(0, 3), k: Range(0, 4)}),
    ([i + 2, j * 3], {i: Range(0, 4), j: Range(0, 2)}),
])
def test_bijective_patterns(indices, iters):
    result = detect_iter_map(indices, iters, check_level="bijective")
    assert result.errors == []
    assert len(result.indices) == len(indices)
    assert all(isinstance(s, IterSumExpr) for s in result.indices)
    _check_normalized(indices, iters, result)


def test_structure_of_fused_split():
    result = detect_iter_map([(i * 8 + j) // 4], {i: Range(0, 16), j: Range(0, 8)})
    (s,) = result.indices
    (split,) = s.args
    assert isinstance(split, IterSplitExpr) and isinstance(split.source, IterMark)


def test_structure_of_single_var_split():
    result = detect_iter_map([f // 4, f % 4], {f: Range(0, 64)}, check_level="bijective")
    hi, lo = (s.args[0] for s in result.indices)
    assert hi.source is lo.source and hi.source.source is f
    assert (hi.lower_factor.value, hi.extent.value) == (4, 16)
    assert (lo.lower_factor.value, lo.extent.value) == (1, 4)


def test_fused_indices_share_one_mark():
    e = i * 8 + j
    result = detect_iter_map([e // 4 * 0 + (e // 4), e % 4], {i: Range(0, 16), j: Range(0, 8)})
    assert result.errors == []


def test_surjective_allows_unused_low_bits_but_bijective_does_not():
    iters = {f: Range(0, 16)}
    ok = detect_iter_map([f // 4], iters, check_level="surjective")
    assert ok.errors == []
    bad = detect_iter_map([f // 4], iters, check_level="bijective")
    assert bad.indices == [] and "not bijective" in bad.errors[0]


def test_bijective_needs_every_iterator():
    r = detect_iter_map([i], {i: Range(0, 4), j: Range(0, 4)}, check_level="bijective")
    assert "the iterator j is not used" in r.errors[0]
    assert detect_iter_map([i], {i: Range(0, 4), j: Range(0, 4)}).errors == []


def test_trivial_iterators_become_constants():
    r = detect_iter_map([i + j], {i: Range(0, 4), j: Range(0, 1)}, check_level="bijective")
    assert r.errors == [] and len(r.indices[0].args) == 1
    r = detect_iter_map([i + j], {i: Range(0, 4), j: Range(0, 1)}, simplify_trivial_iterators=False,
                        check_level="bijective")
    assert r.errors == [] and len(r.indices[0].args) == 1  # j*1 + i still fuses into one mark


@pytest.mark.parametrize("indices, iters, reason", [
    ([i, i], {i: Range(0, 16)}, "used twice"),
    ([i * 8 + j, j], {i: Range(0, 16), j: Range(0, 8)}, "used twice"),
    ([i * 4 + j * 3], {i: Range(0, 16), j: Range(0, 8)}, "cannot fuse"),
    ([i * j], {i: Range(0, 4), j: Range(0, 4)}, "multiplies two iterators"),
    ([i // j], {i: Range(0, 4), j: Range(1, 4)}, "divides by an iterator"),
    ([tir.min(i, 3)], {i: Range(0, 16)}, "uses a Min of iterators"),
    ([(i * 8 + j) // 4, (i * 8 + j) // 2], {i: Range(0, 16), j: Range(0, 8)}, "overlap"),
])
def test_failures_have_reasons(indices, iters, reason):
    r = detect_iter_map(indices, iters)
    assert r.indices == []
    assert len(r.errors) == 1 and reason in r.errors[0], r.errors


@pytest.mark.parametrize("indices, iters, reason", [
    ([(i * 8 + j) // 3], {i: Range(0, 16), j: Range(0, 8)}, "not a multiple of 3"),
    ([(i + 1) // 4], {i: Range(0, 16)}, "offset 1 is not a multiple of 4"),
])
def test_padding_is_surjective_not_bijective(indices, iters, reason):
    """A division that needs padding is refused for bijective maps, accepted (padded) for
    surjective ones: every quotient value is still reached."""
    r = detect_iter_map(indices, iters, check_level="bijective")
    assert r.indices == [] and reason in r.errors[0], r.errors
    r = detect_iter_map(indices, iters)
    assert r.errors == []
    hit = {evaluate(indices[0], dict(zip(iters, p)))
           for p in itertools.product(*(range(rng.extent.value) for rng in iters.values()))}
    assert len(hit) == r.indices[0].args[0].extent.value


def test_padded_digits_used_together_are_not_surjective():
    """(i + 80) // 32 and (i + 80) % 32 over i < 176: 6 * 32 pairs, 176 reached."""
    r = detect_iter_map([(i + 80) // 32, (i + 80) % 32], {i: Range(0, 176)})
    assert r.indices == [] and "padded" in r.errors[0]
    r = detect_iter_map([(i + 80) // 32], {i: Range(0, 176)})
    assert r.errors == [] and r.indices[0].args[0].extent.value == 6 and r.indices[0].base.value == 2


def test_predicate_restricts_fused_extent():
    iters = {i: Range(0, 8), j: Range(0, 4)}
    r = detect_iter_map([i * 4 + j], iters, predicate=i * 4 + j < 30, check_level="bijective")
    assert r.errors == []
    assert r.indices[0].args[0].source.extent.value == 30


def test_predicate_on_single_iterator():
    r = detect_iter_map([i], {i: Range(0, 16)}, predicate=i < 10, check_level="bijective")
    assert r.errors == [] and r.indices[0].args[0].source.extent.value == 10


def test_unsupported_predicate_is_an_error():
    r = detect_iter_map([i], {i: Range(0, 16)}, predicate=i * i < 10)
    assert "multiplies two iterators" in r.errors[0]
    r = detect_iter_map([i], {i: Range(0, 16)}, predicate=i != 3)
    assert "unsupported predicate" in r.errors[0]


def test_symbolic_extents():
    r = detect_iter_map([i * n + j], {i: Range(0, 16), j: Range(0, n)}, check_level="bijective")
    assert r.errors == []
    assert same(normalize_iter_map_to_expr(r.indices[0]), i * n + j)
    r = detect_iter_map([f // n, f % n], {f: Range(0, n * 8)}, check_level="bijective")
    assert r.errors == [], r.errors


def test_bad_arguments():
    with pytest.raises(ValueError, match="check_level must be one of 'bijective', 'surjective', 'no_check', got 'exact'"):
        detect_iter_map([i], {i: Range(0, 4)}, check_level="exact")
    with pytest.raises(TypeError, match="input_iters must map Var to Range, got Var → int"):
        detect_iter_map([i], {i: 4})


def test_no_check_skips_overlap_check():
    r = detect_iter_map([i, i], {i: Range(0, 16)}, check_level="no_check")
    assert r.errors == [] and len(r.indices) == 2


def test_normalize_passes_plain_expressions_through():
    assert normalize_iter_map_to_expr(i + 1) is not None
    e = i + 1
    assert normalize_iter_map_to_expr(e) is e


def test_iter_map_simplify():
    iters = {i: Range(0, 16), j: Range(0, 8)}
    out = iter_map_simplify([(i * 8 + j) // 8, (i * 8 + j) % 8], iters)
    assert same(out[0], i) and same(out[1], j)
    bad = [i * j]
    assert iter_map_simplify(bad, iters)[0] is bad[0]


def test_iter_map_simplify_roundtrip_values():
    iters = {i: Range(0, 4), j: Range(0, 6)}
    indices = [(i * 6 + j) // 3, (i * 6 + j) % 3]
    out = iter_map_simplify(indices, iters)
    assert _values(out, iters) == _values(indices, iters)
    ana = Analyzer()
    assert ana.simplify(out[1]) is not None


def test_nonzero_min_inputs():
    iters = {i: Range(2, 4), j: Range(0, 8)}
    indices = [i * 8 + j]
    r = detect_iter_map(indices, iters, check_level="bijective")
    assert r.errors == []
    _check_normalized(indices, iters, r)


# -- property: fuse then re-split in mixed radix is always a detected bijection -------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_EXTENTS = st.sampled_from([1, 2, 3, 4, 6, 8])


@st.composite
def fused_splits(draw):
    count = draw(st.integers(1, 3))
    extents = [draw(_EXTENTS) for _ in range(count)]
    iters = {tir.Var(f"v{k}"): Range(0, e) for k, e in enumerate(extents)}
    order = draw(st.permutations(list(iters)))
    fused, stride = tir.const(0), 1
    for v in reversed(order):
        fused = fused + v * stride if stride != 1 else fused + v
        stride *= int(iters[v].extent)
    total = stride
    divisors = [d for d in range(1, total + 1) if total % d == 0]
    inner = draw(st.sampled_from(divisors))
    outer = total // inner
    middle = draw(st.sampled_from([d for d in range(1, inner + 1) if inner % d == 0]))
    low = inner // middle
    indices = [fused // inner, fused // low % middle, fused % low]
    del outer
    return indices, iters


@settings(max_examples=60, deadline=None)
@given(fused_splits())
def test_mixed_radix_resplits_are_bijective(case):
    indices, iters = case
    r = detect_iter_map(indices, iters, check_level="bijective")
    assert r.errors == [], (indices, r.errors)
    values = _values(indices, iters)
    assert len(set(values)) == len(values)
    normalized = [normalize_iter_map_to_expr(s) for s in r.indices]
    assert _values(normalized, iters) == values


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(0, 40), st.sampled_from([2, 3, 4, 5, 8]))
def test_padded_divisions_reach_every_quotient(extent, offset, divisor):
    """``(x + offset) // d`` and ``(x + offset) % d``: when detected, the normalized sums
    give the same values and the splits' extents count exactly the values reached."""
    x = tir.Var("x")
    iters = {x: Range(0, extent)}
    for index in ((x + offset) // divisor, (x + offset) % divisor):
        r = detect_iter_map([index], iters)
        if r.errors:
            continue
        values = _values([index], iters)
        assert _values([normalize_iter_map_to_expr(r.indices[0])], iters) == values
        if r.indices[0].args and extent > 1:
            assert r.indices[0].args[0].extent.value == len(set(values))


def test_lower_bound_predicate_shifts_the_fused_mark():
    x, y = tir.Var("x"), tir.Var("y")
    iters = {x: Range(0, 13), y: Range(0, 10)}
    r = detect_iter_map([x * 10 + y], iters, predicate=tir.all(x * 10 + y > 5, x * 10 + y < 128))
    (split,) = r.indices[0].args
    assert (split.extent.value, r.indices[0].base.value) == (122, 6)
    # the normalized sum is the original index wherever the predicate holds
    for xv, yv in itertools.product(range(13), range(10)):
        if 5 < xv * 10 + yv < 128:
            env = {x: xv, y: yv}
            assert evaluate(normalize_iter_map_to_expr(r.indices[0]), env) == xv * 10 + yv


def test_bounded_sub_sum_is_reused_inside_a_larger_sum():
    i, j, k = tir.Var("i"), tir.Var("j"), tir.Var("k")
    iters = {i: Range(0, 11), j: Range(0, 5), k: Range(0, 2)}
    pred = tir.all(1 <= j * 2 + k, j * 2 + k < 9)
    r = detect_iter_map([i * 8 + j * 2 + k], iters, predicate=pred)
    (split,) = r.indices[0].args
    assert (split.extent.value, r.indices[0].base.value) == (88, 1)


def test_bounded_sum_must_appear_in_the_indices():
    i, j, k = tir.Var("i"), tir.Var("j"), tir.Var("k")
    iters = {i: Range(0, 128), j: Range(0, 128), k: Range(0, 128)}
    r = detect_iter_map([i, j, k], iters, predicate=i * 16384 + j * 128 + k < 100)
    assert r.indices == [] and "no index uses" in r.errors[0]
    # a predicate on something that is not an iterator says nothing about the map
    r = detect_iter_map([i + j], {i: Range(0, 4)}, predicate=j <= 24)
    assert r.errors == []


def test_consecutive_digits_fuse_back_to_the_iterator():
    x = tir.Var("x", "int64")
    n = tir.SizeVar("n", "int64")
    r = detect_iter_map([(x // n) * n + x % n], {x: Range(0, n * 32)})
    (split,) = r.indices[0].args
    assert split.source.source is x and structural_equal(split.extent, n * 32, map_free_vars=False)
    assert iter_map_simplify([(x // n) * n + x % n], {x: Range(0, n * 32)})[0] is x


def test_unit_iterators_keep_their_place():
    x, y, z = tir.Var("x", "int64"), tir.Var("y", "int64"), tir.Var("z", "int64")
    iters = {x: Range(0, 1), y: Range(0, 1), z: Range(0, 32)}
    out = iter_map_simplify([x + y + (z // 4) * 4 + z % 4], iters, simplify_trivial_iterators=False)
    assert structural_equal(out[0], z + x + y, map_free_vars=False)


def test_overlapped_terms_are_surjective_not_bijective():
    """i*4 + j with j < 8 reaches every value of [0, 68) once or twice."""
    iters = {i: Range(0, 16), j: Range(0, 8)}
    assert "cannot fuse" in detect_iter_map([i * 4 + j], iters, check_level="bijective").errors[0]
    r = detect_iter_map([i * 4 + j], iters)
    assert r.indices[0].args[0].extent.value == 68


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(1, 5)), min_size=2, max_size=3))
def test_detected_sums_reach_exactly_their_extent(terms):
    """Whatever sum of scaled iterators is detected (surjective), its values are exactly
    base + scale * [0, extent) and the normalized sum reproduces the index at every point."""
    vs = [tir.Var(f"t{k}") for k in range(len(terms))]
    iters = {v: Range(0, ext) for v, (_, ext) in zip(vs, terms)}
    index = vs[0] * terms[0][0]
    for v, (scale, _) in zip(vs[1:], terms[1:]):
        index = index + v * scale
    r = detect_iter_map([index], iters)
    if r.errors:
        return
    values = _values([index], iters)
    assert _values([normalize_iter_map_to_expr(r.indices[0])], iters) == values
    reached = {v[0] for v in values}
    s = r.indices[0]
    extent, scale = (s.args[0].extent.value, s.args[0].scale.value) if s.args else (1, 1)
    assert reached == {s.base.value + scale * k for k in range(extent)}
