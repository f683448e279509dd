"""Tensors to bytes and back without pickle: the safetensors layout.

``8-byte little-endian header length | header JSON | raw bytes``.  The header maps each
name to ``{"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}`` (offsets into
the raw bytes) and may hold ``"__metadata__"`` (str → str).  With ``align=1`` (the
default) the output is a standard safetensors file that other tools read; ``align=64``
pads the header and each tensor so the data can be used in place (the constants embedded
in an exported library).  Loading validates every field and reports a clear
``ValueError`` for truncated or inconsistent data, never a crash.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import numpy as np

__all__ = ["dumps", "loads", "save_file", "load_file", "read_header", "DTYPES"]

# safetensors dtype name → numpy dtype name
DTYPES = {
    "F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16",
    "I64": "int64", "I32": "int32", "I16": "int16", "I8": "int8",
    "U64": "uint64", "U32": "uint32", "U16": "uint16", "U8": "uint8", "BOOL": "bool",
}
_CODES = {v: k for k, v in DTYPES.items()}
_MAX_HEADER = 100 * 1024 * 1024


def _as_numpy(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value)


def _numpy_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def dumps(tensors: Mapping[str, object], metadata: Mapping[str, str] | None = None, align: int = 1) -> bytes:
    """``tensors`` (name → numpy array / NDArray) as safetensors bytes."""
    header: dict = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    arrays, offset = [], 0
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"safetensors: tensor names must be str, got {type(name).__name__}")
        arr = np.ascontiguousarray(_as_numpy(value))
        code = _CODES.get(str(arr.dtype))
        if code is None:
            raise TypeError(f"safetensors: tensor {name!r} has dtype {arr.dtype}, which cannot be stored "
                            f"(supported: {', '.join(sorted(_CODES))})")
        offset = -(-offset // align) * align
        header[name] = {"dtype": code, "shape": list(arr.shape), "data_offsets": [offset, offset + arr.nbytes]}
        arrays.append((offset, arr))
        offset += arr.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    pad = max(align, 8)
    text += b" " * ((-(8 + len(text))) % pad)
    out = bytearray(8 + len(text) + offset)
    out[:8] = len(text).to_bytes(8, "little")
    out[8:8 + len(text)] = text
    base = 8 + len(text)
    for start, arr in arrays:
        out[base + start: base + start + arr.nbytes] = arr.tobytes()
    return bytes(out)


def read_header(data, what: str = "safetensors data") -> tuple[dict, int]:
    """The validated header and the offset where the raw bytes start."""
    if len(data) < 8:
        raise ValueError(f"{what}: truncated ({len(data)} bytes; a header needs at least 8)")
    size = int.from_bytes(bytes(data[:8]), "little")
    if size > _MAX_HEADER or 8 + size > len(data):
        raise ValueError(f"{what}: corrupt or truncated header (declares {size} header bytes, "
                         f"the data has {len(data)} bytes in all)")
    try:
        header = json.loads(bytes(data[8:8 + size]))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{what}: the header is not valid JSON ({err}); the file is corrupt") from None
    if not isinstance(header, dict):
        raise ValueError(f"{what}: the header must be a JSON object, got {type(header).__name__}")
    body = len(data) - 8 - size
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype, shape, (begin, end) = entry["dtype"], entry["shape"], entry["data_offsets"]
            count = math.prod(int(s) for s in shape)
            valid = dtype in DTYPES and all(int(s) >= 0 for s in shape) and 0 <= begin <= end
            itemsize = 2 if dtype == "BF16" else np.dtype(DTYPES[dtype]).itemsize
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{what}: tensor {name!r} has a malformed header entry {entry!r}") from None
        if not valid or end - begin != count * itemsize:
            raise ValueError(f"{what}: tensor {name!r}: dtype {dtype}, shape {shape} does not match its "
                             f"byte range {begin}..{end}")
        if end > body:
            raise ValueError(f"{what}: tensor {name!r} ends at byte {end} but only {body} data bytes are "
                             "present; the file is truncated")
    return header, 8 + size


def loads(data, what: str = "safetensors data", with_metadata: bool = False):
    """name → numpy array (copies, so the arrays outlive ``data``); with ``with_metadata``,
    also the ``__metadata__`` dict."""
    header, base = read_header(data, what)
    view = memoryview(data)
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = _numpy_dtype(DTYPES[entry["dtype"]])
        out[name] = np.frombuffer(view[base + begin: base + end], dtype=dtype).reshape(entry["shape"]).copy()
    if with_metadata:
        return out, dict(header.get("__metadata__", {}))
    return out


def save_file(tensors: Mapping[str, object], path: str, metadata: Mapping[str, str] | None = None) -> None:
    with open(path, "wb") as f:
        f.write(dumps(tensors, metadata))


def load_file(path: str) -> dict[str, np.ndarray]:
    with open(path, "rb") as f:
        return loads(f.read(), what=f"parameters file {path!r}")
