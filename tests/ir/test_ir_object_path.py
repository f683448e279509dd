"""ObjectPath values and get_first_structural_mismatch's paths into both trees."""

import pytest

from ember import tir
from ember.ir.base import get_first_structural_mismatch
from ember.runtime import ObjectPath, ObjectPathPair


def test_object_path_steps_and_equality():
    path = ObjectPath.root().attr("body").array_index(2).attr("value")
    assert str(path) == "<root>.body[2].value"
    assert len(path) == 4
    assert path == ObjectPath.root().attr("body").array_index(2).attr("value")
    assert path != ObjectPath.root().attr("body").array_index(3).attr("value")
    assert path.get_prefix(2) == ObjectPath.root().attr("body")
    assert ObjectPath.root().attr("body").is_prefix_of(path)
    assert not path.is_prefix_of(ObjectPath.root())
    assert str(ObjectPath.root().attr("a").missing_array_element(1)) == "<root>.a[<missing element #1>]"
    assert len({path, ObjectPath.root().attr("body").array_index(2).attr("value")}) == 1


def test_get_prefix_checks_length():
    with pytest.raises(IndexError, match="length"):
        ObjectPath.root().get_prefix(3)


def test_mismatch_paths_point_at_the_difference():
    x = tir.Var("x", "int32")
    assert get_first_structural_mismatch(x + 1, x + 1) is None
    pair = get_first_structural_mismatch(x + 1, x + 2)
    assert isinstance(pair, ObjectPathPair)
    assert pair.lhs_path == pair.rhs_path
    assert str(pair.lhs_path).startswith("<root>.b")


def test_mismatch_of_sequence_lengths_names_the_missing_element():
    pair = get_first_structural_mismatch((1, 2), (1, 2, 3))
    assert pair.lhs_path == ObjectPath.root().missing_array_element(2)
    assert pair.rhs_path == ObjectPath.root().array_index(2)
