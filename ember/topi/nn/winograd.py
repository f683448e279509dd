"""Winograd minimal filtering F(m×m, 3×3) for channel-blocked 2-D convolutions.

``winograd_matrices(m, r)`` builds the three matrices of the 1-D algorithm F(m, r) from
``α - 1 = m + r - 2`` interpolation points plus the point at infinity (Toom-Cook, as in
Lavin & Gray 2015): with ``y = Aᵀ[(G g) ⊙ (Bᵀ d)]`` the ``m`` outputs of correlating the
``α`` inputs ``d`` with the ``r`` taps ``g``.  The 2-D algorithm nests it:
``Y = Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A`` per ``α×α`` input tile (tiles overlap by ``r - 1``).

The compute pieces for ``NCHW{b}c`` data:

* ``winograd_input_transform``: ``V[ξ, ν, t, c] = Σ_ij Bᵀ[ξ,i] d_t[i,j] Bᵀ[ν,j]`` for
  each tile ``t`` (row-major over batch, tile row, tile column) and channel ``c``; the
  convolution's zero padding and the ragged last tiles read zeros.
* the product ``M[ξ, ν] = V[ξ, ν] · U[ξ, ν]`` (``α²`` GEMMs of tiles × C by C × K, an
  ordinary batched matmul);
* ``winograd_output_transform``: ``Y[n, k/b, y, x, k%b] = Σ_ξν Aᵀ[y%m, ξ] Aᵀ[x%m, ν]
  M[ξ, ν, t(y, x), k]``.

Both transforms are written, for each position of the tile, as the two matrix products
with the matrices' constants folded (zero terms dropped, ±1 as add/subtract), one Select chain
on the position choosing between them: once a schedule unrolls the position loops
(``ember.dlight.cpu.WinogradTransform``) the chain folds to one arm per position, and the
row sums shared by positions are common subexpressions the compiler computes once.  Their blocks carry the annotation ``winograd`` ("input" or
"output") that the schedule rule matches.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ember import te
from ember.tir import const as tir_const
from ember.tir import op as tir_op

__all__ = ["winograd_matrices", "winograd_points", "transform_weight", "winograd_input_transform",
           "winograd_output_transform"]


def winograd_points(count: int) -> list[Fraction]:
    """``count`` finite interpolation points: 0, 1, -1, 1/2, -1/2, 2, -2, … (small magnitudes
    and reciprocals keep the float32 error low)."""
    pts = [Fraction(0)]
    for base in (Fraction(1), Fraction(1, 2), Fraction(2), Fraction(1, 4), Fraction(4)):
        pts += [base, -base]
    if count > len(pts):
        raise ValueError(f"winograd_points: at most {len(pts)} finite points, asked for {count}")
    return pts[:count]


def _poly_mul(a: list, b: list) -> list:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def winograd_matrices(m: int, r: int = 3):
    """``(At, Bt, G)`` of F(m, r) as float64 arrays: ``At`` (m × α), ``Bt`` (α × α), ``G`` (α × r),
    ``α = m + r - 1``; exact rationals before the conversion."""
    alpha = m + r - 1
    pts = winograd_points(alpha - 1)
    n = len(pts)
    # At: column k evaluates the output polynomial at point k; the last column is infinity
    at = [[p ** i for p in pts] + [Fraction(1 if i == m - 1 else 0)] for i in range(m)]
    # G: the filter polynomial at each point, scaled by 1/Π(p_k - p_j); infinity: leading tap
    g = []
    for k, p in enumerate(pts):
        scale = Fraction(1)
        for j, q in enumerate(pts):
            if j != k:
                scale /= p - q
        g.append([scale * p ** i for i in range(r)])
    g.append([Fraction(1 if i == r - 1 else 0) for i in range(r)])
    # Bt: row k holds the coefficients of Π_{j≠k}(x - p_j) (infinity: Π_j (x - p_j)),
    # applied to the data in reverse (correlation rather than convolution)
    bt = []
    for k in range(n + 1):
        poly = [Fraction(1)]
        for j, q in enumerate(pts):
            if j != k:
                poly = _poly_mul(poly, [-q, Fraction(1)])
        poly += [Fraction(0)] * (alpha - len(poly))
        bt.append(poly)
    to_np = lambda rows: np.array([[float(v) for v in row] for row in rows])  # noqa: E731
    return to_np(at), to_np(bt), to_np(g)


def transform_weight(weight: np.ndarray, m: int) -> np.ndarray:
    """OIHW 3×3 weight ``(K, C, 3, 3)`` → ``U`` of shape ``(α, α, C, K)``: ``G g Gᵀ`` per (k, c)."""
    _, bt, g = winograd_matrices(m, weight.shape[-1])
    u = np.einsum("ai,kcij,bj->abck", g, weight.astype(np.float64), g)
    return np.ascontiguousarray(u.astype(weight.dtype))


def _combine(coefs, terms, dtype):
    """``Σ coefs[i]·terms[i]`` with zero coefficients dropped and ±1 as an add or subtract
    (exact rationals from the matrices, so the zeros are exact)."""
    total = None
    for c, e in zip(coefs, terms):
        c = float(c)
        if c == 0.0:
            continue
        if total is None:
            total = e if c == 1.0 else (-e if c == -1.0 else e * tir_const(c, dtype))
        elif c == 1.0:
            total = total + e
        elif c == -1.0:
            total = total - e
        else:
            total = total + e * tir_const(c, dtype)
    return total if total is not None else tir_const(0.0, dtype)


def _by_position(row, col, size, make):
    """``make(r, c)`` for the constant pair ``(r, c)`` equal to ``(row, col)``: a chain of
    Selects that folds to one arm once both are constants (an unrolled loop)."""
    expr = make(size - 1, size - 1)
    for r in range(size - 1, -1, -1):
        for c in range(size - 1, -1, -1):
            if (r, c) != (size - 1, size - 1):
                expr = tir_op.Select(tir_op.all(row == r, col == c), make(r, c), expr)
    return expr


def _i64(v):
    return tir_const(v, "int64")


def winograd_input_transform(data: te.Tensor, m: int, padding) -> te.Tensor:
    """``V`` of shape ``(α, α, T, C)`` from ``NCHW{b}c`` data (``padding`` = top, left, bottom, right)."""
    n, cblocks, h, w, cb = (int(d) for d in data.shape)
    top, left, bottom, right = padding
    alpha = m + 2
    th, tw = -(-(h + top + bottom - 2) // m), -(-(w + left + right - 2) // m)
    _, bt, _ = winograd_matrices(m)
    dtype = str(data.dtype)

    def f(xi, nu, t, c):
        nn_ = tir_op.floordiv(t, _i64(th * tw))
        ty = tir_op.floormod(tir_op.floordiv(t, _i64(tw)), _i64(th))
        tx = tir_op.floormod(t, _i64(tw))
        cbi, ci = tir_op.floordiv(c, _i64(cb)), tir_op.floormod(c, _i64(cb))
        loads = []
        for i in range(alpha):
            row = []
            for j in range(alpha):
                y = ty * _i64(m) + _i64(i - top)
                x = tx * _i64(m) + _i64(j - left)
                inside = tir_op.all(y >= _i64(0), y < _i64(h), x >= _i64(0), x < _i64(w))
                row.append(tir_op.if_then_else(inside, data(nn_, cbi, y, x, ci), tir_const(0.0, dtype)))
            loads.append(row)

        def arm(a, b):  # Bt[a] · d · Bt[b]ᵀ, rows first (the row sums are shared between arms)
            rows = [_combine(bt[b], loads[i], dtype) for i in range(alpha)]
            return _combine(bt[a], rows, dtype)

        return _by_position(xi, nu, alpha, arm)

    shape = (_i64(alpha), _i64(alpha), _i64(n * th * tw), _i64(cblocks * cb))
    return te.compute(shape, f, name="winograd_input", attrs={"winograd": "input"})


def winograd_output_transform(prod: te.Tensor, m: int, out_shape, block: int) -> te.Tensor:
    """``NCHW{block}c`` output of shape ``out_shape`` (N, K/b, OH, OW, b) from ``M`` (α, α, T, K)."""
    alpha = m + 2
    n, kblocks, oh, ow, _ = out_shape
    th, tw = -(-oh // m), -(-ow // m)
    at, _, _ = winograd_matrices(m)
    dtype = str(prod.dtype)

    def f(nn_, kb, y, x, ki):
        t = (nn_ * _i64(th) + tir_op.floordiv(y, _i64(m))) * _i64(tw) + tir_op.floordiv(x, _i64(m))
        yi, xi = tir_op.floormod(y, _i64(m)), tir_op.floormod(x, _i64(m))
        k = kb * _i64(block) + ki
        vals = [[prod(_i64(a), _i64(b), t, k) for b in range(alpha)] for a in range(alpha)]

        def arm(r, c):  # At[r] · M · At[c]ᵀ
            rows = [_combine(at[c], vals[a], dtype) for a in range(alpha)]
            return _combine(at[r], rows, dtype)

        return _by_position(yi, xi, m, arm)

    shape = tuple(_i64(v) for v in (n, kblocks, oh, ow, block))
    return te.compute(shape, f, name="winograd_output", attrs={"winograd": "output", "winograd_m": m})
