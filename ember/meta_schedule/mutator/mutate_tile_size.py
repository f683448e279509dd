"""``MutateTileSize``: moves a prime factor from one tile of a ``sample_perfect_tile``
decision to another (the product stays the loop extent; the innermost tile stays within
the instruction's ``max_innermost_factor``)."""

from __future__ import annotations

from ember.tir.schedule import Trace

from .mutator import MutatorBase


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


class MutateTileSize(MutatorBase):
    def apply(self, trace: Trace) -> Trace | None:
        insts = [i for i in trace.insts if i.kind.method == "sample_perfect_tile" and i in trace.decisions]
        self.rng.shuffle(insts)
        for inst in insts:
            tiles = [int(x) for x in trace.decisions[inst]]
            limit = int(inst.attrs[1]) if len(inst.attrs) > 1 and inst.attrs[1] else 0
            moves = [(a, b) for a in range(len(tiles)) for b in range(len(tiles)) if a != b and tiles[a] > 1]
            self.rng.shuffle(moves)
            for a, b in moves:
                p = self.rng.choice(_prime_factors(tiles[a]))
                new = list(tiles)
                new[a] //= p
                new[b] *= p
                if limit > 0 and new[-1] > limit:
                    continue
                return trace.with_decision(inst, new, remove_postproc=True)
        return None
