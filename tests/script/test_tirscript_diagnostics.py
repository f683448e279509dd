"""Parser errors reach ember.ir.diagnostics' renderer before they raise."""

import pytest

from ember.error import DiagnosticError
from ember.ir import diagnostics
from ember.script import from_source

BAD = '''@T.prim_func
def f(a: T.handle):
    A = T.match_buffer(a, (4,), "float32")
    A[0] = undefined_name
'''


def test_override_renderer_collects_the_diagnostic():
    seen = []
    diagnostics.override_renderer(lambda ctx: seen.extend(ctx.diagnostics))
    try:
        with pytest.raises(DiagnosticError):
            from_source(BAD)
    finally:
        diagnostics.override_renderer(None)
    assert len(seen) == 1
    diag = seen[0]
    assert diag.level == diagnostics.DiagnosticLevel.ERROR
    assert diag.span.line == 4 and "undefined_name" in diag.message


def test_default_renderer_is_silent_and_the_error_shows_the_line(capsys):
    with pytest.raises(DiagnosticError, match="undefined_name") as info:
        from_source(BAD)
    assert "A[0] = undefined_name" in str(info.value)
    assert capsys.readouterr().out == ""
