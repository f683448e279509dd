"""`ember --help`, every subcommand's --help, and usage errors (exit code 2, one line)."""

import subprocess
import sys

import pytest

from ember.cli.main import COMMANDS, main


def test_console_script_help():
    done = subprocess.run([sys.executable, "-m", "ember", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    for name in COMMANDS:
        assert name in done.stdout


def test_declared_console_script_is_main():
    """pyproject's `ember` script points at this main (and runs when installed)."""
    import pathlib
    import shutil
    import tomllib

    root = pathlib.Path(__file__).resolve().parents[2]
    scripts = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["ember"] == "ember.cli.main:main"
    if shutil.which("ember"):
        done = subprocess.run(["ember", "--help"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "compile" in done.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_subcommand_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert f"usage: ember {command}" in out and "--verbose" in out


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["compile"], "the following arguments are required: model"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["run", "m.so", "--repeat", "x"], "invalid int value"),
])
def test_bad_usage_exits_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, message", [
    (["compile", "missing.onnx"], "model file 'missing.onnx' does not exist"),
    (["compile", "missing.onnx", "-o", "m.txt"], "expected a .so or .tar file name"),
    (["compile", "missing.onnx", "--input-shapes", "x:1xq"], "must be integers separated by 'x'"),
    (["tune", "m.onnx", "--work-dir", "w", "--budget", "5x"], "expected a positive duration"),
    (["bench", "m.onnx", "--compare", "tvm"], "unknown runtime(s) tvm"),
    (["run", "missing.so"], "compiled model 'missing.so' does not exist"),
])
def test_usage_errors_exit_2(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err
