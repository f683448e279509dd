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

Each transform is two matrix products, written as separate stages so that every value is
computed once: the input transform loads the (padded) tile, takes the row combinations
``R = d Bᵀ`` and then the column ones ``V = Bᵀ R``; the output transform takes ``P = M Aᵀ``
and then ``Aᵀ P``.  A stage's element is the combination for its position along one axis,
constants folded (zero terms dropped, ±1 as add/subtract), picked by a short Select chain on
that position; once a schedule unrolls the position loops (``ember.dlight.cpu.WinogradTransform``)
each chain folds to its one arm.  The blocks carry the annotation ``winograd`` ("input_tile",
"input_rows", "input"; "output_rows", "output") that the schedule rule matches.
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


def _by_position(pos, size, make):
    """``make(p)`` for the constant ``p`` equal to ``pos``: a Select chain that folds to one
    arm once ``pos`` is a constant (an unrolled loop)."""
    expr = make(size - 1)
    for p in range(size - 2, -1, -1):
        expr = tir_op.Select(pos == p, make(p), expr)
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
    shape = (_i64(alpha), _i64(alpha), _i64(n * th * tw), _i64(cblocks * cb))

    def load(i, j, t, c):  # d_t[i, j], zero in the padding and past the last row / column
        y = tir_op.floormod(tir_op.floordiv(t, _i64(tw)), _i64(th)) * _i64(m) + i - _i64(top)
        x = tir_op.floormod(t, _i64(tw)) * _i64(m) + j - _i64(left)
        inside = tir_op.all(y >= _i64(0), y < _i64(h), x >= _i64(0), x < _i64(w))
        value = data(tir_op.floordiv(t, _i64(th * tw)), tir_op.floordiv(c, _i64(cb)), y, x,
                     tir_op.floormod(c, _i64(cb)))
        return tir_op.if_then_else(inside, value, tir_const(0.0, dtype))

    tile = te.compute(shape, load, name="winograd_tile", attrs={"winograd": "input_tile"})
    rows = te.compute(shape, lambda i, nu, t, c: _by_position(
        nu, alpha, lambda b: _combine(bt[b], [tile(i, _i64(j), t, c) for j in range(alpha)], dtype)),
        name="winograd_rows", attrs={"winograd": "input_rows"})
    return te.compute(shape, lambda xi, nu, t, c: _by_position(
        xi, alpha, lambda a: _combine(bt[a], [rows(_i64(i), nu, t, c) for i in range(alpha)], dtype)),
        name="winograd_input", attrs={"winograd": "input"})


def winograd_output_transform(prod: te.Tensor, m: int, out_shape, block: int) -> te.Tensor:
    """``NCHW{block}c`` output of shape ``out_shape`` (N, K/b, OH, OW, b) from ``M`` (α, α, T, K)."""
    alpha = m + 2
    n, kblocks, oh, ow, _ = out_shape
    th, tw = -(-oh // m), -(-ow // m)
    at, _, _ = winograd_matrices(m)
    dtype = str(prod.dtype)
    rows = te.compute(
        (_i64(alpha), _i64(m), _i64(int(prod.shape[2])), _i64(int(prod.shape[3]))),
        lambda a, c, t, k: _by_position(c, m, lambda cc: _combine(at[cc], [prod(a, _i64(b), t, k) for b in range(alpha)], dtype)),
        name="winograd_out_rows", attrs={"winograd": "output_rows"})

    def f(nn_, kb, y, x, ki):
        t = (nn_ * _i64(th) + tir_op.floordiv(y, _i64(m))) * _i64(tw) + tir_op.floordiv(x, _i64(m))
        xi = tir_op.floormod(x, _i64(m))
        k = kb * _i64(block) + ki
        return _by_position(tir_op.floormod(y, _i64(m)), m,
                            lambda r: _combine(at[r], [rows(_i64(a), xi, t, k) for a in range(alpha)], dtype))

    shape = tuple(_i64(v) for v in (n, kblocks, oh, ow, block))
    return te.compute(shape, f, name="winograd_output", attrs={"winograd": "output", "winograd_m": m})
