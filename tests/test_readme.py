"""The README's snippets run: its python blocks in order in one namespace, then its
`ember ...` command lines; and it starts with the install and test commands."""

import pathlib
import re
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.S)


def test_readme_starts_with_install_and_test_commands():
    lang, first = BLOCKS[0]
    assert lang == "bash"
    assert 'pip install -e ".[dev]" && python examples/quickstart.py' in first
    assert "python -m pytest" in first
    assert README.index("```bash") < README.index("## ")


def test_readme_names_no_outside_files():
    for text in (README, (ROOT / "docs" / "architecture.md").read_text()):
        assert "../shared" not in text and "DESIGN.md" not in text


def test_readme_snippets_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    python_blocks = [code for lang, code in BLOCKS if lang == "python"]
    assert len(python_blocks) >= 3
    for code in python_blocks:
        exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - our own documentation
    commands = []
    for lang, code in BLOCKS:
        lines = [line.split("#")[0].strip() for line in code.splitlines()]
        if lang == "bash" and lines and all(not line or line.startswith("ember ") for line in lines):
            commands += [line for line in lines if line]
    assert any(c.startswith("ember compile") for c in commands)
    for command in commands:
        argv = shlex.split(command)[1:]
        done = subprocess.run([sys.executable, "-m", "ember", *argv], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stderr}"


def test_readme_links_exist():
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    for target in re.findall(r"\]\(([^)#]+)\)", prose):
        if "://" not in target:
            assert (ROOT / target).exists(), target
