"""Parallel loops on libgomp: the launcher, and how the team's threads share the iterations.

A PARALLEL loop of ``n`` iterations becomes ``GOMP_parallel(body, args, nthreads, 0)``; the
loop's free variables and the shared slots (a status word, the claim counters) travel in one
stack struct ``args``.  Every thread of the team runs ``body``, which finds its iterations in
one of three ways (``team`` threads; settings in ``codegen.py``):

- *static* (``claims == 0``): thread i runs the i-th ``ceil(n / team)`` iterations;
- *one shared counter* (``own_segments`` false): every thread claims the next run of
  ``ceil(n / (team * claims))`` iterations from one atomic counter, so a delayed thread's work
  goes to the others, but which thread runs which iterations changes from call to call, and
  every claim moves the counter's cache line between cores;
- *own segments first* (the default): the loop is cut into the static split's segments, each
  with its own counter on its own cache line; thread i claims runs of
  ``ceil(segment / claims)`` iterations from segment i, then from segments i+1, i+2, ...
  (mod the segment count) once its own is used up.  When the threads keep pace, each runs
  exactly its static segment (the next kernel finds the rows this thread wrote in its own
  cache, as with the static split); when one falls behind, the other takes its runs.

A team of one thread runs the whole loop as one run.  A run that fails a check stores its
code in the status word, which the launcher returns; the thread stops claiming.
"""

from __future__ import annotations

from llvmlite import ir

from ember.ir import DataType
from ember.tir import For

from .expr import is_zero
from .types import I32, I8, PTR, VOID, llvm_type

__all__ = ["emit_parallel_for", "MAX_SEGMENTS"]

MAX_SEGMENTS = 64  # counters on the launcher's stack; larger teams share them (segment = thread % 64)
_LINE_BYTES = 64  # one counter per cache line
_INT32 = DataType("int32")


def emit_parallel_for(cg, s: For, claims: int, own_segments: bool) -> None:
    """Emit the PARALLEL loop ``s`` at ``cg``'s insertion point (``cg``: the CodeGenLLVM)."""
    free = cg.free_vars(s)
    outer = cg.builder
    status = cg._entry_alloca(I32, "status")
    outer.store(ir.Constant(I32, 0), status)
    ty = llvm_type(s.loop_var.dtype)
    stride = _LINE_BYTES // (ty.width // 8)  # counter slots apart
    shared = [status]
    if claims:  # iterations claimed so far (per segment: relative to the segment's start)
        slots = MAX_SEGMENTS * stride if own_segments else 1
        counters = outer.gep(cg._entry_alloca(ir.ArrayType(ty, slots), "parallel_next"),
                             [ir.Constant(I32, 0), ir.Constant(I32, 0)], inbounds=True)
        if own_segments:
            _zero_counters(cg, counters, ty, stride)
        else:
            outer.store(ir.Constant(ty, 0), counters)
        shared.append(counters)
    fields = [cg.vars[v].type for v in free] + [x.type for x in shared]
    struct_ty = ir.LiteralStructType(fields)
    data = cg._entry_alloca(struct_ty, "parallel_args")
    for k, value in enumerate([cg.vars[v] for v in free] + shared):
        outer.store(value, outer.gep(data, [ir.Constant(I32, 0), ir.Constant(I32, k)], inbounds=True))
    fn = ir.Function(cg.module, ir.FunctionType(VOID, [PTR]), cg._unique("parallel"))
    fn.linkage = "internal"
    gomp = cg._libc("GOMP_parallel", VOID, [fn.type, PTR, I32, I32])
    outer.call(gomp, [fn, outer.bitcast(data, PTR), ir.Constant(I32, cg.num_threads), ir.Constant(I32, 0)])
    cg._return_if_nonzero(outer.load(status))

    previous = cg._enter(fn, {})
    was_parallel, cg.in_parallel = cg.in_parallel, True
    try:
        b = cg.builder
        ptr = b.bitcast(fn.args[0], struct_ty.as_pointer())
        loaded = [b.load(b.gep(ptr, [ir.Constant(I32, 0), ir.Constant(I32, k)], inbounds=True)) for k in range(len(fields))]
        for var, value in zip(free, loaded):
            cg.vars[var] = value
        body = _ThreadBody(cg, s, free, ty, loaded[len(free)])
        if not claims:
            body.static()
        elif own_segments:
            body.own_segments_first(loaded[-1], claims, stride)
        else:
            body.shared_counter(loaded[-1], claims)
    finally:
        cg.in_parallel = was_parallel
        cg._leave(previous)


def _zero_counters(cg, counters: ir.Value, ty: ir.Type, stride: int) -> None:
    """Zero the counters of the segments the coming team can have: min(team, MAX_SEGMENTS),
    the team being at most the threads asked for (``-num-cores``, else OpenMP's default)."""
    b = cg.builder
    if cg.num_threads:
        team = ir.Constant(I32, cg.num_threads)
    else:
        team = b.call(cg._libc("omp_get_max_threads", I32, []), [])
    limit = ir.Constant(I32, MAX_SEGMENTS)
    count = b.select(b.icmp_signed("<", team, limit), team, limit)
    nbytes = b.mul(b.zext(count, ir.IntType(64)), ir.Constant(ir.IntType(64), _LINE_BYTES))
    memset = cg.module.declare_intrinsic("llvm.memset", [PTR, ir.IntType(64)])
    b.call(memset, [b.bitcast(counters, PTR), ir.Constant(I8, 0), nbytes, ir.Constant(ir.IntType(1), 0)])


class _ThreadBody:
    """The code every thread of the team runs: find runs of iterations, run each through one
    outlined ``noalias`` function of (begin, end), stop at the first failed run."""

    def __init__(self, cg, s: For, free: list, ty: ir.Type, status_ptr: ir.Value):
        self.cg, self.s, self.free, self.ty, self.status_ptr = cg, s, free, ty, status_ptr
        self.one = ir.Constant(ty, 1)
        self.team = self._omp("omp_get_num_threads")
        self.extent = cg.emit(s.extent)
        self.done = cg.new_block("chunk_done")

    def _omp(self, name: str) -> ir.Value:
        cg = self.cg
        return cg.cast(cg.builder.call(cg._libc(name, I32, []), []), _INT32, self.s.loop_var.dtype)

    def _ceil_div(self, a: ir.Value, d: ir.Value) -> ir.Value:
        b = self.cg.builder
        return b.sdiv(b.sub(b.add(a, d), self.one), d)

    def _min(self, a: ir.Value, c: ir.Value) -> ir.Value:
        b = self.cg.builder
        return b.select(b.icmp_signed("<", a, c), a, c)

    def _run(self, begin: ir.Value, end: ir.Value, next_block: ir.Block) -> None:
        """Run iterations [begin, end); go on at ``next_block``, or to ``done`` if the run failed."""
        cg, s = self.cg, self.s

        def chunk_loop(bounds):  # in a noalias function, so LLVM keeps buffer values in registers
            offset = None if is_zero(s.min) else cg.emit(s.min)
            cg.serial_loop(s.loop_var, bounds[0], bounds[1], lambda: cg.emit_stmt(s.body), offset)

        code = cg._call_outlined(cg._unique("chunk"), self.free, [begin, end], chunk_loop)
        b = cg.builder
        failed = cg.new_block("chunk_failed")
        b.cbranch(b.icmp_unsigned("!=", code, ir.Constant(I32, 0)), failed, next_block)
        b.position_at_end(failed)
        b.store(code, self.status_ptr)
        b.branch(self.done)

    def _finish(self) -> None:
        b = self.cg.builder
        b.position_at_end(self.done)
        b.ret_void()

    def static(self) -> None:
        b = self.cg.builder
        chunk = self._ceil_div(self.extent, self.team)
        begin = b.mul(self._omp("omp_get_thread_num"), chunk)
        self._run(begin, self._min(b.add(begin, chunk), self.extent), self.done)
        self._finish()

    def shared_counter(self, counter: ir.Value, claims: int) -> None:
        cg, b = self.cg, self.cg.builder
        alone = b.icmp_signed("==", self.team, self.one)
        runs = b.select(alone, self.one, b.mul(self.team, ir.Constant(self.ty, claims)))
        chunk = self._ceil_div(self.extent, runs)
        claim, work = cg.new_block("claim"), cg.new_block("claim_run")
        b.branch(claim)
        b.position_at_end(claim)
        begin = b.atomic_rmw("add", counter, chunk, "monotonic")
        b.cbranch(b.icmp_signed("<", begin, self.extent), work, self.done)
        b.position_at_end(work)
        self._run(begin, self._min(b.add(begin, chunk), self.extent), claim)
        self._finish()

    def own_segments_first(self, counters: ir.Value, claims: int, stride: int) -> None:
        cg, b, ty = self.cg, self.cg.builder, self.ty
        zero = ir.Constant(ty, 0)
        segments = self._min(self.team, ir.Constant(ty, MAX_SEGMENTS))
        length = self._ceil_div(self.extent, segments)
        alone = b.icmp_signed("==", self.team, self.one)
        run = b.select(alone, length, self._ceil_div(length, ir.Constant(ty, claims)))
        run = b.select(b.icmp_signed("<", run, self.one), self.one, run)
        first = b.srem(self._omp("omp_get_thread_num"), segments)
        entry = b.block
        head, visit, claim, work, next_segment = (cg.new_block(n) for n in (
            "segment_head", "segment", "claim", "claim_run", "segment_next"))
        b.branch(head)
        b.position_at_end(head)  # k-th segment visited: (first + k) % segments
        k = b.phi(ty, name="visited")
        k.add_incoming(zero, entry)
        b.cbranch(b.icmp_signed("<", k, segments), visit, self.done)
        b.position_at_end(visit)
        j = b.add(first, k)
        j = b.select(b.icmp_signed("<", j, segments), j, b.sub(j, segments))
        start = b.mul(j, length)
        end = self._min(b.add(start, length), self.extent)
        counter = b.gep(counters, [b.mul(j, ir.Constant(ty, stride))], inbounds=True)
        b.branch(claim)
        b.position_at_end(claim)
        begin = b.add(start, b.atomic_rmw("add", counter, run, "monotonic"))
        b.cbranch(b.icmp_signed("<", begin, end), work, next_segment)
        b.position_at_end(work)
        self._run(begin, self._min(b.add(begin, run), end), claim)
        b.position_at_end(next_segment)
        k.add_incoming(b.add(k, self.one), next_segment)
        b.branch(head)
        self._finish()
