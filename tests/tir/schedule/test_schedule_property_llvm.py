"""Property: random sequences of legal primitives build with LLVM to code that computes
what numpy computes.

The steps are those of ``test_schedule_property`` (a refused primitive leaves the
schedule unchanged); the scheduled function is then compiled for ``llvm`` and run on
random inputs.  The default profile is small so the suite stays fast; the ``slow``
profile draws many more schedules (``pytest -m slow``).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sched_helpers import outputs, random_args
from test_schedule_property import WORKLOADS, _step

from ember.tir import Schedule, ScheduleError


def _conv2d(a, w):
    n, c, h, wd = a.shape
    f, _, kh, kw = w.shape
    pad = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, f, h, wd))
    for ry in range(kh):
        for rx in range(kw):
            out += np.einsum("nchw,fc->nfhw", pad[:, :, ry:ry + h, rx:rx + wd], w[:, :, ry, rx])
    return out


# the output (last parameter) of each workload from its inputs
REFERENCES = {
    "matmul": lambda a, b: a @ b,
    "matmul_relu": lambda a, b: np.maximum(a @ b, 0),
    "elementwise": lambda a: a * 2 + 1,
    "row_sum": lambda a: a.sum(axis=1),
    "conv2d": _conv2d,
}


def _random_schedule(name, data):
    sch = Schedule(WORKLOADS[name](), seed=0)
    for _ in range(data.draw(st.integers(1, 6))):
        try:
            _step(sch, data)
        except ScheduleError:
            pass
    return sch.mod["main"]


def _check_compiled(name, func):
    import ember

    rng = np.random.default_rng(0)
    shapes = [tuple(int(s) for s in func.buffer_map[p].shape) for p in func.params]
    args = [rng.standard_normal(s).astype("float32") for s in shapes]
    out = ember.nd.array(np.zeros(shapes[-1], "float32"))
    ember.build(func, target="llvm")(*[ember.nd.array(a) for a in args[:-1]], out)
    want = REFERENCES[name](*[a.astype("float64") for a in args[:-1]])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_references_match_the_workloads(name):
    func = WORKLOADS[name]()
    inputs = random_args(func)[:-1]
    np.testing.assert_allclose(outputs(func)[-1], REFERENCES[name](*[a.astype("float64") for a in inputs]),
                               rtol=1e-4, atol=1e-4)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(WORKLOADS)), data=st.data())
def test_random_schedules_compile_like_numpy(name, data):
    _check_compiled(name, _random_schedule(name, data))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(WORKLOADS)), data=st.data())
def test_random_schedules_compile_like_numpy_many(name, data):
    _check_compiled(name, _random_schedule(name, data))
