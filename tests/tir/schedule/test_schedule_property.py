"""Property: random sequences of legal primitives never change what a function computes.

Each step draws a primitive and its arguments; a ``ScheduleError`` (an illegal choice,
refused) is fine and leaves the schedule unchanged — anything else is a bug.  At the
end the result is compared with the original through the interpreter, and the trace
must replay to the same IR.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sched_helpers import assert_same_numerics, check_trace_roundtrip
from sched_workloads import conv2d, elementwise, matmul, matmul_relu, row_sum

from ember.tir import Schedule, ScheduleError

WORKLOADS = {
    "matmul": lambda: matmul(8, 8, 8),
    "matmul_relu": lambda: matmul_relu(8, 8, 4),
    "elementwise": lambda: elementwise(6, 8),
    "row_sum": lambda: row_sum(4, 12),
    "conv2d": lambda: conv2d(1, 2, 4, 4, 2, 3, 3),
}


def _blocks(sch):
    from ember.tir.schedule.analysis import block_names

    return [n for n in block_names(sch.mod["main"]) if n != "root"]


def _step(sch, data):
    names = _blocks(sch)
    block = sch.get_block(data.draw(st.sampled_from(names)))
    loops = sch.get_loops(block)
    op = data.draw(st.sampled_from([
        "split", "split", "fuse", "reorder", "compute_at", "reverse_compute_at", "inline",
        "reverse_inline", "parallel", "decompose", "rfactor", "cache_read", "cache_write",
        "blockize", "relayout", "unroll", "reindex", "decompose_padding", "vectorize",
    ]))
    if not loops and op not in ("inline", "reverse_inline", "cache_read", "cache_write", "relayout",
                                "reindex"):
        return
    pick = (lambda: data.draw(st.sampled_from(loops))) if loops else None
    if op == "split":
        loop = pick()
        sch.split(loop, [None, data.draw(st.integers(1, 5))])
    elif op == "fuse":
        k = data.draw(st.integers(0, max(len(loops) - 2, 0)))
        sch.fuse(*loops[k:k + 2])
    elif op == "reorder":
        a, b = pick(), pick()
        if a is not b:
            sch.reorder(a, b)
    elif op in ("compute_at", "reverse_compute_at"):
        other = sch.get_block(data.draw(st.sampled_from(names)))
        target_loops = sch.get_loops(other)
        if target_loops:
            loop = data.draw(st.sampled_from(target_loops))
            getattr(sch, op)(block, loop, preserve_unit_loops=data.draw(st.booleans()))
    elif op == "inline":
        sch.compute_inline(block)
    elif op == "reverse_inline":
        sch.reverse_compute_inline(block)
    elif op == "parallel":
        sch.parallel(pick())
    elif op == "decompose":
        sch.decompose_reduction(block, pick())
    elif op == "rfactor":
        sch.rfactor(pick(), 0)
    elif op == "cache_read":
        if sch.get(block).reads:
            sch.cache_read(block, 0, "local")
    elif op == "cache_write":
        sch.cache_write(block, 0, "local")
    elif op == "reindex":
        sch.reindex(block, (data.draw(st.sampled_from(["read", "write"])), 0))
    elif op == "blockize":
        sch.blockize(pick())
    elif op == "unroll":
        sch.unroll(pick())
    elif op == "vectorize":
        sch.vectorize(pick())
    elif op == "decompose_padding":
        sch.decompose_padding(block, pick())
    elif op == "relayout":
        buf = sch.get(block).writes[0].buffer
        params = sch.mod["main"].buffer_map.values()
        if len(buf.shape) == 2 and not any(b is buf for b in params):
            sch.transform_layout(block, ("write", 0), lambda a, b: (b, a // 2, a % 2))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(WORKLOADS)), data=st.data())
def test_random_schedules_preserve_semantics(name, data):
    original = WORKLOADS[name]()
    sch = Schedule(original, seed=0)
    for _ in range(data.draw(st.integers(1, 6))):
        try:
            _step(sch, data)
        except ScheduleError:
            pass
    assert_same_numerics(original, sch.mod["main"])
    check_trace_roundtrip(sch, original)
