"""Fixtures for the Relax build tests (the models live in relax_build_models.py)."""

from relax_build_models import mlp_exe  # noqa: F401 - a fixture
