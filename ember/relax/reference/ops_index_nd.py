"""Reference (numpy) semantics of ``relax.scatter_nd``."""

from __future__ import annotations

import numpy as np

__all__ = ["INDEX_ND_IMPLS"]

_COMBINE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _scatter_nd(args, attrs):
    data, idx, upd = args
    out = data.copy()
    for y in np.ndindex(*idx.shape[:-1]):
        target = tuple(int(v) for v in idx[y])
        if attrs.reduction == "update":
            out[target] = upd[y]
        else:
            out[target] = _COMBINE[attrs.reduction](out[target], upd[y])
    return out


INDEX_ND_IMPLS = {"scatter_nd": _scatter_nd}
