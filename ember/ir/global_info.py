"""Module-level information: ``VDevice`` (a virtual device a tensor lives on: a target,
an index among devices of that target, and a memory scope) and ``DummyGlobalInfo``.
An IRModule keeps them in ``global_infos`` (``{"vdevice": [VDevice, ...]}``); Relax
tensor struct info refers to one in its ``vdevice`` field."""

from __future__ import annotations

from .node import Node, node

__all__ = ["GlobalInfo", "VDevice", "DummyGlobalInfo"]


class GlobalInfo(Node):
    """Base of module-level information nodes."""

    __slots__ = ()


@node
class VDevice(GlobalInfo):
    target: object = None
    vdevice_id: int = 0
    memory_scope: str = "global"

    def __init__(self, target=None, vdevice_id: int = 0, memory_scope: str = "global"):
        if isinstance(target, str):
            from ember.target import Target  # a leaf use of the target layer: parse "llvm", "cuda"…

            target = Target(target)
        if not isinstance(vdevice_id, int) or vdevice_id < 0:
            raise ValueError(f"VDevice: vdevice_id must be a non-negative int, got {vdevice_id!r}")
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "vdevice_id", vdevice_id)
        object.__setattr__(self, "memory_scope", str(memory_scope))

    def __repr__(self) -> str:
        kind = getattr(getattr(self.target, "kind", None), "name", self.target)
        return f"VDevice({kind!r}, {self.vdevice_id}, {self.memory_scope!r})"


@node
class DummyGlobalInfo(GlobalInfo):
    """A placeholder global info (TVM's, used by tests of module printing)."""
