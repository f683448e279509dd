"""ONNX random generators: RandomNormal(Like), RandomUniform(Like), Bernoulli, Multinomial.

Each becomes a ``call_dps_packed`` to a numpy-backed generator in ``packed.py`` (TIR has
no random state).  A ``seed`` attribute seeds a fresh numpy ``RandomState(seed)`` on every
call — the generator ONNX's reference evaluator uses, so seeded nodes give its numbers —
and without one the process-wide generator is used.  ONNX Runtime's numbers differ, and
so do the stored outputs of ONNX's Bernoulli conformance cases (made by another
generator), which therefore cannot match.
"""

from __future__ import annotations

import math


from ember import relax
from ember.relax import op as R

from . import packed
from .common import ONNXImportError, dtype_of, onnx_dtype, shape_of
from .registry import converter


def _seed(attrs) -> relax.PrimValue:
    return relax.PrimValue(float(attrs["seed"]) if "seed" in attrs else math.nan)


def _dtype(attrs, default: str) -> str:
    return onnx_dtype(int(attrs["dtype"])) if "dtype" in attrs else default


def _like_shape(x, what: str):
    dims = shape_of(x)
    if dims is None:
        raise ONNXImportError(f"{what}: the input's shape must be known at import")
    return dims


def _generate(name, args, shape, dtype):
    return R.call_dps_packed(packed.NAMES[name], args, relax.TensorStructInfo(shape, dtype))


def _normal_args(attrs):
    return [relax.PrimValue(float(attrs.get("mean", 0.0))), relax.PrimValue(float(attrs.get("scale", 1.0))),
            _seed(attrs)]


def _uniform_args(attrs):
    return [relax.PrimValue(float(attrs.get("low", 0.0))), relax.PrimValue(float(attrs.get("high", 1.0))),
            _seed(attrs)]


@converter("RandomNormal", since=1)
def random_normal(ctx, node, inputs, attrs):
    return _generate("random_normal", _normal_args(attrs), [int(d) for d in attrs["shape"]],
                     _dtype(attrs, "float32"))


@converter("RandomNormalLike", since=1)
def random_normal_like(ctx, node, inputs, attrs):
    x = inputs[0]
    return _generate("random_normal", _normal_args(attrs), _like_shape(x, "RandomNormalLike"),
                     _dtype(attrs, dtype_of(x)))


@converter("RandomUniform", since=1)
def random_uniform(ctx, node, inputs, attrs):
    return _generate("random_uniform", _uniform_args(attrs), [int(d) for d in attrs["shape"]],
                     _dtype(attrs, "float32"))


@converter("RandomUniformLike", since=1)
def random_uniform_like(ctx, node, inputs, attrs):
    x = inputs[0]
    return _generate("random_uniform", _uniform_args(attrs), _like_shape(x, "RandomUniformLike"),
                     _dtype(attrs, dtype_of(x)))


@converter("Bernoulli", since=15)
def bernoulli(ctx, node, inputs, attrs):
    x = inputs[0]
    return _generate("bernoulli", [x, _seed(attrs)], _like_shape(x, "Bernoulli"), _dtype(attrs, dtype_of(x)))


@converter("Multinomial", since=7)
def multinomial(ctx, node, inputs, attrs):
    x = inputs[0]
    dims = _like_shape(x, "Multinomial")
    if len(dims) != 2:
        raise ONNXImportError(f"Multinomial: input must be 2-D [batch, classes], got rank {len(dims)}")
    n = int(attrs.get("sample_size", 1))
    return _generate("multinomial", [x, _seed(attrs)], [dims[0], n], _dtype(attrs, "int32"))


