"""Small helpers shared by topi operators: constant extraction, axis normalisation."""

from __future__ import annotations

from ember.ir import IntImm, PrimExpr, as_expr

__all__ = ["get_const_int", "get_const_tuple", "is_const_int", "normalize_axis", "prod", "as_shape"]


def is_const_int(x, value=None) -> bool:
    """True when ``x`` is a constant integer (equal to ``value`` if given)."""
    if isinstance(x, int):
        return value is None or x == value
    return isinstance(x, IntImm) and (value is None or x.value == value)


def get_const_int(x) -> int:
    """The Python int of a constant ``x``; raises naming ``x`` when it is symbolic."""
    if isinstance(x, int):
        return x
    if isinstance(x, IntImm):
        return int(x.value)
    raise ValueError(f"expected a constant integer, got the symbolic expression {x!r}")


def get_const_tuple(xs) -> tuple:
    """Constant dims as ints; symbolic dims are kept as they are (like TVM's helper)."""
    return tuple(int(x.value) if isinstance(x, IntImm) else x for x in xs)


def as_shape(shape) -> tuple:
    if isinstance(shape, int | PrimExpr):
        shape = (shape,)
    return tuple(as_expr(s) for s in shape)


def normalize_axis(axis, ndim: int, what: str = "axis") -> list[int]:
    """``axis`` (None, an int or a sequence, negative allowed) as sorted non-negative ints."""
    if axis is None:
        return list(range(ndim))
    axes = [axis] if isinstance(axis, int | IntImm) else list(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{what} {a} is out of range for a tensor of {ndim} dimension(s)")
        out.append(a + ndim if a < 0 else a)
    if len(set(out)) != len(out):
        raise ValueError(f"{what} {list(axes)} repeats a dimension")
    return sorted(out)


def prod(xs):
    out = as_expr(1)
    for x in xs:
        out = out * x
    return out


def compute_ax(shape, fcompute, name: str, tag: str = "", attrs=None):
    """``te.compute`` with axes named ``ax0, ax1, …`` as TVM's C++ topi operators name them."""
    from ember import te

    shape = as_shape(shape)
    names = [f"ax{i}" for i in range(len(shape))]
    return te.compute(shape, fcompute, name=name, tag=tag, attrs=attrs, varargs_names=names)
