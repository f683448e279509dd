"""Sweep MetaSchedule's design spaces over every fuzz workload for many seeds (not run by CI).

Each case is ``tests/fuzz/fuzz_ms_spaces.run_case``: the design spaces, mutants and one round
of evolutionary-search candidates of one workload, each built and compared with the
unscheduled kernel, in child processes (a crash fails its case, not the sweep).  Case
``first + r * W + w`` is round ``r`` of workload ``w`` (of ``W``), so ``--rounds 50`` tunes
every workload from 50 seeds.  Prints each failure as it comes with the command that
reproduces it, then a table of cases and failures per workload.

    python tools/ms_space_sweep.py --rounds 10            # 10 seeds per workload
    python tools/ms_space_sweep.py --rounds 2 --only conv_res
"""

from __future__ import annotations

import argparse
import os
import sys

FUZZ_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fuzz")
sys.path.insert(0, FUZZ_DIR)

import fuzz_harness  # noqa: E402
import fuzz_ms_spaces  # noqa: E402
import ms_workloads  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10, help="seeds per workload")
    parser.add_argument("--first", type=int, default=0, help="first case (a multiple of the workload count)")
    parser.add_argument("--only", default="", help="only workloads whose name contains this")
    parser.add_argument("--batch", type=int, default=25, help="cases per child process")
    args = parser.parse_args(argv)
    names = ms_workloads.workload_names(fuzz_ms_spaces.TARGET)
    picked = [i for i, n in enumerate(names) if args.only in n]
    seeds = [args.first + r * len(names) + i for r in range(args.rounds) for i in picked]
    report = fuzz_harness.run("ms_spaces", seeds, batch=args.batch,
                              log=lambda m: print(m, file=sys.stderr, flush=True))
    print(f"{'workload':40s} {'cases':>6s} {'failed':>7s}")
    for i in picked:
        mine = [s for s in seeds if s % len(names) == i]
        failed = [s for s in mine if s in report.failures]
        print(f"{names[i]:40s} {len(mine):6d} {len(failed):7d}  {' '.join(map(str, failed[:8]))}")
    print(report.summary())
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
