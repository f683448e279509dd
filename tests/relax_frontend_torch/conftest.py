"""PyTorch frontend tests need torch; they skip cleanly without it."""

import pytest

pytest.importorskip("torch")
