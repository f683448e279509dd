"""What the GPU rules share: the target's thread limits, spatial loop binding, and a check
that a rule's output runs every global-memory loop on threads.

``gpu_limits(target)`` reads ``max_num_threads`` / ``thread_warp_size`` /
``max_shared_memory_per_block`` from a cuda target (defaults for other GPU-like kinds).
``bind_spatial(sch, block, threads)`` is the fallback treatment of one block: its
leading spatial loops fused, split into ``[blocks, threads]`` and bound to
``blockIdx.x`` / ``threadIdx.x`` (reduction loops, if any, stay serial inside).
"""

from __future__ import annotations

from dataclasses import dataclass

from ember.target import Target
from ember.tir import For, PrimFunc, post_order_visit
from ember.tir.schedule import BlockRV, Schedule, ScheduleError

from ..analysis import BlockInfo, const_int

# hard cap on blockIdx.x (the grid's x dimension); split outer loops past it
MAX_GRID_X = (1 << 31) - 1


@dataclass(frozen=True)
class GpuLimits:
    """The numbers a GPU rule sizes its thread blocks by."""

    max_threads: int
    warp: int
    max_shared: int


def gpu_limits(target: Target) -> GpuLimits:
    """Thread-block limits of ``target`` (a cuda target's attributes)."""
    attrs = target.attrs
    threads = int(attrs.get("max_num_threads") or attrs.get("max_threads_per_block") or 1024)
    return GpuLimits(threads, int(attrs.get("thread_warp_size") or 32),
                     int(attrs.get("max_shared_memory_per_block") or 49152))


def is_gpu(target: Target) -> bool:
    """Whether ``target`` is a GPU target the rules schedule for."""
    return "gpu" in tuple(target.attrs.get("keys", ())) or target.kind.name in ("cuda", "rocm", "vulkan", "metal")


def try_inline(sch: Schedule, blocks: list[BlockInfo], *, keep_shared: bool = False) -> list[BlockInfo]:
    """Inline spatial blocks into their consumers (or, failing that, into their producer);
    returns the blocks left.  ``keep_shared`` keeps a block read by several consumers."""
    left = []
    for b in blocks:
        if b.is_spatial() and not (keep_shared and len(sch.get_consumers(b.rv)) > 1):
            try:
                sch.compute_inline(b.rv)
                continue
            except ScheduleError:
                pass
        left.append(b)
    return left


def try_reverse_inline(sch: Schedule, rv: BlockRV) -> bool:
    """``reverse_compute_inline`` when legal; whether it happened."""
    try:
        sch.reverse_compute_inline(rv)
        return True
    except ScheduleError:
        return False


def bind_spatial(sch: Schedule, rv: BlockRV, threads: int, vector: int = 1):
    """Fuse the block's leading spatial loops into ``[blockIdx.x, threadIdx.x(, vector)]``;
    reduction loops below them stay serial per thread.  Returns the (bx, tx) loops."""
    from ..analysis import block_info

    info = block_info(sch, rv)
    loops = list(info.loops)
    spatial = []
    if info.binds_one_to_one:
        for lp, kind in zip(loops, info.kinds):
            if kind != "S":
                break
            spatial.append(lp)
        if len(spatial) < len(loops) and any(k == "S" for k in info.kinds[len(spatial):]):
            # spatial loops after a reduction loop: move every spatial loop outward first
            reds = [lp for lp, k in zip(loops, info.kinds) if k != "S"]
            spatial = [lp for lp, k in zip(loops, info.kinds) if k == "S"]
            sch.reorder(*spatial, *reds)
    else:
        spatial = loops[:1]
    if not spatial:  # a full reduction to a scalar: one thread does it
        tx = sch.add_unit_loop(loops[0] if loops else rv)
        bx = sch.add_unit_loop(tx)
        sch.bind(bx, "blockIdx.x")
        sch.bind(tx, "threadIdx.x")
        return bx, tx
    fused = sch.fuse(*spatial) if len(spatial) > 1 else spatial[0]
    total = const_int(sch.get(fused).extent)
    if total is not None and total <= threads:
        threads = max(1, total)
    if vector > 1:
        bx, tx, vec = sch.split(fused, factors=[None, threads, vector])
        sch.vectorize(vec)
    else:
        bx, tx = sch.split(fused, factors=[None, threads])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return bx, tx


def pick_threads(extent: int | None, limits: GpuLimits, most: int = 256) -> int:
    """Threads for a loop of ``extent`` iterations: a warp multiple, at most ``most``."""
    most = min(most, limits.max_threads)
    if extent is None:
        return most
    threads = limits.warp
    while threads * 2 <= most and threads < extent:
        threads *= 2
    return threads


def unbound_global_loops(func: PrimFunc) -> list[str]:
    """Blocks touching a global buffer with no thread-bound loop above them (the rules'
    contract: every such loop nest runs on GPU threads).  Empty when all are bound."""
    from ember.tir import BlockRealize

    bad: list[str] = []

    def walk(stmt, bound: bool):
        if isinstance(stmt, For):
            walk(stmt.body, bound or stmt.thread_binding is not None)
            return
        if isinstance(stmt, BlockRealize):
            block = stmt.block
            if block.name_hint != "root" and not bound and _touches_global(block):
                bad.append(block.name_hint)
            walk(block.body, bound)
            if block.init is not None:
                walk(block.init, bound)
            return
        for child in _children(stmt):
            walk(child, bound)

    walk(func.body, False)
    return bad


def _touches_global(block) -> bool:
    regions = tuple(block.reads) + tuple(block.writes)
    return any(getattr(r.buffer, "scope", lambda: "global")() == "global" for r in regions)


def _children(stmt) -> list:
    from ember.tir import SeqStmt

    if isinstance(stmt, SeqStmt):
        return list(stmt.seq)
    out = []
    for name in ("body", "then_case", "else_case"):
        child = getattr(stmt, name, None)
        if child is not None:
            out.append(child)
    return out


def thread_extents(func: PrimFunc) -> dict:
    """The largest extent seen per thread tag (``threadIdx.x`` …) in ``func``."""
    found: dict = {}

    def visit(node):
        if isinstance(node, For) and node.thread_binding is not None:
            tag = node.thread_binding.thread_tag
            extent = const_int(node.extent)
            found[tag] = max(found.get(tag, 0), extent if extent is not None else -1)

    post_order_visit(func.body, visit)
    return found


def loop_vars_of(sch: Schedule, rv: BlockRV) -> tuple:
    """The iterator bindings (``iter_values``) of the block ``rv``'s BlockRealize."""
    from ember.tir import BlockRealize

    block = sch.get(rv)
    found: list = []
    post_order_visit(sch.mod[sch.func_working_on].body,
                     lambda n: found.append(n) if isinstance(n, BlockRealize) and n.block is block else None)
    return tuple(found[0].iter_values)
