"""The table of target kinds ember knows: their options (with types and defaults) and keys.

A ``TargetKind`` is plain data: a name, the device type it runs on, the default keys
(used by schedule rules to pick strategies) and a table of options.  ``target.py``
parses strings and dicts against this table; nothing here parses text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TargetKind", "KINDS", "get_kind", "OptionType"]

# option value types: how a value given as text is converted
OptionType = type | str  # int, str, bool, or "list" (comma-separated strings)


@dataclass(frozen=True, slots=True)
class TargetKind:
    """A kind of target (``llvm``, ``c``, ``cuda``…) and the options it accepts."""

    name: str
    device_type: int
    default_keys: tuple[str, ...]
    options: dict = field(default_factory=dict)  # option name → (type, default or None)

    def __repr__(self) -> str:
        return f"TargetKind({self.name!r})"

    def __str__(self) -> str:
        return self.name


_COMMON = {
    "keys": ("list", None),
    "tag": (str, None),
    "device": (str, None),
    "model": (str, None),
    "libs": ("list", None),
    "host": (str, None),
    "from_device": (int, None),
}
_CPU = {
    **_COMMON,
    "mtriple": (str, None),
    "mcpu": (str, None),
    "mattr": ("list", None),
    "mabi": (str, None),
    "num-cores": (int, None),
    "opt-level": (int, 3),
    "fast-math": (bool, False),
    "fast-math-contract": (bool, False),
    "link-params": (bool, False),
    "unpacked-api": (bool, False),
    "interface-api": (str, None),
    "system-lib": (bool, False),
    "runtime": (str, None),
}
_CUDA = {
    **_COMMON,
    "arch": (str, None),
    "mcpu": (str, None),
    "mattr": ("list", None),
    "max_num_threads": (int, 1024),
    "max_threads_per_block": (int, 1024),
    "thread_warp_size": (int, 32),
    "max_shared_memory_per_block": (int, 49152),
    "max_local_memory_per_block": (int, 2147483647),
    "registers_per_block": (int, 65536),
    "l2_cache_size_bytes": (int, None),
    "fast-math": (bool, False),  # __expf-style hardware approximations in generated CUDA
}

KINDS: dict[str, TargetKind] = {
    "llvm": TargetKind("llvm", 1, ("cpu",), _CPU),
    "c": TargetKind("c", 1, ("cpu",), _CPU),
    "cuda": TargetKind("cuda", 2, ("cuda", "gpu"), _CUDA),
}


def get_kind(name: str, hint: str = "") -> TargetKind:
    """The TargetKind called ``name``; ValueError listing the valid kinds otherwise."""
    try:
        return KINDS[name]
    except KeyError:
        valid = ", ".join(sorted(KINDS))
        extra = f" ({hint})" if hint else ""
        raise ValueError(f"unknown target kind {name!r}: expected one of {valid}{extra}") from None
