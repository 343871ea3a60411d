"""The Sim search of `_search.pyx` in plain Python (used when the extension is absent).

Same interface and algorithm, so the compiled core can be checked against it; it is
about two orders of magnitude slower.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from itertools import combinations

__all__ = ["BudgetExceeded", "CountMemoryExceeded", "Searcher"]


class BudgetExceeded(Exception):
    """The search evaluated more positions than it was allowed to."""


class CountMemoryExceeded(MemoryError):
    """The game count needs more memory for its table than it was allowed."""


class Searcher:
    def __init__(self, n: int, symmetry: bool = True, budget: int = -1,
                 graph: int | None = None, automorphisms: Sequence[Sequence[int]] = ()) -> None:
        if not 3 <= n <= 8:
            raise ValueError(f"Sim is defined here for 3 to 8 vertices, got {n}")
        if graph is not None and symmetry and not automorphisms:
            raise ValueError("symmetry on a graph needs its automorphisms (the identity at least)")
        self.n = n
        self.symmetry = symmetry
        self.budget = budget
        self.edges = list(combinations(range(n), 2))
        self.num_edges = len(self.edges)
        self.full = (1 << self.num_edges) - 1 if graph is None else graph
        self.idx = [[-1] * n for _ in range(n)]
        for e, (i, j) in enumerate(self.edges):
            self.idx[i][j] = self.idx[j][i] = e
        # a graph other than K_n: each automorphism as an edge permutation
        self.edge_maps = [
            [self.idx[p[i]][p[j]] for i, j in self.edges] for p in automorphisms
        ] if graph is not None and symmetry else []
        self.n_auts = len(self.edge_maps)
        self.clique = []
        for s in range(1 << n):
            m = 0
            for i, j in combinations([v for v in range(n) if s >> v & 1], 2):
                m |= 1 << self.idx[i][j]
            self.clique.append(m)
        self.table: dict[int, int] = {}
        self.counts: dict[int, list[int]] = {}
        self.calls = 0
        self.max_bytes = -1
        self.progress: Callable[[int, int], object] | None = None
        self.progress_every = 5.0
        self._next_report = 0.0

    @property
    def counted(self) -> int:
        return len(self.counts)

    @property
    def count_bytes(self) -> int:
        """A rough estimate (a dict entry, a list, big ints) of the count table's size."""
        return len(self.counts) * (100 + 44 * (self.num_edges + 2))

    def release_counts(self) -> None:
        self.counts = {}

    def _neighbours(self, mask: int) -> list[int]:
        nb = [0] * self.n
        for e, (a, b) in enumerate(self.edges):
            if mask >> e & 1:
                nb[a] |= 1 << b
                nb[b] |= 1 << a
        return nb

    def danger(self, mask: int) -> int:
        d = 0
        for s in self._neighbours(mask):
            d |= self.clique[s]
        return d

    def _relabel(self, mask: int, edge_map: list[int]) -> int:
        out = 0
        while mask:
            low = mask & -mask
            out |= 1 << edge_map[low.bit_length() - 1]
            mask ^= low
        return out

    def canon(self, mine: int, theirs: int) -> int:
        if not self.symmetry:
            return mine << 32 | theirs
        if self.edge_maps:
            return min(self._relabel(mine, m) << 32 | self._relabel(theirs, m) for m in self.edge_maps)
        n = self.n
        nbm, nbt = self._neighbours(mine), self._neighbours(theirs)
        base = [nbm[v].bit_count() * 16 + nbt[v].bit_count() + 1 for v in range(n)]
        keys = []
        for v in range(n):
            r = sum(base[u] ** 2 for u in range(n) if nbm[v] >> u & 1)
            t = sum(base[u] ** 2 for u in range(n) if nbt[v] >> u & 1)
            keys.append(base[v] << 40 | r << 20 | t)
        order = sorted(keys, reverse=True)
        best = None
        label = [0] * n
        used = [False] * n
        edges, idx = self.edges, self.idx

        def assign(p: int) -> None:
            nonlocal best
            if p == n:
                a = b = 0
                for e, (x, y) in enumerate(edges):
                    if mine >> e & 1:
                        a |= 1 << idx[label[x]][label[y]]
                    elif theirs >> e & 1:
                        b |= 1 << idx[label[x]][label[y]]
                key = a << 32 | b
                if best is None or key < best:
                    best = key
                return
            for v in range(n):
                if not used[v] and keys[v] == order[p]:
                    used[v] = True
                    label[v] = p
                    assign(p + 1)
                    used[v] = False

        assign(0)
        assert best is not None
        return best

    def value(self, mine: int, theirs: int) -> int:
        free = self.full & ~(mine | theirs)
        if free == 0:
            return 0
        safe = free & ~self.danger(mine)
        if safe == 0:
            return -1
        opp_safe = free & ~self.danger(theirs)
        if free.bit_count() >= 2:
            if opp_safe == 0:
                return 1
            if opp_safe.bit_count() == 1 and opp_safe & safe:
                return 1
        key = self.canon(mine, theirs)
        found = self.table.get(key)
        if found is not None:
            return found
        self.calls += 1
        if self.budget >= 0 and self.calls > self.budget:
            raise BudgetExceeded(f"more than {self.budget} positions")
        scored = []
        moves = safe
        while moves:
            bit = moves & -moves
            moves ^= bit
            cost = (self.danger(mine | bit) & safe & ~bit).bit_count() * 2
            scored.append((cost + (0 if bit & opp_safe else 1), bit.bit_length(), bit))
        scored.sort()
        best = -1
        for _, _, bit in scored:
            best = max(best, -self.value(theirs, mine | bit))
            if best == 1:
                break
        self.table[key] = best
        return best

    def count(self, mine: int, theirs: int) -> list[int]:
        self._next_report = time.monotonic() + self.progress_every
        return self._count(mine, theirs)

    def _count(self, mine: int, theirs: int) -> list[int]:
        free = self.full & ~(mine | theirs)
        size = self.num_edges + 2
        key = self.canon(mine, theirs)
        found = self.counts.get(key)
        if found is not None:
            return found
        result = [0] * size
        danger_mine = self.danger(mine)
        moves = free
        while moves:
            bit = moves & -moves
            moves ^= bit
            if danger_mine & bit:
                result[1] += 1
            elif free == bit:
                result[1] += 1
                result[-1] += 1
            else:
                child = self._count(theirs, mine | bit)
                for k in range(size - 2):
                    result[k + 1] += child[k]
                result[-1] += child[-1]
        self.counts[key] = result
        if len(self.counts) % 256 == 0:
            self._check()
        return result

    def _check(self) -> None:
        used = self.count_bytes
        if 0 <= self.max_bytes < used:
            raise CountMemoryExceeded(
                f"counting the games of Sim on K{self.n} needs more than the "
                f"{self.max_bytes / 1e9:.3g} GB allowed for its table "
                f"({self.counted} positions counted, about {used / 1e9:.2f} GB in use)"
            )
        if self.progress is not None and time.monotonic() >= self._next_report:
            self._next_report = time.monotonic() + self.progress_every
            self.progress(self.counted, used)
