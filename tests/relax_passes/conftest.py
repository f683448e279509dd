"""Shared fixtures of the Relax pass tests: the op sample cases of tests/relax."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "relax"))
