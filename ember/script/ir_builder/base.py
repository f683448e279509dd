"""The frame-based IR builder: ``with IRBuilder() as ib: ...; ib.get()``.

An ``IRBuilder`` holds a stack of open frames.  A frame is a context manager for one
scoped construct (a function, a block, a loop, a ``LetStmt`` …): entering pushes it,
statements built inside are appended to the innermost frame that collects statements,
and leaving pops it and hands the finished node to the frame below (or, at the bottom,
makes it the builder's result).  The dialect namespaces (``ir_builder.tir``,
``ir_builder.ir``) define the frames and the words that add to them.
"""

from __future__ import annotations

__all__ = ["IRBuilder", "IRBuilderFrame"]

_BUILDERS: list[IRBuilder] = []  # the builders whose `with` is open, innermost last


class IRBuilderFrame:
    """One open scope.  Subclasses override ``finish`` (what leaving the frame builds)
    and may collect statements in ``self.stmts``."""

    collects_stmts = False

    def __init__(self) -> None:
        self.stmts: list = []
        self.callbacks: list = []

    def enter_value(self):
        """What ``with frame as x`` binds (the frame itself unless a subclass says)."""
        return self

    def __enter__(self):
        IRBuilder.current().frames.append(self)
        return self.enter_value()

    def __exit__(self, exc_type, exc, tb) -> None:
        builder = IRBuilder.current()
        if not builder.frames or builder.frames[-1] is not self:
            raise RuntimeError(f"{type(self).__name__}: frames must be closed in the order they were opened")
        builder.frames.pop()
        if exc_type is not None:
            return
        for callback in reversed(self.callbacks):
            callback()
        result = self.finish()
        if result is not None:
            builder.add(result)

    def add_callback(self, callback) -> None:
        """Call ``callback()`` when the frame closes, before it builds its node."""
        self.callbacks.append(callback)

    def finish(self):
        """The node the frame builds when it closes (None: nothing to hand on)."""
        return None

    def take(self, node) -> bool:
        """Accept ``node`` built by an inner frame or word; False passes it further down."""
        if self.collects_stmts:
            self.stmts.append(node)
            return True
        return False


class IRBuilder:
    """Collects what the dialect words build; ``get()`` returns the finished node."""

    def __init__(self) -> None:
        self.frames: list[IRBuilderFrame] = []
        self.results: list = []

    def __enter__(self) -> IRBuilder:
        _BUILDERS.append(self)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if _BUILDERS and _BUILDERS[-1] is self:
            _BUILDERS.pop()

    @staticmethod
    def current() -> IRBuilder:
        """The innermost builder whose ``with`` is open (raises when there is none)."""
        if not _BUILDERS:
            raise ValueError("no IRBuilder is open: use `with IRBuilder() as ib:` first")
        return _BUILDERS[-1]

    @staticmethod
    def is_in_scope() -> bool:
        """Whether some builder's ``with`` is open."""
        return bool(_BUILDERS)

    def add(self, node) -> None:
        """Hand ``node`` to the innermost frame that collects it, or keep it as a result."""
        for frame in reversed(self.frames):
            if frame.take(node):
                return
        self.results.append(node)

    def find_frame(self, kind):
        """The innermost open frame of type ``kind``, or None."""
        for frame in reversed(self.frames):
            if isinstance(frame, kind):
                return frame
        return None

    def get(self):
        """The finished node (statements built at the top level come back as one sequence)."""
        if self.frames:
            raise ValueError(f"IRBuilder.get: {len(self.frames)} frame(s) are still open "
                             f"(innermost: {type(self.frames[-1]).__name__})")
        if not self.results:
            raise ValueError("IRBuilder.get: nothing has been built")
        if len(self.results) == 1:
            return self.results[0]
        from ember.tir.stmt import Stmt, seq

        if all(isinstance(r, Stmt) for r in self.results):
            return seq(*self.results)
        return list(self.results)

    @staticmethod
    def name(name: str, value):
        """Give ``value`` (a Var, a Buffer, or a list of them) the name ``name``; returns it.

        The object was made by the builder a moment ago and nothing has printed it yet,
        so the name is set in place, as the script's own assignment would have named it.
        """
        from ember.ir.expr import Var
        from ember.tir.buffer import Buffer

        if isinstance(value, Var):
            object.__setattr__(value, "name", name)
        elif hasattr(value, "name_hint") and hasattr(value, "struct_info_or_none"):  # a Relax Var
            object.__setattr__(value, "name_hint", name)
        elif isinstance(value, Buffer):
            if value.data.name == value.name:
                object.__setattr__(value.data, "name", name)
            object.__setattr__(value, "name", name)
        elif not isinstance(value, int | float | str) and value is not None:
            raise TypeError(f"IRBuilder.name: expected a Var or a Buffer to name {name!r}, "
                            f"got {type(value).__name__}")
        return value

    @staticmethod
    def name_many(names, values) -> list:
        """``name`` applied pairwise."""
        if len(names) != len(values):
            raise ValueError(f"IRBuilder.name_many: {len(names)} names for {len(values)} values")
        return [IRBuilder.name(n, v) for n, v in zip(names, values)]
