"""``MultiLevelTiling``: tiles a block with data reuse (matmul, conv) into levels.

The structure string gives the loop order: "SSRSRS" (CPU) makes four tiles of every
spatial loop and two of every reduction loop, ordered S0 S1 R0 S2 R1 S3; "SSSRRSRS"
(GPU) binds the first three spatial levels to ``tile_binds``.  Tile sizes are sampled
with ``sample_perfect_tile``.  ``ReuseType`` asks for a write cache (``cache_write`` +
``reverse_compute_at`` at a spatial level) and, on GPUs, read caches in shared memory:
``req="may"`` keeps the uncached space as well, ``"must"`` only the cached ones."""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.tir.schedule import BlockRV, Schedule, ScheduleError

from ..block_facts import block_facts


@dataclass(frozen=True)
class ReuseType:
    req: str = "no"
    levels: list = field(default_factory=list)
    scope: str = "global"

    def __post_init__(self):
        if self.req not in ("no", "may", "must"):
            raise ValueError(f"ReuseType: req must be 'no', 'may' or 'must', got {self.req!r}")


def needs_multi_level_tiling(facts) -> bool:
    """A reduction block one of whose inputs misses a spatial iterator (so tiles reuse it)."""
    if not facts.reduction or not facts.one_to_one:
        return False
    spatial = {n for n, k in enumerate(facts.kinds) if k == "S"}
    return any(not spatial <= used for used in facts.read_iters)


@dataclass
class MultiLevelTiling:
    structure: str = "SSRSRS"
    tile_binds: list | None = None
    max_innermost_factor: int = 64
    vector_load_lens: list | None = None
    reuse_read: ReuseType | None = None
    reuse_write: ReuseType | None = None
    filter_fn: object = None

    def __post_init__(self):
        if not self.structure or set(self.structure) - {"S", "R"}:
            raise ValueError(f"MultiLevelTiling: structure must be made of 'S' and 'R', got {self.structure!r}")

    def _initialize_with_tune_context(self, context) -> None:
        pass

    def clone(self) -> MultiLevelTiling:
        return MultiLevelTiling(self.structure, self.tile_binds, self.max_innermost_factor,
                                self.vector_load_lens, self.reuse_read, self.reuse_write, self.filter_fn)

    def apply(self, sch: Schedule, block: BlockRV) -> list[Schedule]:
        facts = block_facts(sch, block)
        wanted = self.filter_fn(sch, block) if self.filter_fn is not None else needs_multi_level_tiling(facts)
        if not wanted or sch.get(block).annotations.get("meta_schedule.tiling_structure"):
            return [sch]
        trial = sch.copy()
        try:
            tiles = self._tile(trial, block, facts.kinds)
        except ScheduleError:
            return [sch]
        out = []
        for s in self._read_reuse(trial, block, tiles):
            out.extend(self._write_reuse(s, block, tiles))
        return out or [sch]

    def _tile(self, sch: Schedule, block: BlockRV, kinds: str) -> list[list]:
        sch.annotate(block, "meta_schedule.tiling_structure", self.structure)
        loops = sch.get_loops(block)
        s_pos = [n for n, c in enumerate(self.structure) if c == "S"]
        r_pos = [n for n, c in enumerate(self.structure) if c == "R"]
        tiles: list = [[] for _ in self.structure]
        for loop, kind in zip(loops, kinds):
            pos = s_pos if kind == "S" else r_pos
            factors = sch.sample_perfect_tile(loop, n=len(pos), max_innermost_factor=self.max_innermost_factor)
            for p, part in zip(pos, sch.split(loop, factors=factors)):
                tiles[p].append(part)
        sch.reorder(*[lp for group in tiles for lp in group])
        if self.tile_binds:
            for n, tag in enumerate(self.tile_binds):
                group = tiles[s_pos[n]]
                fused = sch.fuse(*group) if len(group) > 1 else group[0]
                sch.bind(fused, tag)
                tiles[s_pos[n]] = [fused]
        return tiles

    def _level_loop(self, tiles, level: int):
        s_pos = [n for n, c in enumerate(self.structure) if c == "S"]
        group = tiles[s_pos[level - 1]] if level - 1 < len(s_pos) else tiles[level - 1]
        return group[-1]

    def _read_reuse(self, sch: Schedule, block: BlockRV, tiles) -> list[Schedule]:
        reuse = self.reuse_read
        if reuse is None or reuse.req == "no" or not reuse.levels:
            return [sch]
        out = [sch] if reuse.req == "may" else []
        trial = sch.copy()
        try:
            n_reads = len(trial.get(block).reads)
            loop = tiles[len(self.structure) - 1 - self.structure[::-1].index("R")][-1] \
                if "R" in self.structure else self._level_loop(tiles, reuse.levels[0])
            for index in range(n_reads):
                cache = trial.cache_read(block, index, reuse.scope)
                trial.compute_at(cache, loop, preserve_unit_loops=True)
                trial.annotate(cache, "meta_schedule.cooperative_fetch", 1)
            out.append(trial)
        except ScheduleError:
            pass
        return out or [sch]

    def _write_reuse(self, sch: Schedule, block: BlockRV, tiles) -> list[Schedule]:
        reuse = self.reuse_write
        if reuse is None or reuse.req == "no" or not reuse.levels:
            return [sch]
        out = [sch] if reuse.req == "may" else []
        for level in reuse.levels:
            trial = sch.copy()
            try:
                cache = trial.cache_write(block, 0, reuse.scope)
                trial.reverse_compute_at(cache, self._level_loop(tiles, level), preserve_unit_loops=True)
            except ScheduleError:
                continue
            out.append(trial)
        return out or [sch]
