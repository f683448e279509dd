"""``Target``: what code is generated for — a kind, its options, keys and a host target.

Accepted forms: ``Target("llvm -mcpu=skylake-avx512 -num-cores=4")``,
``Target({"kind": "llvm", "mcpu": ...})``, ``Target(target, host=...)`` and an existing
Target.  ``str(target)`` prints a string that parses back to an equal target.
``with target:`` makes it ``Target.current()`` for the code in the block.
"""

from __future__ import annotations

from typing import Any

from . import host as _host
from .kinds import KINDS, TargetKind, get_kind
from .tags import TAGS

# DLPack device type → the target kind compiling for it (Target.from_device)
_DEVICE_KINDS = {1: "llvm", 2: "cuda"}

__all__ = ["Target", "create"]

_TRUE = {"1", "true", "True", "yes", "on"}
_FALSE = {"0", "false", "False", "no", "off"}


def _convert(kind: TargetKind, key: str, value: Any) -> Any:
    """Convert an option value (text or Python) to the option's declared type."""
    typ, _ = kind.options[key]
    if typ == "list":
        if isinstance(value, str):
            return tuple(v for v in value.split(",") if v)
        return tuple(str(v) for v in value)
    if typ is bool:
        if isinstance(value, str):
            if value in _TRUE:
                return True
            if value in _FALSE:
                return False
            raise ValueError(f"target option -{key} of {kind.name!r}: expected a boolean (true/false/1/0), got {value!r}")
        return bool(value)
    if typ is int:
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ValueError(f"target option -{key} of {kind.name!r}: expected an integer, got {value!r}") from None
    return str(value)


def _check_option(kind: TargetKind, key: str) -> str:
    if key in kind.options:
        return key
    alt = key.replace("_", "-") if key.replace("_", "-") in kind.options else key.replace("-", "_")
    if alt in kind.options:
        return alt
    valid = ", ".join("-" + k for k in kind.options)
    raise ValueError(f"unknown option -{key} for target kind {kind.name!r}: valid options are {valid}")


def _parse_string(text: str) -> tuple[str, dict[str, Any]]:
    words = text.split()
    if not words:
        raise ValueError("target string is empty: expected e.g. 'llvm', 'llvm -mcpu=skylake-avx512', 'cuda'")
    kind_name, options = words[0], {}
    for word in words[1:]:
        if not word.startswith("-"):
            raise ValueError(f"target string {text!r}: option {word!r} must look like -name=value")
        key, eq, value = word.lstrip("-").partition("=")
        options[key] = value if eq else "true"
    return kind_name, options


_SCOPE: list[Target] = []


class Target:
    """A compilation target.  ``kind.name``, ``attrs`` (options, defaults filled in),
    ``keys`` and ``host`` follow TVM; CPU facts are ``mcpu``, ``mattr``, ``num_cores``,
    ``vector_width_bits``; GPU facts ``max_num_threads``, ``thread_warp_size`` …"""

    __slots__ = ("kind", "attrs", "keys", "host", "_given")

    def __init__(self, target: str | dict | Target, host: str | dict | Target | None = None):
        if isinstance(target, Target):
            self.kind, self.attrs, self.keys = target.kind, target.attrs, target.keys
            self._given = target._given
            host = host if host is not None else target.host
        else:
            if isinstance(target, str) and target.split(" ")[0] in TAGS:
                tag, _, rest = target.partition(" ")
                raw = {**TAGS[tag], "tag": tag}
                kind_name = raw.pop("kind")
                if rest.strip():
                    raw.update(_parse_string(kind_name + " " + rest)[1])
            elif isinstance(target, str):
                kind_name, raw = _parse_string(target)
            elif isinstance(target, dict):
                raw = dict(target)
                if "kind" not in raw:
                    raise ValueError(f"target dict needs a 'kind' key, got keys {sorted(raw)}")
                kind_name = raw.pop("kind")
            else:
                raise TypeError(
                    f"Target(target=...) expects a str, dict or Target, got {type(target).__name__}: {target!r}"
                )
            if isinstance(kind_name, TargetKind):
                kind_name = kind_name.name
            kind = get_kind(kind_name, hint="or a tag such as 'nvidia/nvidia-a100'")
            if "host" in raw and host is None:
                host = raw.pop("host")
            raw.pop("host", None)
            given = {}
            for key, value in raw.items():
                key = _check_option(kind, key)
                given[key] = _convert(kind, key, value)
            attrs = {k: d for k, (_, d) in kind.options.items() if d is not None}
            attrs.update(given)
            keys = tuple(given.get("keys", ()))
            keys = keys + tuple(k for k in kind.default_keys if k not in keys)
            attrs["keys"] = keys
            self.kind, self.attrs, self.keys, self._given = kind, attrs, keys, given
        if host is not None and not isinstance(host, Target):
            host = Target(host)
        if host is not None and host.kind.device_type != 1:
            raise ValueError(f"Target(host=...) must be a CPU target (llvm or c), got {host.kind.name!r}")
        self.host = host

    # -- construction helpers -------------------------------------------------------------
    @staticmethod
    def current(allow_none: bool = True) -> Target | None:
        """The innermost target of the enclosing ``with target:`` blocks."""
        if _SCOPE:
            return _SCOPE[-1]
        if not allow_none:
            raise ValueError("Target.current(): no target is in scope; use `with Target(...):`")
        return None

    @staticmethod
    def from_device(device: Any) -> Target:
        """The default target for ``device`` (a Device or a name such as "cpu" / "cuda")."""
        from ember.runtime import Device
        from ember.runtime import device as make_device

        dev = device if isinstance(device, Device) else make_device(device)
        kind = _DEVICE_KINDS.get(int(dev.device_type))
        if kind is None:
            raise ValueError(f"Target.from_device: device {dev!r} has no default target; expected a "
                             f"device of type {', '.join(sorted(set(_DEVICE_KINDS.values())))}")
        if kind == "cuda" and not dev.exist:
            raise ValueError(f"Target.from_device: device {dev!r} does not exist on this machine")
        return Target(kind)

    @staticmethod
    def list_kinds() -> list[str]:
        return sorted(KINDS)

    @staticmethod
    def list_tags() -> list[str]:
        return sorted(TAGS)

    @staticmethod
    def canon_target(target: Any) -> Target | None:
        return None if target is None else Target(target)

    @staticmethod
    def canon_target_and_host(target: Any, host: Any = None) -> tuple[Target | None, Target | None]:
        if target is None:
            return None, None if host is None else Target(host)
        target = Target(target, host)
        return target, target.host

    def with_host(self, host: Any = None) -> Target:
        return Target(self, host)

    def __enter__(self) -> Target:
        _SCOPE.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _SCOPE.pop()

    # -- printing and comparison ----------------------------------------------------------
    def __str__(self) -> str:
        parts = [self.kind.name]
        for key in self.kind.options:
            if key not in self._given:
                continue
            value = self._given[key]
            if isinstance(value, tuple):
                value = ",".join(value)
            elif isinstance(value, bool):
                value = "true" if value else "false"
            parts.append(f"-{key}={value}")
        return " ".join(parts)

    def __repr__(self) -> str:
        host = f", host={str(self.host)!r}" if self.host is not None else ""
        return f"Target({str(self)!r}{host})"

    def __eq__(self, other) -> bool:
        if isinstance(other, str | dict):
            try:
                other = Target(other)
            except ValueError:
                return False
        if not isinstance(other, Target):
            return NotImplemented
        return str(self) == str(other) and self.host == other.host

    def __hash__(self) -> int:
        return hash((str(self), str(self.host) if self.host is not None else None))

    def export(self) -> dict[str, Any]:
        out = {"kind": self.kind.name, **self._given}
        if self.host is not None:
            out["host"] = self.host.export()
        return out

    # -- derived facts ---------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        attrs = object.__getattribute__(self, "attrs")
        for key in (name, name.replace("_", "-")):
            if key in attrs:
                return attrs[key]
        raise AttributeError(f"Target {str(self)!r} has no attribute {name!r}")

    @property
    def is_cpu(self) -> bool:
        return self.kind.device_type == 1

    @property
    def mtriple(self) -> str:
        triple = self.attrs.get("mtriple")
        if triple:
            return triple
        import llvmlite.binding as llvm

        return llvm.get_process_triple()

    @property
    def mcpu(self) -> str | None:
        cpu = self.attrs.get("mcpu")
        if cpu:
            return cpu
        return _host.host_cpu_name() if self.is_cpu and not self.attrs.get("mtriple") else None

    @property
    def mattr(self) -> tuple[str, ...]:
        """Feature flags (+x/-x): the host's when no -mcpu is given, then -mattr on top."""
        given = tuple(self.attrs.get("mattr", ()))
        if self.is_cpu and not self.attrs.get("mcpu") and not self.attrs.get("mtriple"):
            return _host.host_cpu_features() + given
        return given

    @property
    def vector_width_bits(self) -> int:
        return _host.vector_width_bits(self.mcpu or "", self.mattr)

    @property
    def num_cores(self) -> int:
        cores = self.attrs.get("num-cores")
        return cores if cores else _host.default_num_cores()

    @property
    def max_num_threads(self) -> int:
        if "max_num_threads" in self.attrs:
            return self.attrs["max_num_threads"]
        return self.num_cores

    @property
    def arch(self) -> str | None:
        arch = self.attrs.get("arch")
        if arch is None and self.attrs.get("mcpu", "").startswith("sm_"):
            arch = self.attrs["mcpu"]
        return arch

    @property
    def device_type(self) -> int:
        return self.kind.device_type

    @property
    def device_name(self) -> str:
        return self.attrs.get("device") or self.kind.name

    @property
    def model(self) -> str:
        return self.attrs.get("model", "unknown")

    @property
    def libs(self) -> tuple[str, ...]:
        return tuple(self.attrs.get("libs", ()))


def create(target: Any) -> Target:
    """Classic alias of ``Target(target)``."""
    return Target(target)
