"""ONNX TfIdfVectorizer (opset 9+) over integer tokens: n-gram counts (with skips) of a
1-D or 2-D ``[batch, tokens]`` input against the model's n-gram pool, weighted as TF,
IDF or TFIDF.

The output shape is known at import (``max(ngram_indexes) + 1`` columns); the counting
itself is a numpy-backed packed function (``ember.onnx.tfidf``), called through
``call_dps_packed``: a data-dependent hash lookup per n-gram that a tensor kernel would
express as one comparison pass per pool entry.  String pools are refused (ember has no
string tensors).
"""

from __future__ import annotations

import numpy as np

from ember import relax
from ember.relax import op as R
from ember.runtime import register_func

from .common import shape_of
from .registry import converter

_NAME = "ember.onnx.tfidf"
_MODES = ("TF", "IDF", "TFIDF")


def _pool_table(pool: list[int], counts: list[int], indexes: list[int]) -> dict[tuple, int]:
    """``{ngram tuple: output column}``: ``counts[i]`` is where the (i+1)-grams start."""
    table: dict[tuple, int] = {}
    k = 0
    bounds = list(counts) + [len(pool)]
    for n_minus_1 in range(len(counts)):
        n = n_minus_1 + 1
        start, stop = bounds[n_minus_1], bounds[n_minus_1 + 1]
        for pos in range(start, stop, n):
            table[tuple(pool[pos:pos + n])] = indexes[k]
            k += 1
    return table


def _count_row(row: np.ndarray, spec: dict, out: np.ndarray) -> None:
    table, lo, hi, max_skip = spec["table"], spec["min"], spec["max"], spec["skip"]
    tokens = [int(t) for t in row]
    size = len(tokens)
    for n in range(lo, hi + 1):
        for skip in range(0, max_skip + 1 if n > 1 else 1):  # unigrams have no gaps to skip
            step = skip + 1
            for i in range(size - (n - 1) * step):
                column = table.get(tuple(tokens[i:i + (n - 1) * step + 1:step]))
                if column is not None:
                    out[column] += 1


@register_func(_NAME, override=True)
def _tfidf(x, pool, counts, indexes, weights, lo, hi, skip, mode, out):
    """The packed function: the pool and settings arrive as constant tensors and ints."""
    idx = [int(i) for i in indexes.numpy()]
    spec = {"table": _pool_table([int(p) for p in pool.numpy()], [int(c) for c in counts.numpy()], idx),
            "min": int(lo), "max": int(hi), "skip": int(skip)}
    data = x.numpy()
    rows = data.reshape(1, -1) if data.ndim == 1 else data
    width = int(out.shape[-1])
    tally = np.zeros((rows.shape[0], width), "float64")
    for r, row in enumerate(rows):
        _count_row(row, spec, tally[r])
    if _MODES[int(mode)] == "IDF":
        tally = np.minimum(tally, 1) * weights.numpy()
    elif _MODES[int(mode)] == "TFIDF":
        tally = tally * weights.numpy()
    out.copyfrom(tally.reshape(tuple(out.shape)).astype(str(out.dtype)))


@converter("TfIdfVectorizer", since=9)
def tfidf_vectorizer(ctx, node, inputs, attrs):
    if "pool_strings" in attrs:
        raise ctx.error("TfIdfVectorizer: string pools are not supported (ember has no string tensors)")
    x = inputs[0]
    dims = shape_of(x)
    if dims is None or len(dims) not in (1, 2):
        raise ctx.error(f"TfIdfVectorizer: the input must be 1-D or 2-D, got {x.struct_info}")
    mode = attrs.get("mode", "TF")
    if mode not in _MODES:
        raise ctx.error(f"TfIdfVectorizer: mode must be TF, IDF or TFIDF, got {mode!r}")
    indexes = [int(i) for i in attrs["ngram_indexes"]]
    width = max(indexes) + 1 if indexes else 0
    weights = np.asarray(attrs.get("weights", [1.0] * len(indexes)), "float64")
    full = np.ones(width)
    full[np.asarray(indexes[:len(weights)], "int64")] = weights[:len(indexes)]
    out_shape = [width] if len(dims) == 1 else [dims[0], width]

    def vec(values, dtype):
        return relax.const(np.asarray(values, dtype).reshape(-1))

    args = [x, vec(attrs.get("pool_int64s", []), "int64"), vec(attrs["ngram_counts"], "int64"),
            vec(indexes, "int64"), vec(full, "float64"), relax.PrimValue(int(attrs["min_gram_length"])),
            relax.PrimValue(int(attrs["max_gram_length"])), relax.PrimValue(int(attrs["max_skip_count"])),
            relax.PrimValue(_MODES.index(mode))]
    return R.call_dps_packed(_NAME, args, relax.TensorStructInfo(out_shape, "float32"))
