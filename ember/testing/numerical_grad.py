"""``check_numerical_grads``: compare gradients against central finite differences.

``function`` takes the inputs (positionally for a list, by name for a dict) and returns
a scalar; ``grad_values`` holds the claimed gradient of that scalar with respect to each
input, in the same structure.  Every element's derivative is estimated as
``(f(x + δ) − f(x − δ)) / 2δ`` (a 4-point stencil where that disagrees); as in TVM, the
distance between the two gradients must stay within ``atol·√n + rtol·‖numerical‖``. An
AssertionError names the input, the worst element and both values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_numerical_grads"]


def _as_input(value) -> np.ndarray:
    """A private copy of an input, keeping a float dtype (the function under test may accept
    only its own dtype, as TVM's helper assumes); other inputs become float64."""
    array = np.array(value)
    return array if np.issubdtype(array.dtype, np.floating) else array.astype("float64")


def _call(function, values, names):
    if names is None:
        return float(np.asarray(function(*values)).sum())
    return float(np.asarray(function(**dict(zip(names, values)))).sum())


def check_numerical_grads(function, input_values, grad_values, function_value=None, delta: float = 1e-3,
                          atol: float = 1e-2, rtol: float = 0.1) -> None:
    """Raise AssertionError unless ``grad_values`` match the finite-difference gradients."""
    names = None
    if isinstance(input_values, dict):
        names = list(input_values)
        inputs = [_as_input(input_values[n]) for n in names]
        if not isinstance(grad_values, dict):
            raise TypeError("check_numerical_grads: grad_values must be a dict when input_values is one")
        grads = [None if grad_values.get(n) is None else np.asarray(grad_values[n], dtype="float64")
                 for n in names]
    else:
        inputs = [_as_input(v) for v in input_values]
        grads = [None if g is None else np.asarray(g, dtype="float64") for g in grad_values]
        if len(grads) != len(inputs):
            raise ValueError(f"check_numerical_grads: {len(inputs)} inputs but {len(grads)} gradients")
    if function_value is not None:
        got = _call(function, inputs, names)
        if not np.isclose(got, float(np.asarray(function_value).sum()), atol=atol, rtol=rtol):
            raise AssertionError(f"check_numerical_grads: function value {got} != given {function_value}")
    for k, (x, grad) in enumerate(zip(inputs, grads)):
        if grad is None:
            continue
        if grad.shape != x.shape:
            raise ValueError(f"check_numerical_grads: gradient {k} has shape {grad.shape}, input {x.shape}")
        numeric = np.zeros(x.shape, dtype="float64")
        flat, out = x.reshape(-1), numeric.reshape(-1)
        expected = grad.reshape(-1)

        def at(i, step):
            old = flat[i]
            flat[i] = old + step
            value = _call(function, inputs, names)
            flat[i] = old
            return value

        for i in range(flat.size):
            out[i] = (at(i, delta) - at(i, -delta)) / (2 * delta)
            if abs(out[i] - expected[i]) > atol + rtol * abs(out[i]):  # retry with a 4-point stencil
                out[i] = (8 * (at(i, delta) - at(i, -delta)) - at(i, 2 * delta) + at(i, -2 * delta)) / (12 * delta)
        # as TVM: the gradient as a whole must be close (rounding in the function makes single
        # elements of a float32 difference quotient noisy)
        dist = float(np.sqrt(np.sum((numeric - grad) ** 2)))
        if dist > atol * np.sqrt(float(max(x.size, 1))) + rtol * float(np.sqrt(np.sum(numeric ** 2))):
            err = np.abs(numeric - grad)
            worst = np.unravel_index(int(np.argmax(err)), err.shape)
            label = names[k] if names else k
            raise AssertionError(f"check_numerical_grads: gradient of input {label} differs at {worst}: "
                                 f"numerical {numeric[worst]:.6g}, given {grad[worst]:.6g} "
                                 f"(distance {dist:.6g}; atol={atol}, rtol={rtol})")
