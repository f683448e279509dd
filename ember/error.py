"""ember's error classes under TVM's names (``tvm.error``, ``tvm.TVMError``).

Every error the compiler raises for a user mistake derives from ``TVMError`` and also
from the Python exception that describes it best (a refused schedule is a ``ValueError``,
a bad operand type of a Relax op a ``TypeError``), so both ``except tvm.TVMError`` and
``except ValueError`` catch it.
"""

from __future__ import annotations

__all__ = [
    "TVMError", "InternalError", "DiagnosticError", "OpError", "OpNotImplemented",
    "OpAttributeRequired", "OpAttributeInvalid", "OpAttributeUnImplemented", "RPCError",
    "RPCSessionTimeoutError", "StructInfoError", "StructInfoTypeError", "register_error",
    "ConstantRangeError", "DivisionByZeroError", "UnknownDataTypeError", "NullOperandError",
    "NodeFieldTypeError",
]


class TVMError(RuntimeError):
    """Base class of the errors ember raises for programs it cannot accept."""


class InternalError(TVMError):
    """An invariant of ember itself was broken: a bug to report, not a user mistake."""


class DiagnosticError(TVMError):
    """A program (TVMScript, a model) was rejected with a located diagnostic."""


class OpError(TVMError):
    """An operator of an imported model or graph is wrong or unsupported."""


class OpNotImplemented(OpError, NotImplementedError):
    """Operators ember cannot convert or compile yet (listed all at once)."""


class OpAttributeRequired(OpError, AttributeError):
    """An operator lacks a required attribute."""


class OpAttributeInvalid(OpError, AttributeError):
    """An operator attribute has a value ember cannot accept."""


class OpAttributeUnImplemented(OpError, NotImplementedError):
    """An operator attribute value is valid but not supported yet."""


class RPCError(TVMError):
    """Remote sessions (``tvm.rpc``) are not part of ember."""


class RPCSessionTimeoutError(RPCError, TimeoutError):
    """A remote session timed out."""


class ConstantRangeError(TVMError, ValueError):
    """A literal that its dtype cannot hold (``tir.const(256, "uint8")``)."""


class UnknownDataTypeError(TVMError, ValueError):
    """A data type string ember cannot parse (``"float7"``, ``"int40"``)."""


class NullOperandError(TVMError, ValueError, TypeError):
    """An expression operator got ``None`` as an operand (TVM: a ValueError)."""


class NodeFieldTypeError(TVMError, TypeError):
    """A node constructor got a field of the wrong kind (a Var named by an int)."""


class DivisionByZeroError(TVMError, ZeroDivisionError):
    """Constant folding met a division by a constant zero."""


class StructInfoError(TVMError, ValueError):
    """A Relax call whose operands' shapes or values the operator cannot accept."""


class StructInfoTypeError(TVMError, TypeError):
    """A Relax call whose operands have kinds or dtypes the operator cannot accept."""


def register_error(name_or_cls=None, cls=None):
    """TVM's decorator to map a C++ error name to a Python class; ember has no C++ side,
    so it returns the class unchanged."""
    if isinstance(name_or_cls, type):
        return name_or_cls
    return (lambda c: c) if cls is None else cls
