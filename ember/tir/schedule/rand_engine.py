"""The schedule's random engine: TVM's linear congruential generator, so that a seeded
schedule samples the same integers and categories as TVM's does.

The engine is ``state = state * 48271 % (2**31 - 1)`` (the "minimal standard" LCG, each
step returning the new state).  Integers in ``[0, n)`` are drawn the way the C++
standard library's uniform integer distribution draws them from such an engine
(scale the engine's range down, rejecting the last partial bucket); floats in [0, 1)
combine two draws (53 bits).  It is a ``random.Random``, so ``choice``, ``choices``,
``randrange`` and ``shuffle`` all run on it.
"""

from __future__ import annotations

import random

__all__ = ["LinearCongruentialEngine", "normalize_seed"]

_MODULUS = 2147483647
_MULTIPLIER = 48271
_RANGE = _MODULUS - 1  # the engine returns values in [1, modulus - 1]; C++ treats [0, modulus - 1]


def normalize_seed(seed) -> int:
    """TVM's seed rule: -1 / None draws a random seed; others are taken modulo 2**31 - 1,
    0 becoming 1; negative seeds are refused.  The random seed comes from Python's global
    ``random`` (as ``TuneContext``'s does), so ``random.seed(n)`` makes a program that leaves
    its schedules unseeded reproducible."""
    if seed is None or seed == -1:
        seed = random.randrange(1, _MODULUS)
    seed = int(seed)
    if seed < 0:
        raise ValueError(f"random seed must be non-negative, got {seed}")
    seed %= _MODULUS
    return seed or 1


class LinearCongruentialEngine(random.Random):
    def __init__(self, seed=None):
        self._state = 1
        super().__init__(seed)

    def seed(self, a=None, version=2) -> None:  # noqa: ARG002 - random.Random's signature
        self._state = normalize_seed(a)

    def getstate(self):
        return self._state

    def setstate(self, state) -> None:
        self._state = int(state)

    def next_value(self) -> int:
        self._state = self._state * _MULTIPLIER % _MODULUS
        return self._state

    def fork_seed(self) -> int:
        """A seed for a child engine (TVM's ForkSeed)."""
        return self.next_value() * 32767 % 1999999973

    def _randbelow(self, n: int) -> int:
        if n <= 1:  # TVM's SampleInt draws nothing for a single choice
            return 0
        scaling = _RANGE // n
        past = n * scaling
        while True:
            r = self.next_value()
            if r < past:
                return r // scaling

    def random(self) -> float:
        r = float(_RANGE + 1)
        value = self.next_value() + self.next_value() * r
        value /= r * r
        return value if value < 1.0 else 1.0 - 2.0 ** -53

    def getrandbits(self, k: int) -> int:
        bits, have, out = 0, 0, 0
        while have < k:
            bits = (bits << 30) | (self.next_value() & ((1 << 30) - 1))
            have += 30
        out = bits >> (have - k)
        return out
