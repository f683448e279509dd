"""Affine iterator-map detection: ``detect_iter_map``, ``normalize_iter_map_to_expr``,
``iter_map_simplify``.

Given index expressions over loop variables with known ranges, ``detect_iter_map``
rewrites each index as an ``IterSumExpr`` of splits of iterators (fusing sums such as
``i*8 + j`` into one new mark when their scales form a chain), then checks that the
splits of every iterator do not overlap and, for ``check_level="bijective"``, that they
cover every input exactly.  On failure ``.indices`` is empty and ``.errors`` says why.
Schedule primitives (split, fuse, compute_at, blockize) use this to prove that index
maps are bijective or surjective.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ember.ir import (
    Add, FloorDiv, FloorMod, IntImm, Mul, Node, PrimExpr, Range, Sub, Var, as_expr, fields_of,
)

from .analyzer import Analyzer
from .iter_map_nodes import IterMark, IterSplitExpr, IterSumExpr

__all__ = [
    "IterMapLevel", "IterMapResult", "detect_iter_map", "normalize_iter_map_to_expr",
    "iter_map_simplify",
]


class IterMapLevel(enum.IntEnum):
    """How strictly ``detect_iter_map`` checks the mapping."""

    Bijective = 0
    Surjective = 1
    NoCheck = 3


_LEVELS = {"bijective": IterMapLevel.Bijective, "surjective": IterMapLevel.Surjective,
           "no_check": IterMapLevel.NoCheck, "nocheck": IterMapLevel.NoCheck}


@dataclass
class IterMapResult:
    """``indices``: one IterSumExpr per input index (empty on failure); ``errors``: why not."""

    indices: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    padding_predicate: PrimExpr = field(default_factory=lambda: IntImm(_bool(), 0))

    def __bool__(self) -> bool:
        return not self.errors


def _bool():
    from ember.runtime.dtype import DataType

    return DataType("bool")


class _Fail(Exception):
    pass


def _level(check_level) -> IterMapLevel:
    if isinstance(check_level, IterMapLevel):
        return check_level
    if isinstance(check_level, int):
        return IterMapLevel(check_level)
    found = _LEVELS.get(str(check_level).lower())
    if found is None:
        raise ValueError(
            f"detect_iter_map: check_level must be one of 'bijective', 'surjective', 'no_check', "
            f"got {check_level!r}"
        )
    return found


def detect_iter_map(indices, input_iters: dict, predicate=True, check_level="surjective",
                    simplify_trivial_iterators: bool = True) -> IterMapResult:
    """Detect ``indices`` (PrimExprs over ``input_iters``: Var → Range) as affine iterator maps."""
    level = _level(check_level)
    for var, rng in input_iters.items():
        if not isinstance(var, Var) or not isinstance(rng, Range):
            raise TypeError(
                f"detect_iter_map: input_iters must map Var to Range, got "
                f"{type(var).__name__} → {type(rng).__name__}"
            )
    indices = [as_expr(e) for e in indices]
    first_error = None
    # as written first (keeps fused sums whole), then simplified (cancels terms, folds
    # divisions the bounds decide)
    for presimplify in (False, True):
        rw = _Rewriter(input_iters, simplify_trivial_iterators, level)
        try:
            rw.apply_predicate(as_expr(predicate))
            todo = [rw.ana.simplify(e) for e in indices] if presimplify else indices
            sums = [rw.rewrite_index(e) for e in todo]
            rw.check_constraints_used()
            if level != IterMapLevel.NoCheck:
                rw.check_mapping(sums, level)
        except _Fail as err:
            first_error = first_error or str(err)
            continue
        return IterMapResult(sums, [])
    return IterMapResult([], [first_error])


class _Rewriter:
    def __init__(self, input_iters: dict, simplify_trivial: bool, level=None):
        self.level = level
        self.lenient = False  # normalize_to_iter_sum: a split may round its extent up
        self.padded: dict[tuple, IterMark] = {}  # (split, left pad, padded extent) -> mark
        self.constraints: list = []  # (normalized args, bounded mark, offset) from predicates
        self.used_constraints: set = set()
        self.ana = Analyzer()
        self.var_map: dict[Var, IterSumExpr] = {}
        self.input_marks: dict[Var, IterMark] = {}
        self.fused: dict[tuple, IterMark] = {}
        for var, rng in input_iters.items():
            if type(rng.extent) is not IntImm:
                self.ana._assume(rng.extent >= 1)  # a loop that runs has a positive extent
            if simplify_trivial or not _is_const(rng.extent, 1):
                self.ana.bind(var, rng)
        for var, rng in input_iters.items():
            extent = self.ana.simplify(rng.extent)
            lo = self.ana.simplify(rng.min)
            if simplify_trivial and _is_const(extent, 1):
                self.var_map[var] = IterSumExpr((), lo)
                continue
            source = var if _is_const(lo, 0) else self.ana.simplify(var - lo)
            self._set_mark(var, IterMark(source, extent), lo)

    def _set_mark(self, var: Var, mark: IterMark, lo: PrimExpr) -> None:
        self.input_marks[var] = mark
        one = IntImm(mark.extent.dtype, 1)
        self.var_map[var] = IterSumExpr((IterSplitExpr(mark, one, mark.extent, one),), lo)

    # -- helpers ----------------------------------------------------------------------
    def eq(self, a: PrimExpr, b: PrimExpr) -> bool:
        if type(a) is IntImm and type(b) is IntImm:
            return a.value == b.value
        return self.ana.can_prove_equal(a, b)

    def divide(self, b: PrimExpr, a: PrimExpr) -> PrimExpr | None:
        """``b / a`` when ``a`` divides ``b`` exactly, else None."""
        if _is_const(b, 0):
            return b
        if type(a) is IntImm and type(b) is IntImm:
            if a.value != 0 and b.value % a.value == 0:
                return IntImm(b.dtype, b.value // a.value)
            return None
        q = _divide_factors(b, a)
        if q is not None:
            return self.ana.simplify(q)
        q = self.ana.simplify(FloorDiv(*_promote(b, a)))
        return q if self.eq(self.ana.simplify(Mul(*_promote(q, a))), b) else None

    def uses_iters(self, e) -> bool:
        if isinstance(e, Var):
            return e in self.var_map
        if isinstance(e, Node):
            for name in fields_of(type(e)):
                v = getattr(e, name)
                for x in v if isinstance(v, tuple) else (v,):
                    if isinstance(x, Node) and self.uses_iters(x):
                        return True
        return False

    # -- rewriting ----------------------------------------------------------------------
    def rewrite_index(self, e: PrimExpr) -> IterSumExpr:
        s = self.rewrite(e)
        if len(s.args) > 1:
            s = self.fuse(s)
        return s

    def rewrite(self, e: PrimExpr) -> IterSumExpr:
        if not self.uses_iters(e):
            return IterSumExpr((), e)
        if isinstance(e, Var):
            return self.var_map[e]
        cls = type(e)
        if cls is Add or cls is Sub:
            a, b = self.rewrite(e.a), self.rewrite(e.b)
            if cls is Sub:
                b = self.scale(b, IntImm(e.dtype, -1))
            return IterSumExpr(self.merge(a.args + b.args), self.ana.simplify(a.base + b.base))
        if cls is Mul:
            a, b = self.rewrite(e.a), self.rewrite(e.b)
            if a.args and b.args:
                raise _Fail(f"the index {e!r} multiplies two iterators; it is not affine")
            return self.scale(a, b.base) if a.args else self.scale(b, a.base)
        if cls is FloorDiv or cls is FloorMod:
            a, b = self.rewrite(e.a), self.rewrite(e.b)
            if b.args:
                raise _Fail(f"the index {e!r} divides by an iterator; it is not affine")
            d = b.base
            # a divisor known non-negative (a SizeVar, a shape) is positive: x // 0 is undefined
            if self.ana.const_int_bound(d).min_value < (0 if type(d) is not IntImm else 1):
                raise _Fail(f"the index {e!r} divides by {d!r}, which is not provably positive")
            return self.split_div(a, d, e) if cls is FloorDiv else self.split_mod(a, d, e)
        raise _Fail(f"the index {e!r} uses a {cls.__name__} of iterators, which is not affine")

    def merge(self, args: tuple) -> tuple:
        """Add up the scales of repeated splits; drop splits whose scale became 0."""
        if len(args) < 2:
            return args
        keys = self.ana._keys
        groups: dict[tuple, list] = {}
        for a in args:
            groups.setdefault((id(a.source), keys.key(a.lower_factor), keys.key(a.extent)), []).append(a)
        if all(len(g) == 1 for g in groups.values()):
            return args
        out = []
        for g in groups.values():
            scale = g[0].scale
            for a in g[1:]:
                scale = self.ana.simplify(Add(*_promote(scale, a.scale)))
            if not _is_const(scale, 0):
                a = g[0]
                out.append(IterSplitExpr(a.source, a.lower_factor, a.extent, scale))
        return tuple(out)

    def scale(self, s: IterSumExpr, k: PrimExpr) -> IterSumExpr:
        args = tuple(
            IterSplitExpr(a.source, a.lower_factor, a.extent, self.ana.simplify(Mul(*_promote(a.scale, k))))
            for a in s.args
        )
        return IterSumExpr(args, self.ana.simplify(Mul(*_promote(s.base, k))))

    def fuse(self, s: IterSumExpr) -> IterSumExpr:
        """Make ``s`` a single split of a (new or known) fused mark, keeping its base."""
        if len(s.args) <= 1:
            return s
        s = self.match_constrained(s)
        if len(s.args) <= 1:
            return s
        units = [a for a in s.args if _is_const(a.extent, 1)]  # always 0: fit anywhere
        args = [a for a in s.args if not _is_const(a.extent, 1)] or units[:1]
        units = [a for a in units if a not in args]
        base_scale = None
        for cand in args:
            if all(self.divide(a.scale, cand.scale) is not None for a in args):
                base_scale = cand.scale
                break
        if base_scale is None or self.ana.const_int_bound(base_scale).min_value <= 0:
            raise _Fail(f"cannot fuse {_show(s)}: the iterators' scales do not form a chain")
        expected = base_scale
        chain = []
        all_args = list(args)
        while args:
            hit = next((a for a in args if self.eq(a.scale, expected)), None)
            if hit is None:
                overlapped = self.fuse_overlapped(all_args, base_scale, units, s)
                if overlapped is not None:
                    return overlapped
                raise _Fail(
                    f"cannot fuse {_show(s)}: no iterator has scale {expected!r} "
                    "(the iterators overlap or leave gaps)"
                )
            args.remove(hit)
            chain.append(hit)
            expected = self.ana.simplify(Mul(*_promote(expected, hit.extent)))
        chain = self.merge_digits(chain)  # (x // n) * n + x % n is x itself
        if len(chain) == 1 and not units:
            a = chain[0]
            return IterSumExpr((IterSplitExpr(a.source, a.lower_factor, a.extent, base_scale),), s.base)
        extent = self.divide(expected, base_scale)
        one = IntImm(extent.dtype, 1)
        # unit iterators are always 0: they keep their place after the others, scale as written
        normalized = tuple(
            IterSplitExpr(a.source, a.lower_factor, a.extent, self.divide(a.scale, base_scale))
            for a in reversed(chain)
        ) + tuple(IterSplitExpr(a.source, a.lower_factor, a.extent, _or(self.divide(a.scale, base_scale), one))
                  for a in units)
        key = self.sum_key(normalized)
        mark = self.fused.get(key)
        if mark is None:
            zero = IntImm(extent.dtype, 0)
            mark = IterMark(IterSumExpr(normalized, zero), extent)
            self.fused[key] = mark
        one = IntImm(extent.dtype, 1)
        return IterSumExpr((IterSplitExpr(mark, one, mark.extent, base_scale),), s.base)

    def fuse_overlapped(self, args: list, base_scale, units: list, s: IterSumExpr):
        """For surjective maps: ``x*7 + y`` with ``y < 8`` reaches every value of
        ``[0, 22)`` although the terms overlap.  With constant scales taken smallest first,
        each scale must not exceed the values reached so far (no gap); the extent is the
        number of values reached.  None when that does not hold."""
        if self.level == IterMapLevel.Bijective or units:
            return None
        if not all(type(a.scale) is IntImm and type(a.extent) is IntImm for a in args) \
                or type(base_scale) is not IntImm:
            return None
        base = base_scale.value
        ordered = sorted(args, key=lambda a: a.scale.value)
        reach = 1
        for a in ordered:
            if a.scale.value % base or a.scale.value // base > reach:
                return None
            reach += (a.extent.value - 1) * (a.scale.value // base)
        dt = base_scale.dtype
        normalized = tuple(IterSplitExpr(a.source, a.lower_factor, a.extent, IntImm(dt, a.scale.value // base))
                           for a in reversed(ordered))
        key = self.sum_key(normalized)
        mark = self.fused.get(key)
        if mark is None:
            mark = IterMark(IterSumExpr(normalized, IntImm(dt, 0)), IntImm(dt, reach))
            self.fused[key] = mark
        return IterSumExpr((IterSplitExpr(mark, IntImm(dt, 1), mark.extent, base_scale),), s.base)

    def merge_digits(self, chain: list) -> list:
        """The chain (lowest scale first) with each run of consecutive digits of one mark,
        lowest digit first, as one split: ``x % n`` then ``x // n`` gives ``x``."""
        out = [chain[0]]
        for a in chain[1:]:
            last = out[-1]
            reach = self.ana.simplify(Mul(*_promote(last.lower_factor, last.extent)))
            if a.source is last.source and self.eq(a.lower_factor, reach):
                ext = self.ana.simplify(Mul(*_promote(last.extent, a.extent)))
                out[-1] = IterSplitExpr(last.source, last.lower_factor, ext, last.scale)
            else:
                out.append(a)
        return out

    def match_constrained(self, s: IterSumExpr) -> IterSumExpr:
        """Replace each sub-sum of ``s`` that a predicate bounded (``k * (j*2 + k2)``) by a
        split of its bounded mark, scaled by ``k``, adding the bound's offset to the base."""
        for norm, mark, offset in sorted(self.constraints, key=lambda c: -len(c[0])):
            if len(norm) > len(s.args):
                continue
            picked, factor = [], None
            for n in norm:
                hit = None
                for i, a in enumerate(s.args):
                    if i in picked or a.source is not n.source or not self.eq(a.lower_factor, n.lower_factor) \
                            or not self.eq(a.extent, n.extent):
                        continue
                    k = self.divide(a.scale, n.scale)
                    if k is not None and (factor is None or self.eq(k, factor)):
                        hit, factor = i, k
                        break
                if hit is None:
                    break
                picked.append(hit)
            if len(picked) != len(norm):
                continue
            rest = tuple(a for i, a in enumerate(s.args) if i not in picked)
            self.used_constraints.add(id(mark))
            split = IterSplitExpr(mark, IntImm(mark.extent.dtype, 1), mark.extent, factor)
            base = self.ana.simplify(s.base + offset * factor)
            return self.match_constrained(IterSumExpr(rest + (split,), base))
        return s

    def sum_key(self, args) -> tuple:
        keys = self.ana._keys
        return tuple((id(a.source), keys.key(a.lower_factor), keys.key(a.extent), keys.key(a.scale))
                     for a in args)

    def _single(self, s: IterSumExpr) -> IterSplitExpr:
        return self.fuse(s).args[0]

    def pad(self, s: IterSumExpr, d: PrimExpr, for_mod: bool = False) -> IterSumExpr | None:
        """``s`` (one split plus a constant) over a padded mark whose extent and offset are
        multiples of ``d``, as TVM pads iterators for surjective maps; None if not needed
        or not possible.  ``(x + 71) // 32`` with x < 45 is ``((x + 7) // 32) + 2`` over the
        mark ``x + 7`` of extent 64."""
        if self.level == IterMapLevel.Bijective or len(s.args) != 1:
            return None
        a = s.args[0]
        if not all(type(v) is IntImm for v in (s.base, d, a.scale, a.extent)) or a.scale.value <= 0:
            return None
        sc, dv, ext = a.scale.value, d.value, a.extent.value
        if dv % sc:
            return None
        d2 = dv // sc
        r = s.base.value % dv
        if r % sc:
            return None
        left = r // sc
        if for_mod and ext < d2:  # fewer values than residues: some remainders never occur
            return None
        padded = -(-(ext + left) // d2) * d2
        if left == 0 and padded == ext:
            return None
        dt = a.extent.dtype
        key = (id(a.source), self.ana._keys.key(a.lower_factor), ext, left, padded)
        mark = self.padded.get(key)
        if mark is None:
            inner = IterSplitExpr(a.source, a.lower_factor, a.extent, IntImm(dt, 1))
            mark = IterMark(IterSumExpr((inner,), IntImm(dt, left)), IntImm(dt, padded))
            self.padded[key] = mark
        split = IterSplitExpr(mark, IntImm(dt, 1), mark.extent, a.scale)
        return IterSumExpr((split,), IntImm(s.base.dtype, s.base.value - r))

    def split_div(self, s: IterSumExpr, d: PrimExpr, e) -> IterSumExpr:
        if not s.args:
            return IterSumExpr((), self.ana.simplify(FloorDiv(*_promote(s.base, d))))
        if len(s.args) > 1:
            s = IterSumExpr((self._single(s),), s.base)
        q_base = self.divide(s.base, d)
        padded = None
        if self.lenient and q_base is not None and self._needs_pad(s, d):
            a = s.args[0]
            d2 = self.divide(d, a.scale)
            if type(a.extent) is IntImm and type(d2) is IntImm and type(a.lower_factor) is IntImm:
                dt = d.dtype  # the index's type, as TVM builds the split
                one = IntImm(dt, 1)
                lf = IntImm(dt, a.lower_factor.value * d2.value)
                ext = IntImm(dt, -(-a.extent.value // d2.value))
                return IterSumExpr((IterSplitExpr(a.source, lf, ext, one),), q_base)
        if q_base is None or self._needs_pad(s, d):
            padded = self.pad(s, d)
        if padded is not None:
            return self.split_div(padded, d, e)
        if q_base is None:
            raise _Fail(f"cannot divide {e!r}: the offset {s.base!r} is not a multiple of {d!r}")
        a = self._single(s)
        scaled = self.divide(a.scale, d)
        if scaled is not None:
            out = IterSplitExpr(a.source, a.lower_factor, a.extent, scaled)
            return IterSumExpr((out,), q_base)
        d2 = self.divide(d, a.scale)
        if d2 is None:
            raise _Fail(f"cannot divide {e!r}: the scale {a.scale!r} and the divisor {d!r} do not divide")
        ext = self.divide(a.extent, d2)
        if ext is not None:
            one = IntImm(a.extent.dtype, 1)
            lf = self.ana.simplify(Mul(*_promote(a.lower_factor, d2)))
            return IterSumExpr((IterSplitExpr(a.source, lf, ext, one),), q_base)
        if self.ana.can_prove(a.extent <= d2):
            return IterSumExpr((), q_base)
        raise _Fail(f"cannot divide {e!r}: the extent {a.extent!r} is not a multiple of {d2!r}")

    def _needs_pad(self, s: IterSumExpr, d: PrimExpr) -> bool:
        """The single split of ``s`` neither divides by ``d`` nor fits below it."""
        a = s.args[0]
        if self.divide(a.scale, d) is not None:
            return False
        d2 = self.divide(d, a.scale)
        return d2 is not None and self.divide(a.extent, d2) is None \
            and not self.ana.can_prove(a.extent <= d2)

    def split_mod(self, s: IterSumExpr, d: PrimExpr, e) -> IterSumExpr:
        zero = IntImm(d.dtype, 0)
        if not s.args:
            return IterSumExpr((), self.ana.simplify(FloorMod(*_promote(s.base, d))))
        if len(s.args) > 1:
            s = IterSumExpr((self._single(s),), s.base)
        if self.divide(s.base, d) is None or self._needs_pad(s, d):
            padded = self.pad(s, d, for_mod=True)
            if padded is not None:
                return self.split_mod(padded, d, e)
        if self.divide(s.base, d) is None:
            raise _Fail(f"cannot take {e!r}: the offset {s.base!r} is not a multiple of {d!r}")
        a = self._single(s)
        if self.divide(a.scale, d) is not None:
            return IterSumExpr((), zero)
        d2 = self.divide(d, a.scale)
        if d2 is None:
            raise _Fail(f"cannot take {e!r}: the scale {a.scale!r} and the modulus {d!r} do not divide")
        if self.divide(a.extent, d2) is not None:
            return IterSumExpr((IterSplitExpr(a.source, a.lower_factor, d2, a.scale),), zero)
        if self.ana.can_prove(a.extent <= d2):
            return IterSumExpr((a,), zero)
        raise _Fail(f"cannot take {e!r}: the extent {a.extent!r} is not a multiple of {d2!r}")

    # -- predicate -----------------------------------------------------------------------
    def apply_predicate(self, pred: PrimExpr) -> None:
        """Bound iterators and fused sums by the conjuncts of ``pred`` (``lo <= sum < hi``),
        smaller sums first so that larger ones can use them."""
        from ember.ir import GE, GT, LE, LT, And

        bounds: dict[tuple, list] = {}  # key -> [args, lo, hi] on the value of the args
        stack = [pred]
        while stack:
            c = stack.pop()
            if type(c) is IntImm and c.value:
                continue
            if type(c) is And:
                stack += [c.a, c.b]
                continue
            cls = type(c)
            if not self.uses_iters(c):
                continue  # says nothing about the iterators
            if cls in (LT, LE, GT, GE):
                a_it, b_it = self.uses_iters(c.a), self.uses_iters(c.b)
                if a_it != b_it:
                    side, other = (c.a, c.b) if a_it else (c.b, c.a)
                    upper = (cls in (LT, LE)) == a_it  # the iterator side is bounded above
                    strict = cls in (LT, GT)
                    s = self.rewrite(side)
                    if s.args:
                        if upper:
                            lo, hi = None, other if strict else other + 1
                        else:
                            lo, hi = (other + 1 if strict else other), None
                        shift = lambda e, base=s.base: None if e is None else self.ana.simplify(e - base)  # noqa: E731
                        key = frozenset(self.sum_key(s.args))
                        entry = bounds.setdefault(key, [s.args, None, None, c])
                        entry[1] = _tighter(entry[1], shift(lo), max)
                        entry[2] = _tighter(entry[2], shift(hi), min)
                        continue
            raise _Fail(f"unsupported predicate {c!r}: expected iterator sums compared with a bound")
        for args, lo, hi, cond in sorted(bounds.values(), key=lambda e: len(e[0])):
            self.constrain(IterSumExpr(tuple(args), IntImm(args[0].scale.dtype, 0)), lo, hi, cond)
        self.used_constraints.clear()

    def check_constraints_used(self) -> None:
        """A bounded sum must appear in the indices: bounding iterators that the indices
        use separately would make the map neither surjective nor expressible."""
        for _, mark, _ in self.constraints:
            if id(mark) not in self.used_constraints:
                raise _Fail(f"the predicate bounds the sum {_show(IterSumExpr(mark.source.args, IntImm(mark.extent.dtype, 0)))}, "
                            "which no index uses whole")

    def constrain(self, s: IterSumExpr, lo, hi, cond) -> None:
        """Restrict the value of ``s`` (base 0) to ``[lo, hi)`` (None: unbounded)."""
        if len(s.args) == 1:
            a = s.args[0]
            var = next((v for v, m in self.input_marks.items() if m is a.source), None)
            if var is not None and _is_const(a.lower_factor, 1) and _is_const(a.scale, 1) \
                    and self.eq(a.extent, a.source.extent):
                base = self.var_map[var].base
                low, high = self.clip(lo, hi, base, a.source.extent)
                source = a.source.source if _is_const(low, 0) else self.ana.simplify(a.source.source - low)
                self._set_mark(var, IterMark(source, self.ana.simplify(high - low)),
                               self.ana.simplify(base + low))
                return
            raise _Fail(f"unsupported predicate {cond!r}: it bounds a part of an iterator")
        fused = self.fuse(s)
        split = fused.args[0]
        if len(fused.args) != 1 or not _is_const(split.scale, 1) or not isinstance(split.source.source, IterSumExpr):
            raise _Fail(f"unsupported predicate {cond!r}: the bounded sum is scaled")
        old = split.source
        low, high = self.clip(lo, hi, fused.base, old.extent)
        source = old.source if _is_const(low, 0) else IterSumExpr(old.source.args, self.ana.simplify(old.source.base - low))
        mark = IterMark(source, self.ana.simplify(high - low))
        self.constraints.append((old.source.args, mark, low))

    def clip(self, lo, hi, base, extent):
        """``[lo, hi)`` on a value ``mark + base`` as a range of the mark within ``[0, extent)``."""
        zero = IntImm(extent.dtype, 0)
        low = zero if lo is None else _tighter(zero, self.ana.simplify(lo - base), max)
        high = extent if hi is None else _tighter(extent, self.ana.simplify(hi - base), min)
        return low, high

    # -- checking ------------------------------------------------------------------------
    def check_mapping(self, sums: list, level: IterMapLevel) -> None:
        uses: dict[int, tuple] = {}

        def visit(split: IterSplitExpr):
            mark = split.source
            entry = uses.get(id(mark))
            if entry is None:
                entry = (mark, [])
                uses[id(mark)] = entry
                if isinstance(mark.source, IterSumExpr):
                    for inner in mark.source.args:
                        visit(inner)
            entry[1].append(split)

        for s in sums:
            for a in s.args:
                visit(a)
        for mark, splits in uses.values():
            self.check_mark(mark, splits, level)
        self.check_padding(sums, uses)
        if level == IterMapLevel.Bijective:
            for var, mark in self.input_marks.items():
                if id(mark) not in uses and not _is_const(mark.extent, 1):  # unit loops: always 0
                    raise _Fail(f"the iterator {var.name} is not used by any index; the map is not bijective")

    def check_padding(self, sums: list, uses: dict) -> None:
        """A padded mark whose every digit reaches an output makes the padding visible:
        some combinations of output values are never produced, so the map is not
        surjective.  A digit reaches an output when it is an output's split or a part of a
        mark whose digits all reach outputs."""
        padded = {id(m) for m in self.padded.values()}
        if not padded:
            return
        direct = {id(a) for s in sums for a in s.args}
        parent: dict[int, IterMark] = {}  # split id -> the mark whose source sum holds it
        for mark, _ in uses.values():
            if isinstance(mark.source, IterSumExpr):
                for a in mark.source.args:
                    parent[id(a)] = mark
        memo: dict[int, bool] = {}

        def full(mark: IterMark) -> bool:
            if id(mark) not in memo:
                memo[id(mark)] = False
                splits = uses[id(mark)][1]
                covered = IntImm(mark.extent.dtype, 1)
                for a in sorted(splits, key=lambda a: a.lower_factor.value
                                if type(a.lower_factor) is IntImm else 0):
                    if not self.eq(a.lower_factor, covered):
                        break
                    covered = self.ana.simplify(Mul(*_promote(a.lower_factor, a.extent)))
                complete = self.eq(covered, mark.extent)
                memo[id(mark)] = complete and all(
                    id(a) in direct or (id(a) in parent and full(parent[id(a)])) for a in splits
                )
            return memo[id(mark)]

        for mark, _ in uses.values():
            if id(mark) in padded and full(mark):
                raise _Fail(f"the padded iterator {_name(mark)} is used whole; the map is not surjective")

    def check_mark(self, mark: IterMark, splits: list, level: IterMapLevel) -> None:
        expected = IntImm(mark.extent.dtype, 1)
        remaining = list(splits)
        while remaining:
            hits = [a for a in remaining if self.eq(a.lower_factor, expected)]
            if len(hits) > 1:
                raise _Fail(f"the iterator {_name(mark)} is used twice at the same position; indices overlap")
            if not hits:
                if level == IterMapLevel.Bijective:
                    raise _Fail(f"the splits of {_name(mark)} leave a gap at factor {expected!r}; "
                                "the map is not bijective")
                hit = self.next_split(remaining, expected, mark)
            else:
                hit = hits[0]
            remaining.remove(hit)
            expected = self.ana.simplify(Mul(*_promote(hit.lower_factor, hit.extent)))
        if self.eq(expected, mark.extent):
            return
        if level == IterMapLevel.Bijective:
            raise _Fail(f"the splits of {_name(mark)} cover {expected!r} of its extent {mark.extent!r}; "
                        "the map is not bijective")
        if self.divide(mark.extent, expected) is None:
            raise _Fail(f"the splits of {_name(mark)} do not divide its extent {mark.extent!r}")

    def next_split(self, remaining: list, expected: PrimExpr, mark: IterMark) -> IterSplitExpr:
        """The split with the smallest lower factor above ``expected`` (a gap is allowed)."""
        cands = [a for a in remaining if type(a.lower_factor) is IntImm]
        if type(expected) is not IntImm or len(cands) != len(remaining):
            raise _Fail(f"cannot order the splits of {_name(mark)} with symbolic factors")
        hit = min(cands, key=lambda a: a.lower_factor.value)
        if hit.lower_factor.value < expected.value or hit.lower_factor.value % expected.value:
            raise _Fail(f"the splits of {_name(mark)} overlap; indices are not independent")
        return hit


def _factors(e: PrimExpr) -> tuple[int, list]:
    """``e`` as a constant times a list of symbolic factors (a product tree flattened)."""
    if type(e) is IntImm:
        return e.value, []
    if type(e) is Mul:
        ca, fa = _factors(e.a)
        cb, fb = _factors(e.b)
        return ca * cb, fa + fb
    return 1, [e]


def _divide_factors(b: PrimExpr, a: PrimExpr) -> PrimExpr | None:
    """``b / a`` when every factor of the product ``a`` appears in the product ``b``."""
    from ember.ir import structural_equal

    cb, fb = _factors(b)
    ca, fa = _factors(a)
    if ca == 0 or cb % ca or not fa:
        return None
    rest = list(fb)
    for f in fa:
        hit = next((i for i, g in enumerate(rest) if structural_equal(f, g, map_free_vars=False)), None)
        if hit is None:
            return None
        rest.pop(hit)
    out = IntImm(b.dtype, cb // ca)
    for f in rest:
        out = f if _is_const(out, 1) else Mul(*_promote(out, f))
    return out


def _tighter(old, new, pick):
    """The tighter of two bounds (``pick`` is max for lower bounds, min for upper ones);
    when one is symbolic the newer one (the predicate's) wins."""
    if old is None:
        return new
    if new is None:
        return old
    if type(old) is IntImm and type(new) is IntImm:
        return IntImm(old.dtype, pick(old.value, new.value))
    return new


def _or(value, default):
    return default if value is None else value


def _is_const(e, value: int) -> bool:
    return type(e) is IntImm and e.value == value


def _promote(a, b):
    from ember.ir import promote

    return promote(a, b)


def _name(mark: IterMark) -> str:
    src = mark.source
    if isinstance(src, Var):
        return src.name
    if isinstance(src, IterSumExpr):
        return "fused(" + ", ".join(_name(a.source) for a in src.args) + ")"
    return repr(src)


def _show(s: IterSumExpr) -> str:
    try:
        return repr(normalize_iter_map_to_expr(s))
    except Exception:  # noqa: BLE001 - only for messages
        return repr(s)


# -- back to expressions ---------------------------------------------------------------

def normalize_iter_map_to_expr(expr) -> PrimExpr:
    """The plain PrimExpr of an IterSumExpr / IterSplitExpr (other expressions unchanged)."""
    if isinstance(expr, IterSumExpr):
        out = None
        for a in expr.args:
            t = normalize_iter_map_to_expr(a)
            out = t if out is None else Add(*_promote(out, t))
        if out is None:
            return expr.base
        if _is_const(expr.base, 0):
            return out
        return Add(*_promote(out, expr.base))
    if isinstance(expr, IterSplitExpr):
        mark = expr.source
        value = normalize_iter_map_to_expr(mark.source)
        if not _is_const(expr.lower_factor, 1):
            value = FloorDiv(*_promote(value, expr.lower_factor))
        covers_top = _covers_top(expr, mark)
        if not covers_top:
            value = FloorMod(*_promote(value, expr.extent))
        if not _is_const(expr.scale, 1):
            value = Mul(*_promote(value, expr.scale))
        return value
    return expr


def _covers_top(split: IterSplitExpr, mark: IterMark) -> bool:
    lf, ext, total = split.lower_factor, split.extent, mark.extent
    if type(lf) is IntImm and type(ext) is IntImm and type(total) is IntImm:
        return lf.value * ext.value == total.value
    return Analyzer().can_prove_equal(lf * ext, total)


def iter_map_simplify(indices, input_iters: dict, predicate=True, check_level="surjective",
                      simplify_trivial_iterators: bool = True) -> list:
    """Simplify ``indices`` through iterator-map detection; unchanged when detection fails."""
    result = detect_iter_map(indices, input_iters, predicate, check_level, simplify_trivial_iterators)
    if result.errors:
        return list(indices)
    ana = Analyzer()
    for var, rng in input_iters.items():
        if simplify_trivial_iterators or not _is_const(rng.extent, 1):  # else keep unit loops
            ana.bind(var, rng)
    return [ana.simplify(normalize_iter_map_to_expr(s)) for s in result.indices]
