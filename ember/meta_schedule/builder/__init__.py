"""Builders compile scheduled candidates into shared libraries: ``LocalBuilder`` (worker
processes), ``RayBuilder`` (in ``ember.meta_schedule.distributed``)."""

from .builder import Builder, BuilderInput, BuilderResult, create
from .local_builder import LocalBuilder

__all__ = ["Builder", "BuilderInput", "BuilderResult", "LocalBuilder", "create"]
