"""``RayBuilder`` / ``RayRunner``: build and measure candidates on a Ray cluster.

``ray.init(address=...)`` joins a running cluster; without an address a local one is
started (``num_cpus`` worker slots).  Libraries and reference results travel as bytes,
so workers need no shared file system; the driver keeps the database.  A task that
raises, whose worker dies (segfault) or that runs past ``timeout_sec`` (then cancelled
with force, which kills its worker) becomes a failed result, and the run goes on."""

from __future__ import annotations

import os
import tempfile
import time

from .builder.builder import BuilderInput, BuilderResult, build_to_bytes
from .runner.config import EvaluatorConfig
from .runner.runner import RunnerFuture, RunnerInput, RunnerResult


def _ray():
    try:
        import ray
    except ImportError as err:  # pragma: no cover - ray is an optional extra
        raise ImportError("RayBuilder / RayRunner need ray: pip install 'ember[distributed]'") from err
    return ray


def ensure_ray(address: str | None = None, num_cpus: int | None = None):
    """Join the cluster at ``address`` (or start a local one) unless Ray is running already."""
    ray = _ray()
    if not ray.is_initialized():
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = {"env_vars": {"PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}}
        kwargs = {"address": address} if address else {"num_cpus": num_cpus or os.cpu_count(),
                                                        "include_dashboard": False}
        ray.init(runtime_env=env, ignore_reinit_error=True, log_to_driver=False, **kwargs)
    return ray


def _measure_bytes(library: bytes, args_info, config, reference: bytes | None):
    from .runner.measure import measure

    ref_path = None
    if reference is not None:
        fd, ref_path = tempfile.mkstemp(suffix=".npz", prefix="ms_ref_")
        with os.fdopen(fd, "wb") as f:
            f.write(reference)
    try:
        return measure(library, args_info, config, ref_path)
    finally:
        if ref_path:
            os.remove(ref_path)


def _gather(ray, refs: list, timeout_sec: float) -> list:
    """(value, error) per ref; refs not done within ``timeout_sec`` are force-cancelled."""
    deadline = time.time() + timeout_sec
    pending = list(refs)
    while pending and time.time() < deadline:
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=max(0.0, deadline - time.time()))
    out = []
    for ref in refs:
        if ref in pending:
            ray.cancel(ref, force=True)
            out.append((None, f"TimeoutError: no result within {timeout_sec} s; the Ray task was cancelled"))
            continue
        try:
            out.append((ray.get(ref), None))
        except Exception as err:  # noqa: BLE001 - RayTaskError, WorkerCrashedError …
            text = str(err).strip().splitlines()
            out.append((None, f"{type(err).__name__}: {text[-1] if text else ''}"))
    return out


class RayBuilder:
    def __init__(self, address: str | None = None, timeout_sec: float = 60.0, num_cpus: int | None = None):
        self.ray = ensure_ray(address, num_cpus)
        self.timeout_sec = timeout_sec
        self._build = self.ray.remote(max_retries=0)(build_to_bytes)
        self._tmp = tempfile.TemporaryDirectory(prefix="ember_ms_ray_build_")

    def build(self, build_inputs: list[BuilderInput]) -> list[BuilderResult]:
        refs = [self._build.remote(b.mod, str(b.target)) for b in build_inputs]
        out = []
        for value, error in _gather(self.ray, refs, self.timeout_sec * max(1, len(refs))):
            if error is not None:
                out.append(BuilderResult(None, f"build failed: {error}"))
                continue
            fd, path = tempfile.mkstemp(suffix=".so", prefix="ms_", dir=self._tmp.name)
            with os.fdopen(fd, "wb") as f:
                f.write(value)
            out.append(BuilderResult(path, None))
        return out


class RayRunner:
    def __init__(self, address: str | None = None, evaluator_config: EvaluatorConfig | None = None,
                 timeout_sec: float = 30.0, num_cpus: int | None = None):
        self.ray = ensure_ray(address, num_cpus)
        self.evaluator_config = evaluator_config or EvaluatorConfig()
        self.timeout_sec = timeout_sec
        self._measure = self.ray.remote(max_retries=0)(_measure_bytes)

    def run(self, runner_inputs: list[RunnerInput]) -> list[RunnerFuture]:
        refs, refs_of = [], {}
        for n, inp in enumerate(runner_inputs):
            with open(inp.artifact_path, "rb") as f:
                lib = f.read()
            reference = None
            if inp.reference is not None:
                with open(inp.reference, "rb") as f:
                    reference = f.read()
            refs_of[n] = len(refs)
            refs.append(self._measure.remote(lib, inp.args_info, self.evaluator_config, reference))
        gathered = _gather(self.ray, refs, self.timeout_sec * max(1, len(refs)))
        return [RunnerFuture(RunnerResult(list(v), None) if e is None else RunnerResult(None, e))
                for v, e in (gathered[refs_of[n]] for n in range(len(runner_inputs)))]
