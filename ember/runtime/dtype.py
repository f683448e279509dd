"""Scalar and vector data types (``DataType``) shared by every layer, with DLPack codes.

A DataType is an immutable (code, bits, lanes) triple parsed from strings such as
``"float32"``, ``"int8x16"``, ``"bool"`` or ``"handle"``.  Instances are interned, so
``DataType("float32") is DataType("float32")``.
"""

from __future__ import annotations

import re

from ember.error import UnknownDataTypeError

# DLPack type codes (dlpack.h: kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLBool)
INT, UINT, FLOAT, HANDLE, BFLOAT, BOOL = 0, 1, 2, 3, 4, 6

_CODE_NAMES = {INT: "int", UINT: "uint", FLOAT: "float", HANDLE: "handle", BFLOAT: "bfloat", BOOL: "bool"}
_NAME_CODES = {name: code for code, name in _CODE_NAMES.items()}
_PATTERN = re.compile(r"^(int|uint|float|bfloat|bool|handle)(\d*)(?:x(\d+))?$")
_ALIASES = {"float": "float32", "int": "int32", "double": "float64", "void": "handle", "": "handle",  # "" is TVM's void
            "bfloat": "bfloat16"}  # TVM's "bfloat" has 16 bits
# Floats narrower than 16 bits, named by their format (DLPack 1.1 type codes; numpy via ml_dtypes).
# Their names carry the width, so they print without a bit count: "float8_e4m3fn", "float8_e5m2x4".
LOW_BIT_FLOATS = {
    "float8_e3m4": (7, 8), "float8_e4m3": (8, 8), "float8_e4m3b11fnuz": (9, 8), "float8_e4m3fn": (10, 8),
    "float8_e4m3fnuz": (11, 8), "float8_e5m2": (12, 8), "float8_e5m2fnuz": (13, 8), "float8_e8m0fnu": (14, 8),
    "float6_e2m3fn": (15, 6), "float6_e3m2fn": (16, 6), "float4_e2m1fn": (17, 4),
}
_LOW_BIT_NAMES = {code: name for name, (code, _) in LOW_BIT_FLOATS.items()}
_LOW_BIT_PATTERN = re.compile(r"^(" + "|".join(sorted(LOW_BIT_FLOATS, key=len, reverse=True)) + r")(?:x(\d+))?$")
_NUMPY_NAMES = {"bool": "bool", "bfloat16": "bfloat16"}


class DataType:
    """An element type: ``code`` (DLPack type code), ``bits`` per lane and ``lanes``."""

    __slots__ = ("code", "bits", "lanes", "_str")
    _interned: dict = {}

    def __new__(cls, spec: str | DataType = "float32"):
        if isinstance(spec, DataType):
            return spec
        try:
            return cls._interned[spec]
        except (KeyError, TypeError):
            pass
        if not isinstance(spec, str):
            found = cls(_from_foreign(spec))
            try:
                cls._interned[spec] = found  # numpy/torch dtype objects: parse once
            except TypeError:
                pass
            return found
        code, bits, lanes = _parse(spec)
        return cls.make(code, bits, lanes, key=spec)

    @classmethod
    def make(cls, code: int, bits: int, lanes: int = 1, key: str | None = None) -> DataType:
        """The interned DataType for a (code, bits, lanes) triple."""
        scalable = None if isinstance(lanes, int) else _vscale_factor(lanes)
        canon = (code, bits, lanes) if scalable is None else (code, bits, "vscale", scalable)
        found = cls._interned.get(canon)
        if found is None:
            found = object.__new__(cls)
            object.__setattr__(found, "code", code)
            object.__setattr__(found, "bits", bits)
            object.__setattr__(found, "lanes", lanes)
            object.__setattr__(found, "_str", _render(code, bits, lanes if scalable is None else f"vscalex{scalable}"))
            cls._interned[canon] = found
            cls._interned[found._str] = found
        if key is not None:
            cls._interned[key] = found
        return found

    def __setattr__(self, name, value):
        raise AttributeError("DataType is immutable")

    def __reduce__(self):
        return (DataType, (self._str,))

    # -- queries -------------------------------------------------------------------
    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return f"DataType({self._str!r})"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            try:
                other = DataType(other)
            except ValueError:
                return False
        return self is other

    def __hash__(self) -> int:
        return hash(self._str)

    @property
    def type_code(self) -> int:
        return self.code

    @property
    def is_int(self) -> bool:
        return self.code == INT

    @property
    def is_uint(self) -> bool:
        return self.code == UINT

    @property
    def is_integer(self) -> bool:
        """Signed or unsigned integer (not bool)."""
        return self.code in (INT, UINT)

    @property
    def is_float(self) -> bool:
        return self.code in (FLOAT, BFLOAT)

    @property
    def is_bool(self) -> bool:
        return self.code == BOOL

    @property
    def is_low_bit_float(self) -> bool:
        """One of the 4/6/8-bit float formats (``float8_e4m3fn`` ...): storage and DLPack only."""
        return self.code in _LOW_BIT_NAMES

    @property
    def is_handle(self) -> bool:
        return self.code == HANDLE

    @property
    def is_scalable_vector(self) -> bool:
        """Lanes are ``vscale * k`` (an expression): a vector whose length is known at run time."""
        return not isinstance(self.lanes, int)

    @property
    def vscale_factor(self) -> int:
        """``k`` of a scalable vector's ``vscale * k`` lanes."""
        if isinstance(self.lanes, int):
            raise ValueError(f"{self._str} is not a scalable vector type")
        return _vscale_factor(self.lanes)

    @property
    def is_scalar(self) -> bool:
        return isinstance(self.lanes, int) and self.lanes == 1

    @property
    def is_vector(self) -> bool:
        return not isinstance(self.lanes, int) or self.lanes > 1

    @property
    def itemsize(self) -> int:
        """Bytes per element (all lanes); bool is stored as one byte."""
        return max(self.bits, 8) // 8 * self.lanes

    def element_of(self) -> DataType:
        return DataType.make(self.code, self.bits, 1)

    def with_lanes(self, lanes: int) -> DataType:
        return DataType.make(self.code, self.bits, lanes)

    def with_bits(self, bits: int) -> DataType:
        return DataType.make(self.code, bits, self.lanes)

    @property
    def numpy_name(self) -> str:
        """The numpy dtype name of one lane (``bfloat16`` needs ml_dtypes)."""
        if self.code == BOOL:
            return "bool"
        return self.element_of()._str

    @property
    def dtype(self):
        """The numpy dtype, so TVM-style ``arr.astype(A.dtype)`` / ``np.zeros(n, dtype=C.dtype)`` work.

        numpy reads a ``.dtype`` attribute from objects it is given as a dtype.
        """
        if self.lanes != 1 or self.code == HANDLE:
            raise TypeError(f"data type {self._str!r} has no numpy equivalent: expected a scalar "
                            "int/uint/float/bool type")
        return self.numpy()

    def numpy(self):
        """The numpy dtype of one lane."""
        import numpy as np

        if self.code == BFLOAT:
            import ml_dtypes

            return np.dtype(ml_dtypes.bfloat16)
        if self.code in _LOW_BIT_NAMES:
            import ml_dtypes

            return np.dtype(getattr(ml_dtypes, _LOW_BIT_NAMES[self.code]))
        return np.dtype(self.numpy_name)


def _parse(spec: str) -> tuple[int, int, int]:
    text = _ALIASES.get(spec.strip(), spec.strip())
    low_bit = _LOW_BIT_PATTERN.match(text)
    if low_bit:
        code, bits = LOW_BIT_FLOATS[low_bit.group(1)]
        return code, bits, int(low_bit.group(2)) if low_bit.group(2) else 1
    m = _PATTERN.match(text)
    if not m:
        raise UnknownDataTypeError(f"unknown data type {spec!r}: expected e.g. 'float32', 'int8', 'float32x4', 'bool', 'handle'")
    name, bits, lanes = m.group(1), m.group(2), m.group(3)
    code = _NAME_CODES[name]
    if name == "bool":
        nbits = 1
    elif name == "handle":
        nbits = 64
    elif bits:
        nbits = int(bits)
    else:
        raise UnknownDataTypeError(f"unknown data type {spec!r}: {name} needs a bit width, e.g. '{name}32'")
    if code in (INT, UINT) and nbits not in (1, 4, 8, 16, 32, 64):
        raise UnknownDataTypeError(f"unknown data type {spec!r}: integer widths are 4, 8, 16, 32 or 64")
    if code == UINT and nbits == 1:
        code = BOOL  # uint1 is bool, as in TVM
    if code == FLOAT and nbits not in (16, 32, 64):
        raise UnknownDataTypeError(f"unknown data type {spec!r}: float widths are 16, 32 or 64")
    if code == BFLOAT and nbits != 16:
        raise UnknownDataTypeError(f"unknown data type {spec!r}: only bfloat16 is supported")
    return code, nbits, int(lanes) if lanes else 1


def _vscale_factor(lanes) -> int:
    """``k`` when ``lanes`` is the expression ``vscale() * k`` (either operand order)."""
    operands = (getattr(lanes, "a", None), getattr(lanes, "b", None))
    if type(lanes).__name__ == "Mul":
        for vs, k in (operands, operands[::-1]):
            if getattr(getattr(vs, "op", None), "name", None) == "tir.vscale" and hasattr(k, "value"):
                return int(k.value)
    raise ValueError(f"vector lanes must be an int or vscale() * k, got {lanes!r}")


def _render(code: int, bits: int, lanes: int) -> str:
    if code == BOOL:
        base = "bool" if lanes == 1 else "uint1"  # TVM's spelling: bool vectors are uint1xN
    elif code == HANDLE:
        base = "handle"
    elif code in _LOW_BIT_NAMES:
        base = _LOW_BIT_NAMES[code]
    else:
        base = f"{_CODE_NAMES[code]}{bits}"
    return base if lanes == 1 else f"{base}x{lanes}"


def _from_foreign(spec) -> str:
    """Accept numpy dtypes / scalar types and torch dtypes as type specs."""
    name = getattr(spec, "name", None)
    if name is None and isinstance(spec, type):
        import numpy as np

        name = np.dtype(spec).name
    if name is None:
        text = str(spec)
        name = text.rsplit(".", 1)[-1]  # torch.float32 -> float32
    return _NUMPY_NAMES.get(name, name)
