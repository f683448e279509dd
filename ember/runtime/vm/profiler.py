"""Per-call timing of one VM function run: ``vm.profile("main", *args)``.

Runs the function's instructions one by one (like the jump interpreter), timing every
call, and groups the times by callee — kernels, ``vm.builtin.*`` and packed functions —
so "where does the time go?" has an answer.  Calls into other VM functions are timed
as a whole (inclusive).  ``calls`` keeps every call in program order (callee, seconds), to
compare a kernel's time inside the model with its time alone.  The clock is the wall clock
(``time.perf_counter``) unless another is given: ``time.thread_time`` counts only the CPU
time of the calling thread, which time slices given to other processes do not inflate
(one-thread runs on a loaded machine).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from .executable import Call, Goto, Ret, VMFunction

__all__ = ["ProfileReport", "profile_function"]


@dataclasses.dataclass(frozen=True)
class ProfileRow:
    callee: str
    calls: int
    seconds: float


@dataclasses.dataclass(frozen=True)
class ProfileReport:
    """Rows by callee (slowest first), every call in program order, and the whole run's time."""

    function: str
    rows: tuple
    total_seconds: float
    calls: tuple = ()  # (callee, seconds) per call, in the order they ran

    def __str__(self) -> str:
        lines = [f"profile of {self.function}: {self.total_seconds * 1e6:.1f} us in total",
                 f"  {'callee':<40} {'calls':>6} {'us':>10} {'%':>6}"]
        for r in self.rows:
            share = 100 * r.seconds / self.total_seconds if self.total_seconds else 0.0
            lines.append(f"  {r.callee:<40} {r.calls:>6} {r.seconds * 1e6:>10.1f} {share:>6.1f}")
        return "\n".join(lines)


def profile_function(func: VMFunction, args: tuple, resolve: Callable[[str], Callable],
                     value_of: Callable[[Any, list], Any], read_cond: Callable[[Any], bool],
                     clock: Callable[[], float] = time.perf_counter) -> tuple:
    """(result, ProfileReport) of running ``func`` on ``args`` with every call timed by ``clock``."""
    regs: list = list(args) + [None] * (func.num_regs - len(args))
    spent: dict = {}
    counts: dict = {}
    in_order: list = []
    start = clock()
    pc = 0
    instrs = func.instrs
    while True:
        instr = instrs[pc]
        if isinstance(instr, Call):
            fn = resolve(instr.func)
            values = [value_of(a, regs) for a in instr.args]
            t0 = clock()
            result = fn(*values)
            seconds = clock() - t0
            spent[instr.func] = spent.get(instr.func, 0.0) + seconds
            in_order.append((instr.func, seconds))
            counts[instr.func] = counts.get(instr.func, 0) + 1
            if instr.dst is not None:
                regs[instr.dst] = result
            pc += 1
        elif isinstance(instr, Ret):
            total = clock() - start
            rows = tuple(sorted((ProfileRow(k, counts[k], v) for k, v in spent.items()),
                                key=lambda r: -r.seconds))
            return regs[instr.reg], ProfileReport(func.name, rows, total, tuple(in_order))
        elif isinstance(instr, Goto):
            pc += instr.offset
        else:  # If
            pc += 1 if read_cond(regs[instr.cond]) else instr.false_offset
