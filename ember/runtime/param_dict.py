"""``save_param_dict`` / ``load_param_dict``: parameter dictionaries as bytes, never pickle.

The bytes are a standard safetensors file (``ember.runtime.safetensors``), so other tools
read them too; TVM's names (``tvm.runtime.save_param_dict``, ``relay.save_param_dict``).
"""

from __future__ import annotations

from collections.abc import Mapping

from . import safetensors
from .ndarray import NDArray, array

__all__ = ["save_param_dict", "load_param_dict"]


def save_param_dict(params: Mapping[str, object]) -> bytes:
    """``params`` (name → NDArray / numpy array) as bytes; write them to a file as they are."""
    if not isinstance(params, Mapping):
        raise TypeError(f"save_param_dict: params must be a dict of name → array, got {type(params).__name__}")
    return safetensors.dumps(params, metadata={"format": "ember.params"})


def load_param_dict(data: bytes | bytearray | memoryview) -> dict[str, NDArray]:
    """The dictionary written by ``save_param_dict`` (name → NDArray)."""
    if isinstance(data, str):
        raise TypeError("load_param_dict: expected the bytes of a params file, got a str (read the file in "
                        "binary mode: open(path, 'rb').read())")
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"load_param_dict: expected bytes, got {type(data).__name__}")
    return {name: array(value) for name, value in safetensors.loads(data, what="load_param_dict").items()}
