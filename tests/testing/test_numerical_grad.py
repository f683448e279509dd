"""ember.testing.check_numerical_grads."""

import numpy as np
import pytest

from ember.testing import check_numerical_grads


def test_correct_gradients_pass():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    check_numerical_grads(lambda a, b: (a * b).sum(), [x, y], [y, x])
    check_numerical_grads(lambda a, b: (a * a + b).sum(), {"a": x, "b": y}, {"a": 2 * x, "b": np.ones(3)})


def test_wrong_gradient_is_reported():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(AssertionError, match="gradient of input 0 differs at"):
        check_numerical_grads(lambda a: (a ** 2).sum(), [x], [x])  # should be 2x


def test_none_gradient_is_skipped_and_value_checked():
    x = np.array([1.0, 2.0])
    check_numerical_grads(lambda a, b: (a * 3).sum(), [x, x], [np.full(2, 3.0), None], function_value=9.0)
    with pytest.raises(AssertionError, match="function value"):
        check_numerical_grads(lambda a: a.sum(), [x], [np.ones(2)], function_value=5.0)
