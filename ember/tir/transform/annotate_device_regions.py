"""AnnotateDeviceRegions: mark where device code starts inside a host+device function.

A PrimFunc whose ``target`` has a host (``Target("cuda", host="llvm")``) mixes host code
and kernels.  The outermost ``thread_extent`` or ``device_scope`` attribute of each
kernel is wrapped in ``AttrStmt(<device target>, "target", 0, ...)``, which
SplitHostDevice later uses to cut the kernel out.  Functions without a host are
left alone.
"""

from __future__ import annotations

from ember.ir import const
from ember.transform import Pass

from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import AttrStmt
from ._common import make_pass
from .module_helpers import target_without_host

__all__ = ["annotate_device_regions", "AnnotateDeviceRegions", "DEVICE_REGION_KEYS"]

DEVICE_REGION_KEYS = ("thread_extent", "device_scope")


class _RegionAnnotator(IRMutator):
    def __init__(self, device_target):
        super().__init__()
        self.device_target = device_target

    def visit_AttrStmt(self, stmt: AttrStmt):
        if stmt.attr_key in DEVICE_REGION_KEYS:  # the kernel's outermost marker: stop here
            return AttrStmt(self.device_target, "target", const(0, "int32"), stmt)
        return self.generic_visit(stmt)


def annotate_device_regions(func: PrimFunc) -> PrimFunc:
    """``func`` with each device region wrapped in a ``target`` attribute."""
    target = func.attrs.get("target")
    if target is None or getattr(target, "host", None) is None:
        return func
    body = _RegionAnnotator(target_without_host(target)).visit(func.body)
    return func if body is func.body else func.with_body(body)


def AnnotateDeviceRegions() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`annotate_device_regions`."""
    return make_pass(annotate_device_regions, "tir.AnnotateDeviceRegions")
