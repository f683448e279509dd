"""ember.script.highlight.cprint and Node.show(style=...)."""

import pytest

from ember import tir
from ember.script.highlight import cprint


def test_cprint_plain_when_not_a_terminal(capsys):
    cprint("x = 1")
    assert capsys.readouterr().out == "x = 1\n"


def test_cprint_colours_a_named_style(capsys):
    pytest.importorskip("pygments")
    cprint("x = 1", style="dark")
    out = capsys.readouterr().out
    assert "\x1b[" in out and "x" in out


def test_cprint_rejects_an_unknown_style():
    pytest.importorskip("pygments")
    with pytest.raises(ValueError, match="unknown style"):
        cprint("x = 1", style="no-such-style")


def test_show_prints_the_script(capsys):
    a = tir.Var("a", "handle")
    func = tir.PrimFunc([a], tir.Evaluate(0)).with_attr("global_symbol", "main")
    func.show()
    assert capsys.readouterr().out == func.script() + "\n"
