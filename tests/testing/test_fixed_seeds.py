"""The suite's reproducibility hooks (tests/conftest.py): each test starts from seeds fixed by
its id, an unseeded TuneContext and Schedule take theirs from those, and hypothesis runs its
derandomized ``ci`` profile unless ``HYPOTHESIS_PROFILE`` asks for another."""

import os
import random
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember.meta_schedule.tune_context import TuneContext


def _expected_draws(nodeid: str):
    seed = zlib.crc32(nodeid.encode())
    return random.Random(seed).random(), np.random.RandomState(seed).random_sample()


def test_each_test_starts_from_seeds_fixed_by_its_id(request):
    assert (random.random(), np.random.random_sample()) == _expected_draws(request.node.nodeid)


def test_an_unseeded_tune_context_draws_the_same_seed_every_run(request):
    first = TuneContext(rand_state=-1).rand_state
    random.seed(zlib.crc32(request.node.nodeid.encode()))
    assert TuneContext(rand_state=-1).rand_state == first


@pytest.mark.skipif(os.environ.get("HYPOTHESIS_PROFILE", "ci") != "ci", reason="another profile asked for")
def test_hypothesis_runs_the_derandomized_ci_profile():
    assert settings.default.derandomize is True
    assert settings.default.database is None
    assert settings.default.deadline is None


_DRAWN: list = []


@settings(max_examples=5)
@given(st.integers())
def _draw(n):
    _DRAWN.append(n)


@pytest.mark.skipif(os.environ.get("HYPOTHESIS_PROFILE", "ci") != "ci", reason="another profile asked for")
def test_a_property_test_draws_the_same_examples_twice():
    _DRAWN.clear()
    _draw()
    first = list(_DRAWN)
    _DRAWN.clear()
    _draw()
    assert _DRAWN == first and len(first) == 5
