"""The Relax virtual machine: executable format, builtins, pooled allocator, interpreter."""

from .allocator import PooledAllocator, Storage, default_allocator
from .executable import Arg, Call, Executable, Goto, If, Ret, VMFunction
from .vm import VirtualMachine
from . import ccl_builtins, inspect_builtins  # noqa: F401 - register runtime.disco.*, vm.builtin.tensor_*
