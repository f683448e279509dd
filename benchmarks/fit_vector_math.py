"""Derives the polynomial coefficients of ``ember/codegen/llvm/vector_math.py``.

Each routine reduces its argument to a short interval and evaluates a polynomial there;
the coefficients are weighted least-squares fits at 2000 Chebyshev nodes against
mpmath (40 digits), weighted for relative error (close to minimax).  Run it to print
the tables: ``python benchmarks/fit_vector_math.py``.
"""

from __future__ import annotations

import mpmath
import numpy as np

mpmath.mp.dps = 40


def chebyshev_nodes(lo: float, hi: float, n: int = 2000) -> np.ndarray:
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def fit(target, nodes, variable, degree: int, weight) -> tuple[list[float], float]:
    """Coefficients (highest power first) of a polynomial in ``variable(x)`` close to
    ``target(x)``, and the largest weighted error at the nodes."""
    g = np.array([float(target(mpmath.mpf(float(x)))) for x in nodes])
    w = np.array([float(weight(mpmath.mpf(float(x)))) for x in nodes])
    v = np.vander(variable(nodes), degree + 1)
    c, *_ = np.linalg.lstsq(v * w[:, None], g * w, rcond=None)
    err = float(np.max(np.abs(np.polyval(c, variable(nodes)) - g) * w))
    return [float(x) for x in c], err


def tables() -> dict:
    ln2 = float(np.log(2))
    ident = lambda x: x  # noqa: E731
    sq = lambda x: x * x  # noqa: E731
    return {
        # exp(r) = 1 + r + r^2 P(r), |r| <= ln2/2
        "exp": fit(lambda r: (mpmath.exp(r) - 1 - r) / r**2, chebyshev_nodes(-ln2 / 2, ln2 / 2), ident, 5,
                   lambda r: r * r / mpmath.exp(r)),
        # log(1+f) = f - f^2/2 + f^3 P(f), sqrt(1/2)-1 <= f < sqrt(2)-1
        "log": fit(lambda f: (mpmath.log1p(f) - f + f * f / 2) / f**3,
                   chebyshev_nodes(np.sqrt(0.5) - 1, np.sqrt(2) - 1), ident, 8,
                   lambda f: abs(f**3 / mpmath.log1p(f))),
        # tanh(x) = x + x^3 P(x^2), |x| < 0.625
        "tanh": fit(lambda x: (mpmath.tanh(x) - x) / x**3, chebyshev_nodes(1e-4, 0.625), sq, 4,
                    lambda x: abs(x**3 / mpmath.tanh(x))),
        # erf(x) = x P(x^2), |x| < 1
        "erf_small": fit(lambda x: mpmath.erf(x) / x, chebyshev_nodes(1e-4, 1.0), sq, 6,
                         lambda x: 1),
        # erfc(x) = exp(-x^2) R(1/x), 1 <= x <= 4
        "erfc_large": fit(lambda x: mpmath.erfc(x) * mpmath.exp(x * x), chebyshev_nodes(1.0, 4.0),
                          lambda x: 1 / x, 9, lambda x: 1 / (mpmath.erfc(x) * mpmath.exp(x * x))),
    }


if __name__ == "__main__":
    for name, (coeffs, err) in tables().items():
        print(f"{name}: max weighted error {err:.2e}")
        print("    (" + ", ".join(repr(c) for c in coeffs) + ")")
