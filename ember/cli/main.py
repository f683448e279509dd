"""``ember``: compile, run, benchmark, tune and inspect models from the command line.

Each subcommand lives in its own module (``cmd_<name>.py``) with ``register(subparsers)``
and ``run(args, progress) -> exit code``; this file builds the parser from that table and
turns errors into one line (exit 2: bad usage; exit 1: a model or file ember rejects).
``--verbose`` shows the traceback too.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback

from .ui import ModelError, Progress, UsageError

COMMANDS = ("compile", "run", "bench", "tune", "inspect")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code 2
        self.exit(2, f"ember: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ember", description="ember: an end-to-end deep learning compiler. "
                     "Compile ONNX models to native libraries, run, benchmark, tune and inspect them.")
    parser.add_argument("--version", action="version", version=f"ember {_version()}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="store_true", help="show the full traceback on errors")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"ember.cli.cmd_{name}").register(sub, common)
    return parser


def _version() -> str:
    from ember import __version__

    return __version__


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "threads", None):  # before any compiled code starts OpenMP
        os.environ["OMP_NUM_THREADS"] = os.environ["EMBER_NUM_THREADS"] = str(args.threads)
    progress = Progress(quiet=args.quiet)
    try:
        return int(args.handler(args, progress) or 0)
    except UsageError as err:
        _report(args, err)
        return 2
    except KeyboardInterrupt:
        print("ember: interrupted", file=sys.stderr)
        return 130
    except (ModelError, ValueError, TypeError, NotImplementedError, RuntimeError, OSError, KeyError) as err:
        _report(args, err)
        return 1


def _report(args, err: BaseException) -> None:
    if args.verbose:
        traceback.print_exception(err)
    text = str(err).strip() or type(err).__name__
    if isinstance(err, KeyError) and text.startswith(("'", '"')):
        text = text[1:-1]
    lines = text.splitlines()
    print(f"ember {args.command}: error: {lines[0]}", file=sys.stderr)
    for line in lines[1:]:  # lists (e.g. every unsupported operator) stay readable
        print(f"  {line}", file=sys.stderr)
    if not args.verbose and not isinstance(err, UsageError | ModelError):
        print("  (run with --verbose for the traceback)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
