"""Options of the fuzz tests: ``--cases N`` sets the cases per fuzzer of the slow runs
(``python -m pytest tests/fuzz -m slow --cases 5000``)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_addoption(parser):
    parser.addoption("--cases", type=int, default=1000, help="cases per fuzzer for the slow fuzz runs")
