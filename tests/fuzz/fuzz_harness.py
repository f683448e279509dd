"""Run ember's fuzzers deterministically, each batch of cases in a child process.

A fuzzer is a module ``fuzz_<kind>.py`` next to this file with ``run_case(seed) -> str | None``
(None: the case passed; a string: what went wrong).  Cases run in batches in child
processes, so a crash (a segfault, an abort) is a failure of the case that caused it,
not the end of the run: a batch whose child dies is re-run case by case, each in its
own child, to name the crashing seeds.

    python tests/fuzz/fuzz_harness.py all --cases 1000          # every fuzzer, seeds 0..999
    python tests/fuzz/fuzz_harness.py schedules --seed 1234 --cases 1   # reproduce one case
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ("calls", "schedules", "tvmscript", "relax", "indices", "ms_spaces")
CASE_TIMEOUT_S = 120  # per case; a batch gets this times its size
_MARK = "@@fuzz "


@dataclass
class Report:
    kind: str
    cases: int = 0
    failures: dict[int, str] = field(default_factory=dict)
    seconds: float = 0.0

    def reproduce(self, seed: int) -> str:
        return f"python tests/fuzz/fuzz_harness.py {self.kind} --seed {seed} --cases 1"

    def summary(self) -> str:
        lines = [f"{self.kind}: {self.cases} cases, {len(self.failures)} failed ({self.seconds:.0f} s)"]
        for seed, why in sorted(self.failures.items()):
            lines.append(f"  seed {seed}: {why.splitlines()[0][:300]}\n    reproduce: {self.reproduce(seed)}")
        return "\n".join(lines)


def _child_command(kind: str, seeds: list[int]) -> list[str]:
    return [sys.executable, os.path.abspath(__file__), "--child", kind, *map(str, seeds)]


def _run_child(kind: str, seeds: list[int]) -> tuple[dict[int, str | None], str | None]:
    """Results by seed from one child, and why the child ended abnormally (None if it did not)."""
    env = dict(os.environ, PYTHONFAULTHANDLER="1", EMBER_FUZZ_DIR=HERE)
    try:
        done = subprocess.run(_child_command(kind, seeds), capture_output=True, text=True, env=env,
                              timeout=CASE_TIMEOUT_S * len(seeds), cwd=os.path.dirname(os.path.dirname(HERE)))
    except subprocess.TimeoutExpired as err:
        out, died = (err.stdout or b""), f"timed out after {CASE_TIMEOUT_S * len(seeds)} s"
        out = out.decode() if isinstance(out, bytes) else out
    else:
        out = done.stdout
        died = None
        if done.returncode != 0:
            code = done.returncode
            what = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
            died = f"the process died ({what}): {done.stderr.strip().splitlines()[-1:] or ''}"
    results: dict[int, str | None] = {}
    for line in out.splitlines():
        if line.startswith(_MARK):
            entry = json.loads(line[len(_MARK):])
            results[entry["seed"]] = entry["failure"]
    return results, died


def run(kind: str, seeds: list[int], batch: int = 25, log=None) -> Report:
    """Run ``seeds`` of fuzzer ``kind`` in child processes of ``batch`` cases each."""
    report = Report(kind)
    start = time.time()
    for at in range(0, len(seeds), batch):
        chunk = seeds[at:at + batch]
        results, died = _run_child(kind, chunk)
        missing = [s for s in chunk if s not in results]
        if died and missing:  # re-run what the batch did not finish, one case per child
            for seed in missing:
                alone, why = _run_child(kind, [seed])
                results[seed] = alone.get(seed) if seed in alone and why is None else (why or "no result")
        for seed in chunk:
            report.cases += 1
            failure = results.get(seed, "no result")
            if failure is not None:
                report.failures[seed] = failure
                if log is not None:  # at once, so a run stopped early still names its failures
                    log(f"{kind}: seed {seed} FAILED: {failure.splitlines()[0][:300]}\n"
                        f"  reproduce: {report.reproduce(seed)}")
        if log is not None:
            log(f"{kind}: {report.cases}/{len(seeds)} cases, {len(report.failures)} failed")
    report.seconds = time.time() - start
    return report


def _child(kind: str, seeds: list[int]) -> None:
    """Run cases in this process, one JSON line per case (flushed: a crash loses nothing done)."""
    sys.path.insert(0, os.environ.get("EMBER_FUZZ_DIR", HERE))  # where the fuzz_<kind>.py modules are
    sys.path.insert(1, HERE)
    module = importlib.import_module(f"fuzz_{kind}")
    for seed in seeds:
        try:
            failure = module.run_case(seed)
        except Exception:  # noqa: BLE001 - an escaped exception is a failure of the case
            failure = "uncaught: " + traceback.format_exc(limit=6)
        print(_MARK + json.dumps({"seed": seed, "failure": failure}), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=(*KINDS, "all"))
    parser.add_argument("--cases", type=int, default=100, help="cases per fuzzer")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--batch", type=int, default=25, help="cases per child process")
    args = parser.parse_args(argv)
    kinds = KINDS if args.kind == "all" else (args.kind,)
    failed = 0
    for kind in kinds:
        report = run(kind, list(range(args.seed, args.seed + args.cases)), args.batch,
                     log=lambda m: print(m, file=sys.stderr, flush=True))
        print(report.summary(), flush=True)
        failed += len(report.failures)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        _child(sys.argv[2], [int(s) for s in sys.argv[3:]])
    else:
        sys.exit(main())
