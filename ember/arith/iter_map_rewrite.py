"""The rewriter behind ``detect_iter_map``: index expressions to sums of iterator splits.

``IterMapRewriter`` turns an index over loop variables into an ``IterSumExpr``: sums and
constant multiples stay sums, ``// d`` and ``% d`` become splits (padding an iterator
whose extent or offset is not a multiple of ``d`` when the map need only be surjective),
and a sum of several splits is fused into one split of a new mark when their scales form
a chain.  An index it cannot express raises ``DetectionFailed`` with the reason.  The
predicate (``iter_map_predicate``) and the final checks (``iter_map_check``) work on the
rewriter's state; ``detect_iter_map`` (``iter_map``) drives all three.
"""

from __future__ import annotations

import enum

from ember.ir import (
    Add, FloorDiv, FloorMod, IntImm, Mul, Node, PrimExpr, Sub, Var, fields_of, promote,
)

from .analyzer import Analyzer
from .iter_map_nodes import IterMark, IterSplitExpr, IterSumExpr
from .iter_map_to_expr import normalize_iter_map_to_expr

__all__ = ["IterMapLevel", "DetectionFailed", "IterMapRewriter", "is_const", "mark_name", "show_sum"]


class IterMapLevel(enum.IntEnum):
    """How strictly ``detect_iter_map`` checks the mapping."""

    Bijective = 0
    Surjective = 1
    NoCheck = 3


class DetectionFailed(Exception):
    """An index is not an affine iterator map (the message says why)."""


class IterMapRewriter:
    """Rewrites indices over ``input_iters`` (Var → Range) as sums of iterator splits."""

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
            if simplify_trivial or not is_const(rng.extent, 1):
                self.ana.bind(var, rng)
        for var, rng in input_iters.items():
            extent = self.ana.simplify(rng.extent)
            lo = self.ana.simplify(rng.min)
            if simplify_trivial and is_const(extent, 1):
                self.var_map[var] = IterSumExpr((), lo)
                continue
            source = var if is_const(lo, 0) else self.ana.simplify(var - lo)
            self.set_mark(var, IterMark(source, extent), lo)

    def set_mark(self, var: Var, mark: IterMark, lo: PrimExpr) -> None:
        """Let ``var`` be ``lo`` plus the value of ``mark``."""
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
        if is_const(b, 0):
            return b
        if type(a) is IntImm and type(b) is IntImm:
            if a.value != 0 and b.value % a.value == 0:
                return IntImm(b.dtype, b.value // a.value)
            return None
        q = _divide_factors(b, a)
        if q is not None:
            return self.ana.simplify(q)
        q = self.ana.simplify(FloorDiv(*promote(b, a)))
        return q if self.eq(self.ana.simplify(Mul(*promote(q, a))), b) else None

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
                raise DetectionFailed(f"the index {e!r} multiplies two iterators; it is not affine")
            return self.scale(a, b.base) if a.args else self.scale(b, a.base)
        if cls is FloorDiv or cls is FloorMod:
            a, b = self.rewrite(e.a), self.rewrite(e.b)
            if b.args:
                raise DetectionFailed(f"the index {e!r} divides by an iterator; it is not affine")
            d = b.base
            # a divisor known non-negative (a SizeVar, a shape) is positive: x // 0 is undefined
            if self.ana.const_int_bound(d).min_value < (0 if type(d) is not IntImm else 1):
                raise DetectionFailed(f"the index {e!r} divides by {d!r}, which is not provably positive")
            return self.split_div(a, d, e) if cls is FloorDiv else self.split_mod(a, d, e)
        raise DetectionFailed(f"the index {e!r} uses a {cls.__name__} of iterators, which is not affine")

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
                scale = self.ana.simplify(Add(*promote(scale, a.scale)))
            if not is_const(scale, 0):
                a = g[0]
                out.append(IterSplitExpr(a.source, a.lower_factor, a.extent, scale))
        return tuple(out)

    def scale(self, s: IterSumExpr, k: PrimExpr) -> IterSumExpr:
        args = tuple(
            IterSplitExpr(a.source, a.lower_factor, a.extent, self.ana.simplify(Mul(*promote(a.scale, k))))
            for a in s.args
        )
        return IterSumExpr(args, self.ana.simplify(Mul(*promote(s.base, k))))

    def fuse(self, s: IterSumExpr) -> IterSumExpr:
        """Make ``s`` a single split of a (new or known) fused mark, keeping its base."""
        if len(s.args) <= 1:
            return s
        s = self.match_constrained(s)
        if len(s.args) <= 1:
            return s
        units = [a for a in s.args if is_const(a.extent, 1)]  # always 0: fit anywhere
        args = [a for a in s.args if not is_const(a.extent, 1)] or units[:1]
        units = [a for a in units if a not in args]
        base_scale = None
        for cand in args:
            if all(self.divide(a.scale, cand.scale) is not None for a in args):
                base_scale = cand.scale
                break
        if base_scale is None or self.ana.const_int_bound(base_scale).min_value <= 0:
            raise DetectionFailed(f"cannot fuse {show_sum(s)}: the iterators' scales do not form a chain")
        expected = base_scale
        chain = []
        all_args = list(args)
        while args:
            hit = next((a for a in args if self.eq(a.scale, expected)), None)
            if hit is None:
                overlapped = self.fuse_overlapped(all_args, base_scale, units, s)
                if overlapped is not None:
                    return overlapped
                raise DetectionFailed(
                    f"cannot fuse {show_sum(s)}: no iterator has scale {expected!r} "
                    "(the iterators overlap or leave gaps)"
                )
            args.remove(hit)
            chain.append(hit)
            expected = self.ana.simplify(Mul(*promote(expected, hit.extent)))
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
            reach = self.ana.simplify(Mul(*promote(last.lower_factor, last.extent)))
            if a.source is last.source and self.eq(a.lower_factor, reach):
                ext = self.ana.simplify(Mul(*promote(last.extent, a.extent)))
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
            return IterSumExpr((), self.ana.simplify(FloorDiv(*promote(s.base, d))))
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
            raise DetectionFailed(f"cannot divide {e!r}: the offset {s.base!r} is not a multiple of {d!r}")
        a = self._single(s)
        scaled = self.divide(a.scale, d)
        if scaled is not None:
            out = IterSplitExpr(a.source, a.lower_factor, a.extent, scaled)
            return IterSumExpr((out,), q_base)
        d2 = self.divide(d, a.scale)
        if d2 is None:
            raise DetectionFailed(f"cannot divide {e!r}: the scale {a.scale!r} and the divisor {d!r} do not divide")
        ext = self.divide(a.extent, d2)
        if ext is not None:
            one = IntImm(a.extent.dtype, 1)
            lf = self.ana.simplify(Mul(*promote(a.lower_factor, d2)))
            return IterSumExpr((IterSplitExpr(a.source, lf, ext, one),), q_base)
        if self.ana.can_prove(a.extent <= d2):
            return IterSumExpr((), q_base)
        raise DetectionFailed(f"cannot divide {e!r}: the extent {a.extent!r} is not a multiple of {d2!r}")

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
            return IterSumExpr((), self.ana.simplify(FloorMod(*promote(s.base, d))))
        if len(s.args) > 1:
            s = IterSumExpr((self._single(s),), s.base)
        if self.divide(s.base, d) is None or self._needs_pad(s, d):
            padded = self.pad(s, d, for_mod=True)
            if padded is not None:
                return self.split_mod(padded, d, e)
        if self.divide(s.base, d) is None:
            raise DetectionFailed(f"cannot take {e!r}: the offset {s.base!r} is not a multiple of {d!r}")
        a = self._single(s)
        if self.divide(a.scale, d) is not None:
            return IterSumExpr((), zero)
        d2 = self.divide(d, a.scale)
        if d2 is None:
            raise DetectionFailed(f"cannot take {e!r}: the scale {a.scale!r} and the modulus {d!r} do not divide")
        if self.divide(a.extent, d2) is not None:
            return IterSumExpr((IterSplitExpr(a.source, a.lower_factor, d2, a.scale),), zero)
        if self.ana.can_prove(a.extent <= d2):
            return IterSumExpr((a,), zero)
        raise DetectionFailed(f"cannot take {e!r}: the extent {a.extent!r} is not a multiple of {d2!r}")


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
        out = f if is_const(out, 1) else Mul(*promote(out, f))
    return out


def _or(value, default):
    return default if value is None else value


def is_const(e, value: int) -> bool:
    """``e`` is the integer constant ``value``."""
    return type(e) is IntImm and e.value == value


def mark_name(mark: IterMark) -> str:
    """A mark's name for messages: its variable, or ``fused(...)`` of its parts."""
    src = mark.source
    if isinstance(src, Var):
        return src.name
    if isinstance(src, IterSumExpr):
        return "fused(" + ", ".join(mark_name(a.source) for a in src.args) + ")"
    return repr(src)


def show_sum(s: IterSumExpr) -> str:
    """A sum as its plain expression, for messages."""
    try:
        return repr(normalize_iter_map_to_expr(s))
    except Exception:  # noqa: BLE001 - only for messages
        return repr(s)

