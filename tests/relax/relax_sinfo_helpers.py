"""Short builders the Relax IR tests share: tensor struct info, typed vars, inference."""

from ember import relax


def T(shape, dtype="float32"):  # noqa: N802 - reads like R.Tensor in the tests
    return relax.TensorStructInfo(shape, dtype)


def var(name, shape, dtype="float32"):
    return relax.Var(name, T(shape, dtype))


def infer(call):
    """The struct info the BlockBuilder infers for ``call``."""
    return relax.BlockBuilder().normalize(call).struct_info
