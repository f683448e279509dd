"""``relax.vm``: the VM names under TVM's older module path (``relax.vm.VirtualMachine``)."""

from ember.runtime.vm import Executable, VirtualMachine

__all__ = ["Executable", "VirtualMachine"]
