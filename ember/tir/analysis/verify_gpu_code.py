"""verify_gpu_code: does each GPU kernel of a PrimFunc fit the device's limits?

Per kernel (an outermost thread-bound loop or ``thread_extent`` attribute) it measures
threads per block (product of the ``threadIdx.*`` extents), each thread extent,
virtual threads, shared and local memory per block, and vector access width, and
compares them with ``constraints`` (TVM's names: ``max_threads_per_block``,
``max_thread_x/y/z``, ``max_vthread``, ``max_shared_memory_per_block``,
``max_local_memory_per_block``, ``max_vector_bytes``, ``max_kernels``).
``verify_gpu_code`` answers True/False; ``gpu_code_errors`` lists what is wrong;
``check_gpu_code`` raises with that list for a target's limits.  Symbolic extents
are not checked (they are only known at launch).
"""

from __future__ import annotations

from ember.ir import IntImm

from ..function import PrimFunc
from ..functor import IRVisitor
from ..stmt import Allocate, AttrStmt, Block, BufferStore, For, ForKind, IterVar

__all__ = ["verify_gpu_code", "gpu_code_errors", "check_gpu_code", "GPUConstraintError"]


class GPUConstraintError(ValueError):
    """A kernel exceeds a limit of the target GPU; the message lists every violation."""


def _tag(node) -> str | None:
    if isinstance(node, For) and node.kind == ForKind.THREAD_BINDING:
        return node.thread_binding.thread_tag if node.thread_binding is not None else "threadIdx.x"
    if isinstance(node, AttrStmt) and node.attr_key in ("thread_extent", "virtual_thread"):
        return node.node.thread_tag if isinstance(node.node, IterVar) else "vthread"
    return None


def _const(e) -> int | None:
    return int(e.value) if isinstance(e, IntImm) else None


class _Kernel:
    def __init__(self, name: str):
        self.name = name
        self.extents: dict[str, int] = {}
        self.vthreads = 1
        self.shared = 0
        self.local = 0
        self.vector_bytes = 0


class _Measure(IRVisitor):
    def __init__(self):
        self.kernels: list[_Kernel] = []
        self.current: _Kernel | None = None

    def _thread(self, node, tag: str, extent) -> None:
        opened = self.current is None
        if opened:
            self.current = _Kernel(f"kernel {len(self.kernels)}")
            self.kernels.append(self.current)
        value = _const(extent)
        if value is not None:
            if tag.startswith("vthread") or tag == "cthread":
                self.current.vthreads *= value
            else:
                self.current.extents[tag] = max(self.current.extents.get(tag, 1), value)
        self.generic_visit(node)
        if opened:
            self.current = None

    def visit_For(self, node: For) -> None:
        tag = _tag(node)
        if tag is None:
            self.generic_visit(node)
        else:
            self._thread(node, tag, node.extent)

    def visit_AttrStmt(self, node: AttrStmt) -> None:
        tag = _tag(node)
        if tag is None:
            self.generic_visit(node)
        else:
            self._thread(node, tag, node.value)

    def _memory(self, scope: str, nbytes: int | None) -> None:
        if self.current is None or nbytes is None:
            return
        if scope.startswith("shared"):
            self.current.shared += nbytes
        elif scope.startswith("local"):
            self.current.local += nbytes

    def visit_Allocate(self, node: Allocate) -> None:
        ann = node.buffer_var.type_annotation
        count = 1
        for e in node.extents:
            v = _const(e)
            count = None if v is None or count is None else count * v
        nbytes = None if count is None else count * node.dtype.bits * node.dtype.lanes // 8
        self._memory(ann.storage_scope if ann is not None else "global", nbytes)
        self.generic_visit(node)

    def visit_Block(self, node: Block) -> None:
        for buf in node.alloc_buffers:
            count = 1
            for e in buf.shape:
                v = _const(e)
                count = None if v is None or count is None else count * v
            self._memory(buf.scope(), None if count is None else count * buf.dtype.bits // 8)
        self.generic_visit(node)

    def visit_BufferStore(self, node: BufferStore) -> None:
        if self.current is not None and node.value.dtype.lanes > 1:
            dtype = node.value.dtype
            self.current.vector_bytes = max(self.current.vector_bytes, dtype.bits * dtype.lanes // 8)
        self.generic_visit(node)


def gpu_code_errors(func: PrimFunc, constraints: dict) -> list[str]:
    """Every limit in ``constraints`` that a kernel of ``func`` exceeds, as sentences."""
    if not isinstance(func, PrimFunc):
        raise TypeError(f"verify_gpu_code: expected a PrimFunc for func, got {type(func).__name__}")
    if not isinstance(constraints, dict):
        raise TypeError(f"verify_gpu_code: constraints must be a dict, got {type(constraints).__name__}")
    m = _Measure()
    m.visit(func.body)
    limit = {k: int(v) for k, v in constraints.items()}
    errors = []
    if "max_kernels" in limit and len(m.kernels) > limit["max_kernels"]:
        errors.append(f"{len(m.kernels)} kernels exceed max_kernels={limit['max_kernels']}")
    for k in m.kernels:
        threads = 1
        for tag in ("threadIdx.x", "threadIdx.y", "threadIdx.z"):
            threads *= k.extents.get(tag, 1)
        checks = [
            (threads, "max_threads_per_block", "threads per block (product of threadIdx extents)"),
            (k.extents.get("threadIdx.x", 1), "max_thread_x", "threadIdx.x extent"),
            (k.extents.get("threadIdx.y", 1), "max_thread_y", "threadIdx.y extent"),
            (k.extents.get("threadIdx.z", 1), "max_thread_z", "threadIdx.z extent"),
            (k.vthreads, "max_vthread", "virtual threads"),
            (k.shared, "max_shared_memory_per_block", "bytes of shared memory per block"),
            (k.local, "max_local_memory_per_block", "bytes of local memory per thread"),
            (k.vector_bytes, "max_vector_bytes", "bytes in one vector access"),
        ]
        for value, key, what in checks:
            if key in limit and value > limit[key]:
                errors.append(f"{k.name}: {value} {what} exceed {key}={limit[key]}")
    return errors


def verify_gpu_code(func: PrimFunc, constraints: dict) -> bool:
    """True when every kernel of ``func`` fits ``constraints`` (see the module docstring)."""
    return not gpu_code_errors(func, constraints)


def check_gpu_code(func: PrimFunc, target, name: str = "main") -> None:
    """Raise GPUConstraintError when ``func`` exceeds ``target``'s thread or shared-memory limits."""
    attrs = getattr(target, "attrs", {}) or {}
    constraints = {}
    if attrs.get("max_num_threads"):
        constraints["max_threads_per_block"] = attrs["max_num_threads"]
    if attrs.get("max_shared_memory_per_block"):
        constraints["max_shared_memory_per_block"] = attrs["max_shared_memory_per_block"]
    constraints.update({"max_thread_x": 1024, "max_thread_y": 1024, "max_thread_z": 64})
    errors = gpu_code_errors(func, constraints)
    if errors:
        raise GPUConstraintError(
            f"PrimFunc {name!r} does not fit the GPU ({target}): " + "; ".join(errors) +
            ". Split the thread-bound loops further (fewer threads per block, more blocks) or use less shared memory")
