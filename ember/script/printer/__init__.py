"""The TVMScript printer: ``to_script(node)`` and the per-class printer registry."""

from .dispatch import PrintConfig, find_printer, header, register_printer, to_script

__all__ = ["to_script", "register_printer", "find_printer", "PrintConfig", "header"]
