"""SplitHostDevice for CUDA: cut a lowered PrimFunc into GPU kernels and a host program.

A *kernel root* is an outermost thread-bound statement: a ``THREAD_BINDING`` loop
(``blockIdx.*``, ``threadIdx.*``, ``vthread*``) or an ``AttrStmt("thread_extent")``
as ``T.launch_thread`` writes it.  Each root becomes a :class:`Kernel` whose
parameters are the variables it uses but does not define (buffer data pointers
first, then scalars) and whose launch extent per thread tag is the largest extent
bound to that tag inside it.  Everything above the roots stays on the host.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.ir import IntImm, Let, Max, PrimExpr, Var, const
from ember.tir import Allocate, AttrStmt, For, IterVar, LetStmt, post_order_visit
from ember.tir.transform.thread_sync import thread_tag

__all__ = ["Kernel", "thread_tag", "is_kernel_root", "make_kernel", "LAUNCH_TAGS", "GpuCodegenError"]

LAUNCH_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z")


class GpuCodegenError(ValueError):
    """The lowered function cannot become CUDA code; the message says what to change."""


@dataclass
class Kernel:
    """One ``__global__`` function cut out of a PrimFunc."""

    name: str
    body: object
    params: list[Var]
    launch: dict[str, PrimExpr] = field(default_factory=dict)  # tag -> extent (host expression)

    def launch_extent(self, tag: str) -> PrimExpr:
        return self.launch.get(tag, const(1, "int32"))


def is_kernel_root(stmt) -> bool:
    return thread_tag(stmt) is not None


def _bound_var(stmt) -> Var:
    return stmt.loop_var if isinstance(stmt, For) else stmt.node.var


def _extent(stmt) -> PrimExpr:
    return stmt.extent if isinstance(stmt, For) else stmt.value


def make_kernel(name: str, root, order: list[Var] = ()) -> Kernel:
    """A Kernel for the kernel root ``root`` (see the module docstring); parameters in ``order``
    (e.g. the function's buffer pointers) come first, in that order."""
    defined: set[int] = set()
    used: dict[int, Var] = {}
    launch: dict[str, list[PrimExpr]] = {}

    def visit(node):
        if isinstance(node, For):
            defined.add(id(node.loop_var))
            if node.thread_binding is not None:
                defined.add(id(node.thread_binding.var))
        elif isinstance(node, LetStmt | Let):
            defined.add(id(node.var))
        elif isinstance(node, Allocate):
            defined.add(id(node.buffer_var))
        elif isinstance(node, AttrStmt) and isinstance(node.node, IterVar):
            defined.add(id(node.node.var))
        elif isinstance(node, Var):
            used.setdefault(id(node), node)
        tag = thread_tag(node)
        if tag is not None and tag in LAUNCH_TAGS:
            extents = launch.setdefault(tag, [])
            if not any(e is _extent(node) or _same_const(e, _extent(node)) for e in extents):
                extents.append(_extent(node))

    post_order_visit(root, visit)
    rank = {id(v): i for i, v in enumerate(order)}
    free = sorted((v for k, v in used.items() if k not in defined), key=lambda v: rank.get(id(v), len(rank)))
    handles = [v for v in free if v.dtype.is_handle]
    scalars = [v for v in free if not v.dtype.is_handle]
    inner: set[int] = set()
    for extents in launch.values():
        for e in extents:
            post_order_visit(e, lambda n: inner.add(id(n)) if isinstance(n, Var) and id(n) in defined else None)
    if inner:
        raise GpuCodegenError(f"kernel {name!r}: a thread extent depends on a variable defined inside the kernel; "
                              "thread extents must be known before the launch")
    return Kernel(name, root, handles + scalars, {tag: _max_all(es) for tag, es in launch.items()})


def _same_const(a, b) -> bool:
    return isinstance(a, IntImm) and isinstance(b, IntImm) and a.value == b.value


def _max_all(extents: list[PrimExpr]) -> PrimExpr:
    consts = [e for e in extents if isinstance(e, IntImm)]
    others = [e for e in extents if not isinstance(e, IntImm)]
    result = None
    if consts:
        result = max(consts, key=lambda e: e.value)
    for e in others:
        result = e if result is None else Max(result, e)
    return result
