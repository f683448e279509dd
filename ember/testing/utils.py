"""TVM test-file conveniences: ``tvm.testing.main()``, ``requires_llvm``, ``parameter``.

TVM test files end with ``if __name__ == "__main__": tvm.testing.main()`` and mark tests
``@tvm.testing.requires_llvm``; fixtures come from ``tvm.testing.parameter(...)``.
"""

from __future__ import annotations

import sys


def requires_llvm(test):
    """Decorator: the test needs the LLVM backend (llvmlite); skipped when it is missing."""
    import importlib.util

    import pytest

    found = importlib.util.find_spec("llvmlite") is not None
    return pytest.mark.skipif(not found, reason="needs llvmlite (the LLVM backend)")(test)


def parameter(*values, ids=None):
    """A pytest fixture taking each of ``values`` in turn (bind it to a module-level name)."""
    import pytest

    if not values:
        raise ValueError("tvm.testing.parameter: expected at least one value, got none")

    @pytest.fixture(params=list(values), ids=ids)
    def fixture(request):
        return request.param

    return fixture


def main() -> None:
    """Run pytest on the calling test file (``python test_x.py``), exiting with its status."""
    import pytest

    caller = sys._getframe(1).f_globals.get("__file__")
    sys.exit(pytest.main([caller, *sys.argv[1:]] if caller else sys.argv[1:]))
