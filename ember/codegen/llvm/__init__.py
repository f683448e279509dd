"""ember.codegen.llvm: lowered TIR → LLVM IR (llvmlite) → optimised → JIT-compiled in-process."""

from .build import LLVMModule, build_llvm, cache_info, clear_cache
from .codegen import CodeGenLLVM, CodegenError
from .export import load_library
from .expr import NONTEMPORAL_STORE

__all__ = ["LLVMModule", "build_llvm", "cache_info", "clear_cache", "CodeGenLLVM", "CodegenError", "load_library",
           "NONTEMPORAL_STORE"]
