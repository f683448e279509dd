"""Fuzz the TVMScript parser with mutated scripts.

A case prints a random program (from the schedule fuzzer's generator, sometimes
scheduled), mutates its text (numbers, dtypes, operators, names, deleted or duplicated
lines, decorator keywords …) and parses it.  Parsing must either succeed or raise a
``ParserError`` (with a location); a parsed function must print and parse back to the
same function, and building it must either work or raise a diagnostic (an ember error,
``ValueError`` or ``TypeError``), never an internal error (``KeyError``,
``AttributeError``, an LLVM verifier failure …).  Mutated programs are not run: a
mutated index may legitimately read out of bounds.
"""

from __future__ import annotations

import random
import re

import ember
from ember import tir
from ember.script import from_source
from ember.script.errors import ParserError

from fuzz_schedules import SeededData, _step, random_program

NUMBER = re.compile(r"(?<![\w.])\d+(\.\d+)?(?![\w.])")
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int32", "int64", "uint8", "bool", "handle",
          "floot32", "int33", "float32x4", "void", ""]
OPERATORS = ["+", "-", "*", "/", "//", "%", "@", "**", "<", "==", "and", "&", "|", "^"]
NUMBERS = ["0", "1", "-1", "2.5", "1e40", "1 << 40", "2147483648", "-7", "T.float32(1)", "True", "None", "n"]
DIAGNOSTICS = (ParserError, ValueError, TypeError, NotImplementedError)


def _mutate(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.splitlines()
    kind = rng.choice(["number", "number", "dtype", "operator", "delete", "duplicate", "swap_names",
                       "decorator", "augassign", "indent", "truncate"])
    if kind == "number":
        spots = list(NUMBER.finditer(text))
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + rng.choice(NUMBERS) + text[m.end():], f"number at {m.start()}"
    if kind == "dtype":
        spots = [m for m in re.finditer(r'"(\w*)"', text) if m.group(1) in DTYPES]
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + f'"{rng.choice(DTYPES)}"' + text[m.end():], f"dtype at {m.start()}"
    if kind == "operator":
        spots = list(re.finditer(r" (\+|-|\*|//|%|<) ", text))
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + f" {rng.choice(OPERATORS)} " + text[m.end():], f"operator at {m.start()}"
    if kind == "swap_names":
        names = sorted(set(re.findall(r"\b(v_\w+|[A-Z]\w*|i\w*|j\w*|k\w*)\b", text)))
        if len(names) >= 2:
            a, b = rng.sample(names, 2)
            return re.sub(rf"\b{re.escape(a)}\b", b, text, count=rng.randint(1, 3)), f"{a} -> {b}"
    if kind == "decorator":
        return text.replace("@T.prim_func", rng.choice(["@T.prim_func(foo=1)", "@T.prim_func(private=3)",
                                                        "@T.prim_func()", "@T.prim_func(1)"]), 1), "decorator"
    if kind == "augassign":
        spots = [k for k, line in enumerate(lines) if re.search(r"\]\s*=\s", line)]
        if spots:
            k = rng.choice(spots)
            lines[k] = re.sub(r"\]\s*=\s", "] " + rng.choice(["+=", "@=", "**=", "|=", "//="]) + " ", lines[k], count=1)
            return "\n".join(lines), f"augmented assignment on line {k + 1}"
    if kind == "indent" and len(lines) > 3:
        k = rng.randrange(3, len(lines))
        lines[k] = ("    " + lines[k]) if rng.random() < 0.5 else lines[k].lstrip()
        return "\n".join(lines), f"indentation of line {k + 1}"
    if kind == "truncate" and len(lines) > 3:
        k = rng.randrange(3, len(lines))
        return "\n".join(lines[:k]) + "\n" + lines[k][: rng.randrange(len(lines[k]) + 1)], f"cut at line {k + 1}"
    if len(lines) > 4:
        k = rng.randrange(4, len(lines))
        if kind == "duplicate":
            lines.insert(k, lines[k])
            return "\n".join(lines), f"duplicated line {k + 1}"
        del lines[k]
        return "\n".join(lines), f"deleted line {k + 1}"
    return text, "none"


def run_case(seed: int) -> str | None:
    rng = random.Random(seed)
    func = random_program(rng)
    if rng.random() < 0.5:
        sch = tir.Schedule(func, seed=seed)
        for _ in range(rng.randint(1, 3)):
            try:
                _step(sch, SeededData(rng))
            except tir.ScheduleError:
                pass
        func = sch.mod["main"]
    text = func.script()
    what = []
    for _ in range(rng.randint(1, 3)):
        text, done = _mutate(text, rng)
        what.append(done)
    label = f"mutations {what}"
    try:
        parsed = from_source(text)
    except ParserError as err:
        return None if "-->" in str(err) or "line" in str(err) else f"{label}: ParserError without a location: {err}"
    except SyntaxError:
        return None  # not Python at all: Python's own error, with its location
    except Exception as err:  # noqa: BLE001 - anything else is an internal error
        return f"{label}: parse raised {type(err).__name__}: {str(err)[:300]}\n{text}"
    try:
        again = from_source(parsed.script())
        ember.ir.assert_structural_equal(again, parsed)
    except Exception as err:  # noqa: BLE001
        return f"{label}: print -> parse of the parsed function differs: {type(err).__name__}: {str(err)[:300]}\n{text}"
    try:
        ember.build(parsed, target="llvm")
    except DIAGNOSTICS:
        return None
    except Exception as err:  # noqa: BLE001
        return f"{label}: build raised {type(err).__name__}: {str(err)[:300]}\n{text}"
    return None
