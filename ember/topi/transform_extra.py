"""More ``topi`` transforms under TVM's names: ``tensordot``, ``meshgrid``,
``sequence_mask``, ``shape``, ``ndarray_size``, ``unravel_index``."""

from __future__ import annotations

from ember import te, tir

__all__ = ["tensordot", "meshgrid", "sequence_mask", "shape", "ndarray_size", "unravel_index"]


def tensordot(a, b, axes=2) -> te.Tensor:
    """Sum over the last ``axes`` dims of ``a`` and the first of ``b`` (or explicit lists)."""
    if isinstance(axes, int):
        a_axes = list(range(len(a.shape) - axes, len(a.shape)))
        b_axes = list(range(axes))
    else:
        a_axes, b_axes = (list(x) if isinstance(x, list | tuple) else [x] for x in axes)
    a_free = [i for i in range(len(a.shape)) if i not in a_axes]
    b_free = [i for i in range(len(b.shape)) if i not in b_axes]
    red = [te.reduce_axis((0, a.shape[i]), name=f"k{n}") for n, i in enumerate(a_axes)]
    out_shape = [a.shape[i] for i in a_free] + [b.shape[i] for i in b_free]

    def f(*idx):
        ai, bi = [None] * len(a.shape), [None] * len(b.shape)
        for pos, i in enumerate(a_free):
            ai[i] = idx[pos]
        for pos, i in enumerate(b_free):
            bi[i] = idx[len(a_free) + pos]
        for r, i, j in zip(red, a_axes, b_axes):
            ai[i], bi[j] = r.var, r.var
        return te.sum(a(*ai) * b(*bi), axis=red)

    return te.compute(out_shape, f, name="tensordot")


def meshgrid(tensors, indexing: str = "ij") -> list:
    """Coordinate grids of 1-D ``tensors`` (``"ij"`` matrix or ``"xy"`` Cartesian indexing)."""
    if indexing not in ("ij", "xy"):
        raise ValueError(f"topi.meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    sizes = [t.shape[0] for t in tensors]
    if indexing == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]

    def grid(k, t):
        axis = k
        if indexing == "xy" and k < 2 and len(tensors) >= 2:
            axis = 1 - k
        return te.compute(sizes, lambda *i: t(i[axis]), name=f"meshgrid{k}")

    return [grid(k, t) for k, t in enumerate(tensors)]


def sequence_mask(data, valid_length, mask_value: float = 0.0, axis: int = 0) -> te.Tensor:
    """``data`` (seq axis ``axis`` in 0/1, batch the other) with steps ≥ valid_length[b] set to ``mask_value``."""
    if axis not in (0, 1):
        raise ValueError(f"topi.sequence_mask: axis must be 0 or 1, got {axis}")

    def f(*i):
        step, batch = (i[0], i[1]) if axis == 0 else (i[1], i[0])
        length = tir.cast(valid_length(batch), step.dtype)
        return tir.Select(step >= length, tir.const(mask_value, data.dtype), data(*i))

    return te.compute(data.shape, f, name="sequence_mask")


def shape(array, dtype: str = "int32") -> te.Tensor:
    """The shape of ``array`` as a 1-D tensor."""
    dims = list(array.shape)

    def f(i):
        out = tir.const(0, dtype)
        for k in reversed(range(len(dims))):
            out = tir.Select(i == k, tir.cast(dims[k], dtype), out)
        return out

    return te.compute((len(dims),), f, name="shape")


def ndarray_size(array, dtype: str = "int32") -> te.Tensor:
    """The element count of ``array`` as a 0-d tensor."""
    size = 1
    for d in array.shape:
        size = size * d
    return te.compute((), lambda: tir.cast(size, dtype), name="ndarray_size")


def unravel_index(indices, shape_tensor_dims) -> te.Tensor:
    """Coordinates (len(dims), *indices.shape) of flat ``indices`` in an array of shape ``dims`` (ints)."""
    dims = [int(d) for d in shape_tensor_dims]

    def f(k, *i):
        flat = indices(*i)
        out = tir.const(0, indices.dtype)
        for pos in range(len(dims)):
            stride = 1
            for d in dims[pos + 1:]:
                stride *= d
            coord = (flat // tir.const(stride, indices.dtype)) % tir.const(dims[pos], indices.dtype)
            out = tir.Select(k == pos, coord, out)
        return out

    return te.compute((len(dims), *indices.shape), f, name="unravel_index")
