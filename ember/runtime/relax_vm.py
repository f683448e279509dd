"""``tvm.runtime.relax_vm`` (TVM's older module name): the Relax ``VirtualMachine`` and its
``Executable``, as in ``ember.runtime.vm``."""

from .vm import Executable, VirtualMachine  # noqa: F401

__all__ = ["VirtualMachine", "Executable"]
