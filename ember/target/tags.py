"""Named targets (TVM's target tags): ``Target("nvidia/nvidia-a100")`` and friends.

Each tag is a plain config dict that ``Target`` parses like any other; the tag name
is kept in the ``tag`` option.  Only facts we are sure of are listed.
"""

from __future__ import annotations

__all__ = ["TAGS", "list_tags"]


def _nvidia(arch: str, smem: int = 49152, l2: int | None = None) -> dict:
    config = {"kind": "cuda", "arch": arch, "max_shared_memory_per_block": smem,
              "max_threads_per_block": 1024, "thread_warp_size": 32, "registers_per_block": 65536}
    if l2:
        config["l2_cache_size_bytes"] = l2
    return config


TAGS: dict[str, dict] = {
    "nvidia/nvidia-h100": _nvidia("sm_90", l2=52428800),
    "nvidia/nvidia-a100": _nvidia("sm_80", l2=41943040),
    "nvidia/nvidia-a10g": _nvidia("sm_86", l2=6291456),
    "nvidia/nvidia-l4": _nvidia("sm_89", l2=50331648),
    "nvidia/nvidia-t4": _nvidia("sm_75", l2=4194304),
    "nvidia/nvidia-v100": _nvidia("sm_70", l2=6291456),
    "nvidia/geforce-rtx-4090": _nvidia("sm_89", l2=75497472),
    "nvidia/geforce-rtx-3090": _nvidia("sm_86", l2=6291456),
    "nvidia/geforce-rtx-3080": _nvidia("sm_86", l2=5242880),
    "nvidia/geforce-rtx-3070": _nvidia("sm_86", l2=4194304),
    "nvidia/geforce-rtx-2080-ti": _nvidia("sm_75", l2=5767168),
}


def list_tags() -> list[str]:
    return sorted(TAGS)
