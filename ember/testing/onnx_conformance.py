"""ONNX backend conformance for ember's importer: every node test case ONNX ships
(``onnx.backend.test.case.node.collect_testcases``) imported with ``from_onnx``, built
for ``llvm``, run on the Relax VM and compared with the expected outputs at the case's
tolerances.

Cases run in forked child processes, a batch per child: a child that crashes or exceeds
the per-case time limit is killed, the case it was running counts as a failure, and the
rest of its batch goes on in a fresh child.

usage: python -m ember.testing.onnx_conformance [--filter S] [--list-failures]
       [--jobs N] [--timeout S] [--names-file F] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import time
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

__all__ = ["CaseResult", "collect_cases", "run_cases", "summarize", "case_op", "main"]

STATUSES = ("pass", "fail", "unsupported", "error", "crash", "timeout")


@dataclass(frozen=True)
class CaseResult:
    name: str
    op: str
    status: str  # one of STATUSES
    message: str
    tensor_only: bool  # all graph inputs/outputs are tensors
    seconds: float


_CASES: dict[str, object] | None = None


def collect_cases() -> dict[str, object]:
    """ONNX's node test cases by name (generated in a few seconds; cached)."""
    global _CASES
    if _CASES is None:
        _CASES = _load_cached()
    if _CASES is None:
        from onnx.backend.test.case.node import collect_testcases

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _CASES = {c.name: c for c in collect_testcases(None)}
        _store_cached(_CASES)
    return _CASES


def _cache_path() -> str:
    import os

    import onnx

    root = os.environ.get("EMBER_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "ember")
    return os.path.join(root, f"onnx_node_cases-{onnx.__version__}.pkl")


def _load_cached():
    """The cases pickled by an earlier run (generating them takes seconds to a minute)."""
    import pickle

    try:
        with open(_cache_path(), "rb") as f:
            return pickle.load(f)  # noqa: S301 - a file this module wrote
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None


def _store_cached(cases) -> None:
    import os
    import pickle

    path = _cache_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            pickle.dump(cases, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])|(?<=[A-Z])([A-Z])(?=[a-z])", r"_\1\2", name).lower()


_OP_NAMES: dict[str, str] | None = None


def case_op(case) -> str:
    """The ONNX op a case tests: its single node's op, else the op whose snake-case name
    is the longest prefix of the case name."""
    global _OP_NAMES
    nodes = [n for n in case.model.graph.node if n.op_type != "Constant"]
    if "_expanded" not in case.name and len({n.op_type for n in nodes}) == 1:
        return nodes[0].op_type
    if _OP_NAMES is None:
        import onnx.defs

        _OP_NAMES = {_snake(s.name): s.name for s in onnx.defs.get_all_schemas_with_history()}
    rest = case.name.removeprefix("test_")
    best = ""
    for snake in _OP_NAMES:
        if (rest == snake or rest.startswith(snake + "_")) and len(snake) > len(best):
            best = snake
    return _OP_NAMES.get(best, nodes[0].op_type if nodes else "?")


def _tensor_only(model) -> bool:
    values = list(model.graph.input) + list(model.graph.output)
    return all(v.type.WhichOneof("value") == "tensor_type" for v in values)


def _to_numpy(value):
    if isinstance(value, tuple | list):
        return [_to_numpy(v) for v in value]
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def _as_array(value):
    """A case value as numpy: TensorProtos (dtypes numpy lacks: bfloat16, float8, int4)
    through the importer's decoder; sequences element by element."""
    import onnx

    if isinstance(value, onnx.TensorProto):
        from ember.relax.frontend.onnx.common import tensor_to_numpy

        return tensor_to_numpy(value)
    if isinstance(value, list):
        return [_as_array(v) for v in value]
    return value


def _compare(got, expected, rtol: float, atol: float, index: int) -> None:
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            raise AssertionError(f"output {index}: expected a sequence of {len(expected)}")
        for g, e in zip(got, expected, strict=True):
            _compare(g, e, rtol, atol, index)
        return
    expected = np.asarray(expected)
    got = np.asarray(got)
    if got.shape != expected.shape:
        raise AssertionError(f"output {index}: shape {got.shape}, expected {expected.shape}")
    if got.dtype != expected.dtype:
        raise AssertionError(f"output {index}: dtype {got.dtype}, expected {expected.dtype}")
    if expected.dtype.kind in "OSU":
        if not (got == expected).all():
            raise AssertionError(f"output {index}: values differ")
        return
    if expected.dtype.kind not in "fc":
        got, expected = got.astype("float64"), expected.astype("float64")
    else:
        got, expected = got.astype("float64"), expected.astype("float64")
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True,
                               err_msg=f"output {index}")


def run_case(case) -> None:
    """Import, build and run one case; raises on any mismatch."""
    import ember
    from ember import relax
    from ember.relax.frontend.onnx import from_onnx
    from ember.relax.frontend.onnx.lowbit import from_storage, to_storage

    mod = from_onnx(case.model)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    initializers = {t.name for t in case.model.graph.initializer}
    names = [v.name for v in case.model.graph.input if v.name not in initializers]
    out_types = [o.type.tensor_type.elem_type if o.type.HasField("tensor_type") else 0
                 for o in case.model.graph.output]
    for inputs, outputs in case.data_sets:
        # element types ember lacks (float8, int4, ...) cross the boundary as their storage
        arrays = [to_storage(_as_array(x)) for x, _ in zip(inputs, names, strict=False)]
        args = [ember.nd.array(np.ascontiguousarray(x).reshape(np.shape(x)))  # keeps 0-d inputs 0-d
                for x in arrays]
        out = vm["main"](*args)
        got = list(out) if isinstance(out, tuple | list) and len(outputs) > 1 else [out]
        if len(got) != len(outputs):
            raise AssertionError(f"{len(got)} outputs, expected {len(outputs)}")
        for i, (g, e) in enumerate(zip(got, outputs, strict=True)):
            value = _to_numpy(g)
            if i < len(out_types) and not isinstance(value, list):
                value = from_storage(value, out_types[i])
            _compare(value, _as_array(e), case.rtol, case.atol, i)


def _classify(err: BaseException) -> str:
    from ember.relax.frontend.onnx import OpNotImplemented

    if isinstance(err, OpNotImplemented):
        return "unsupported"
    if isinstance(err, AssertionError):
        return "fail"
    return "error"


def _child(names: list[str], conn) -> None:
    import logging

    logging.getLogger("ember").setLevel(logging.ERROR)  # per-op warnings would flood the report
    cases = collect_cases()
    for name in names:
        case = cases[name]
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run_case(case)
            status, message = "pass", ""
        except BaseException as err:  # noqa: BLE001 - every failure is a result
            status = _classify(err)
            message = f"{type(err).__name__}: {err}".strip().splitlines()
            message = " | ".join(message[:3])[:400]
        conn.send((name, status, message, time.perf_counter() - start))
    conn.send(None)
    conn.close()


def _report(msg, verbose: bool) -> None:
    if verbose:
        name, status, _, seconds = msg
        print(f"  {status:11s} {seconds:6.1f}s  {name}", file=sys.stderr, flush=True)


def _run_batch(names: list[str], timeout: float, verbose: bool = False) -> list[tuple[str, str, str, float]]:
    """Run ``names`` in forked children; restart after a crash or a timeout."""
    ctx = multiprocessing.get_context("fork")
    results = []
    pending = list(names)
    while pending:
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(pending, child), daemon=True)
        proc.start()
        child.close()
        done = 0
        while True:
            if not parent.poll(timeout):
                proc.kill()
                results.append((pending[done], "timeout", f"no result within {timeout:g} s", timeout))
                _report(results[-1], verbose)
                done += 1
                break
            try:
                msg = parent.recv()
            except EOFError:
                proc.join(5)
                results.append((pending[done], "crash", f"child process died (exit code {proc.exitcode})", 0.0))
                _report(results[-1], verbose)
                done += 1
                break
            if msg is None:
                break
            results.append(msg)
            _report(msg, verbose)
            done += 1
        proc.join(5)
        if proc.is_alive():
            proc.kill()
        pending = pending[done:]
    return results


def run_cases(names: list[str] | None = None, filter: str | None = None, jobs: int = 1,  # noqa: A002
              timeout: float = 60.0, batch_size: int = 25, verbose: bool = False) -> list[CaseResult]:
    """Run the named cases (all, or those whose name contains ``filter``)."""
    cases = collect_cases()
    if names is None:
        names = sorted(n for n in cases if filter is None or filter in n)
    unknown = [n for n in names if n not in cases]
    if unknown:
        raise ValueError(f"run_cases: unknown case names {unknown[:5]}")
    # import the compiler in the parent so that forked children share it (no kernel runs
    # here: an OpenMP pool started before fork would hang the children)
    import importlib

    for module in ("ember.relax.frontend.onnx", "ember.relax.vm_build", "ember.relax.pipeline",
                   "ember.relax.transform.legalize_ops", "ember.dlight", "ember.codegen.llvm",
                   "ember.tir.transform"):
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    from ember.relax.frontend.onnx.registry import load_converters

    load_converters()
    batches = [names[i:i + batch_size] for i in range(0, len(names), batch_size)]
    raw = []
    if jobs <= 1:
        for batch in batches:
            raw += _run_batch(batch, timeout, verbose)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(jobs) as pool:
            for part in pool.map(lambda b: _run_batch(b, timeout, verbose), batches):
                raw += part
    out = []
    for name, status, message, seconds in raw:
        case = cases[name]
        out.append(CaseResult(name, case_op(case), status, message, _tensor_only(case.model), seconds))
    return out


def summarize(results: list[CaseResult], list_failures: bool = False) -> str:
    """The report: pass rate over tensor cases, a per-op table, sequence/optional cases."""
    lines = []
    tensor = [r for r in results if r.tensor_only]
    other = [r for r in results if not r.tensor_only]
    for title, group in (("tensor cases", tensor), ("sequence/optional cases", other)):
        passed = sum(r.status == "pass" for r in group)
        rate = 100.0 * passed / len(group) if group else 0.0
        counts = Counter(r.status for r in group)
        detail = ", ".join(f"{s} {counts[s]}" for s in STATUSES if counts[s])
        lines.append(f"{title}: {passed}/{len(group)} pass ({rate:.1f}%)  [{detail}]")
    per_op: dict[str, Counter] = defaultdict(Counter)
    for r in tensor:
        per_op[r.op][r.status] += 1
    lines.append("")
    lines.append(f"{'op':32s} {'pass':>5s} {'total':>5s}  not passing")
    for op in sorted(per_op):
        c = per_op[op]
        total = sum(c.values())
        rest = ", ".join(f"{s} {c[s]}" for s in STATUSES[1:] if c[s])
        lines.append(f"{op:32s} {c['pass']:5d} {total:5d}  {rest}")
    if other:
        lines.append("")
        lines.append("sequence/optional cases:")
        for r in sorted(other, key=lambda r: r.name):
            lines.append(f"  {r.name:50s} {r.status}")
    if list_failures:
        lines.append("")
        lines.append("failures:")
        for r in sorted(results, key=lambda r: r.name):
            if r.status != "pass":
                lines.append(f"  {r.name} [{r.status}] {r.message}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ember.testing.onnx_conformance",
                                     description="Run ONNX's node conformance cases through ember.")
    parser.add_argument("--filter", default=None, help="only cases whose name contains this text")
    parser.add_argument("--list-failures", action="store_true", help="print every non-passing case")
    parser.add_argument("--jobs", type=int, default=1, help="child processes run at once")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per case")
    parser.add_argument("--names-file", default=None, help="a file with one case name per line")
    parser.add_argument("--json", default=None, help="write the results as JSON to this file")
    parser.add_argument("--verbose", action="store_true", help="print each case's result as it finishes")
    args = parser.parse_args(argv)
    names = None
    if args.names_file:
        with open(args.names_file) as f:
            names = [line.strip() for line in f if line.strip()]
    start = time.perf_counter()
    results = run_cases(names, args.filter, args.jobs, args.timeout, verbose=args.verbose)
    print(summarize(results, args.list_failures))
    print(f"\n{len(results)} cases in {time.perf_counter() - start:.1f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r.__dict__ for r in results], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
