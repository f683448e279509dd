"""ONNX converters of the ``ai.onnx.ml`` domain on numeric tensors: Binarizer,
ArrayFeatureExtractor and TreeEnsemble (opset 5).

Binarizer and ArrayFeatureExtractor are a compare and a ``take``.  TreeEnsemble walks
each tree per row, a data-dependent number of steps per row, so it runs as a numpy-backed
packed function (``ember.onnx.tree_ensemble``) with the model's node tables passed as
constant tensors; the output ``[N, n_targets]`` is known at import.  String inputs (e.g.
LabelEncoder's) are not supported: ember has no string tensors.
"""

from __future__ import annotations

import numpy as np

from ember import relax
from ember.relax import op as R
from ember.runtime import register_func

from .common import dtype_of, shape_of
from .ops_elementwise import scalar
from .registry import converter

_ML = "ai.onnx.ml"
_TREES = "ember.onnx.tree_ensemble"


@converter("Binarizer", since=1, domain=_ML)
def binarizer(ctx, node, inputs, attrs):
    x = inputs[0]
    above = R.greater(x, scalar(x, attrs.get("threshold", 0.0)))
    return R.astype(above, dtype_of(x))


@converter("ArrayFeatureExtractor", since=1, domain=_ML)
def array_feature_extractor(ctx, node, inputs, attrs):
    """``x[..., indices]`` with the indices flattened; a 1-D ``x`` gives one row."""
    x, indices = inputs
    dims, idims = shape_of(x), shape_of(indices)
    if dims is None or idims is None:
        raise ctx.error("ArrayFeatureExtractor: the shapes of both inputs must be known at import")
    flat = ctx.emit(R.reshape(indices, [-1])) if len(idims) != 1 else indices
    out = ctx.emit(R.take(x, flat, axis=len(dims) - 1))
    return R.expand_dims(out, 0) if len(dims) == 1 else out


# -- TreeEnsemble -----------------------------------------------------------------------------

_LEQ, _LT, _GTE, _GT, _EQ, _NEQ, _MEMBER = range(7)


def _goes_true(mode: int, value: float, split: float, members, missing_true: bool) -> bool:
    if np.isnan(value):
        return missing_true
    if mode == _LEQ:
        return value <= split
    if mode == _LT:
        return value < split
    if mode == _GTE:
        return value >= split
    if mode == _GT:
        return value > split
    if mode == _EQ:
        return value == split
    if mode == _NEQ:
        return value != split
    return value in members


def _member_sets(modes, values) -> dict[int, set]:
    """Each BRANCH_MEMBER node's set: ``values`` holds the sets in node order, NaN-separated."""
    sets, current = [], []
    for v in values:
        if np.isnan(v):
            sets.append(set(current))
            current = []
        else:
            current.append(float(v))
    if current:
        sets.append(set(current))
    member_nodes = [i for i, m in enumerate(modes) if m == _MEMBER]
    return {node: sets[k] if k < len(sets) else set() for k, node in enumerate(member_nodes)}


@register_func(_TREES, override=True)
def _tree_ensemble(x, tables, splits, membership, leaf_weights, aggregate, post, out):
    t = tables.numpy()  # rows: feature, mode, true id, true is leaf, false id, false is leaf, missing->true
    feature, mode, true_id, true_leaf, false_id, false_leaf, missing = (t[i] for i in range(7))
    roots = [int(r) for r in t[7][t[8] == 1]] if t.shape[0] > 8 else []
    leaf_target = t[9] if t.shape[0] > 9 else None
    split = splits.numpy().astype("float64")
    sets = _member_sets(mode, membership.numpy().astype("float64"))
    weights = leaf_weights.numpy().astype("float64")
    data = x.numpy().astype("float64")
    n_targets = int(out.shape[1])
    agg = int(aggregate)
    result = np.full((data.shape[0], n_targets), np.nan)
    for r in range(data.shape[0]):
        for root in roots:
            node, leaf = root, False
            while not leaf:
                ok = _goes_true(int(mode[node]), data[r, int(feature[node])], split[node], sets.get(node, ()),
                                bool(missing[node]))
                node, leaf = (int(true_id[node]), bool(true_leaf[node])) if ok else \
                    (int(false_id[node]), bool(false_leaf[node]))
            target, w = int(leaf_target[node]), weights[node]
            prev = result[r, target]
            if np.isnan(prev):
                result[r, target] = w
            elif agg in (0, 1):
                result[r, target] = prev + w
            elif agg == 2:
                result[r, target] = min(prev, w)
            else:
                result[r, target] = max(prev, w)
    # targets no leaf reached: 0 for sums, the dtype's extreme for MIN/MAX (ONNX's reference)
    empty = {2: np.finfo(x.numpy().dtype).max, 3: np.finfo(x.numpy().dtype).min}.get(agg, 0.0)
    result = np.where(np.isnan(result), empty, result)
    if agg == 0 and roots:
        result /= len(roots)
    result = _post_transform(result, int(post))
    out.copyfrom(result.astype(str(out.dtype)))


def _post_transform(y: np.ndarray, post: int) -> np.ndarray:
    if post == 1:  # SOFTMAX
        e = np.exp(y - y.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    if post == 2:  # LOGISTIC
        return 1.0 / (1.0 + np.exp(-y))
    if post == 3:  # SOFTMAX_ZERO: zeros stay zero
        e = np.where(y == 0, 0.0, np.exp(y - y.max(axis=1, keepdims=True)))
        s = e.sum(axis=1, keepdims=True)
        return np.divide(e, s, out=np.zeros_like(e), where=s != 0)
    return y


@converter("TreeEnsemble", since=5, domain=_ML)
def tree_ensemble(ctx, node, inputs, attrs):
    x = inputs[0]
    dims = shape_of(x)
    if dims is None or len(dims) != 2:
        raise ctx.error(f"TreeEnsemble: the input must be 2-D [N, features], got {x.struct_info}")
    post = int(attrs.get("post_transform", 0))
    if post == 4:
        raise ctx.error("TreeEnsemble: post_transform PROBIT is not supported")
    n_nodes = len(attrs["nodes_featureids"])
    n_leaves = len(attrs["leaf_targetids"])
    size = max(n_nodes, n_leaves, len(attrs["tree_roots"]))

    def row(values, length):
        r = np.zeros(size, "float64")
        r[:length] = np.asarray(values, "float64").reshape(-1)[:length]
        return r

    missing = attrs.get("nodes_missing_value_tracks_true", [0] * n_nodes)
    roots = attrs["tree_roots"]
    tables = np.stack([
        row(attrs["nodes_featureids"], n_nodes), row(attrs["nodes_modes"], n_nodes),
        row(attrs["nodes_truenodeids"], n_nodes), row(attrs["nodes_trueleafs"], n_nodes),
        row(attrs["nodes_falsenodeids"], n_nodes), row(attrs["nodes_falseleafs"], n_nodes),
        row(missing, n_nodes), row(roots, len(roots)), row(np.ones(len(roots)), len(roots)),
        row(attrs["leaf_targetids"], n_leaves)])
    membership = np.asarray(attrs.get("membership_values", np.zeros(0)), "float64").reshape(-1)
    args = [x, relax.const(tables), relax.const(np.asarray(attrs["nodes_splits"], "float64").reshape(-1)),
            relax.const(membership), relax.const(np.asarray(attrs["leaf_weights"], "float64").reshape(-1)),
            relax.PrimValue(int(attrs.get("aggregate_function", 1))), relax.PrimValue(post)]
    out = relax.TensorStructInfo([dims[0], int(attrs["n_targets"])], dtype_of(x))
    return R.call_dps_packed(_TREES, args, out)
