"""Reference (numpy) semantics of ``ewise_fma``, ``unique`` and ``nonzero``.

``unique_numpy`` and ``nonzero_numpy`` are also what the legalised ops run (through the
packed functions ``relax.run.unique`` / ``relax.run.nonzero``), since their output sizes
depend on the data."""

from __future__ import annotations

import numpy as np

__all__ = ["SET_IMPLS", "unique_numpy", "nonzero_numpy"]


def unique_numpy(x, sorted_, return_index, return_inverse, return_counts, axis):
    """numpy's ``unique`` with TVM's conventions: a 0-d input counts as shape (1,); unsorted
    results keep the order of first occurrence; index arrays are int64 and 1-D."""
    x = np.asarray(x)
    if x.ndim == 0:
        x = x.reshape(1)
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                               return_counts=True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted_:
        order = np.argsort(index, kind="stable")  # unique entries by first occurrence
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        values = values[order] if axis is None else np.take(values, order, axis=axis)
        index, counts, inverse = index[order], counts[order], rank[inverse]
    extras = [a.astype("int64") for a, wanted in ((index, return_index), (inverse, return_inverse),
                                                 (counts, return_counts)) if wanted]
    return tuple([values, *extras]) if extras else values


def nonzero_numpy(x):
    """Indices of the nonzero entries, one row per dimension (a 0-d input counts as 1-D)."""
    return np.stack(np.nonzero(np.atleast_1d(x))).astype("int64")


def _unique(args, attrs):
    x, *flags = args
    sorted_, ret_index, ret_inverse, ret_counts = (bool(f) for f in flags[:4])
    axis = int(flags[4]) if len(flags) > 4 else None
    return unique_numpy(x, sorted_, ret_index, ret_inverse, ret_counts, axis)


SET_IMPLS = {
    "ewise_fma": lambda args, attrs: args[0] * args[1] + args[2],
    "unique": _unique,
    "nonzero": lambda args, attrs: nonzero_numpy(args[0]),
}
