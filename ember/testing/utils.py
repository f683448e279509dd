"""``tvm.testing.main()``: TVM test files end with ``if __name__ == "__main__": tvm.testing.main()``."""

from __future__ import annotations

import sys

from .numerical_grad import check_numerical_grads  # noqa: F401 - tvm.testing.utils.check_numerical_grads


def main() -> None:
    """Run pytest on the calling test file (``python test_x.py``), exiting with its status."""
    import pytest

    caller = sys._getframe(1).f_globals.get("__file__")
    sys.exit(pytest.main([caller, *sys.argv[1:]] if caller else sys.argv[1:]))
