"""Helpers for TVMScript tests: print → parse → compare."""

import pytest

import ember
from ember.ir import assert_structural_equal


def roundtrip(node):
    """Print ``node``, parse the text back, check structural equality and a stable print."""
    text = node.script()
    parsed = ember.script.from_source(text)
    assert_structural_equal(node, parsed)
    assert parsed.script() == text
    return parsed


@pytest.fixture
def check_roundtrip():
    return roundtrip
