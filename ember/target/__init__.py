"""ember.target: compilation targets ("llvm -mcpu=... -num-cores=4", "c", "cuda -arch=sm_80")."""

from .kinds import KINDS, TargetKind, get_kind
from .target import Target, create


def cuda(model: str = "unknown", arch: str | None = None, options=None) -> Target:
    """A cuda Target (``ember.target.cuda(arch="sm_80")``)."""
    text = "cuda" + (f" -model={model}" if model != "unknown" else "") + (f" -arch={arch}" if arch else "")
    for opt in options or ():
        text += " " + opt
    return Target(text)


def llvm(options=None) -> Target:
    return Target(" ".join(["llvm", *(options or ())]))


__all__ = ["Target", "TargetKind", "KINDS", "get_kind", "create", "cuda", "llvm"]
