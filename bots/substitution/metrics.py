"""The thesis's metrics M1, M2 and M3 (sections 4.2, 4.3 and 4.6).

Every metric gives a number to a production, a production group, a nonterminal and a
derivation (a "word"), computed once per grammar before the game:

* **M1** (smaller is better): the number of nonterminals in a string; a group's M1 is
  the least M1 of its productions.
* **M2** (larger is better): iterative. A terminal is worth 1, a nonterminal the sum of
  (group metric x group probability) over the groups it heads, a string the product of
  its symbols' metrics, a production the metric of its right side, and a group the
  largest metric of its productions. Strings that cannot finish are worth 0.
* **M3** (larger is better): as M2, but a string is worth the least metric of the
  nonterminals in it divided by how many nonterminals it holds.

The iteration (the thesis's `countMetric`): every production starts at 0 ("not
computed" in the program: a group with no computed production adds nothing to a
nonterminal), productions without nonterminals are 1. Then the groups are swept in
order, production by production, each new value being used at once (Gauss-Seidel), and
a group's metric is the largest of its productions' values. A sweep in which every
production's change is at most ``tolerance`` times its previous value ends the
iteration. The text's stopping rule (section 4.3) is the same inequality;
``tolerance=0.05`` is the thesis's (the program's constant and the text's first
example). The text's second example (0.333329) is reproduced with ``tolerance=1e-5``;
0.05 stops it at 0.316406. See docs/strategies.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.games.substitution.grammar import NONTERMINALS, Grammar

__all__ = ["DEFAULT_TOLERANCE", "Metric", "Metrics", "letter_counts"]

DEFAULT_TOLERANCE = 0.05
"""The thesis's stopping tolerance (delta) for the M2/M3 iteration."""

MAX_SWEEPS = 10_000

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
S = LETTERS.index("S")


def letter_counts(text: str) -> tuple[int, ...]:
    """The count of each nonterminal A-Z in `text` (26 numbers)."""
    counts = [0] * 26
    for ch in text:
        if ch in NONTERMINALS:
            counts[ord(ch) - 65] += 1
    return tuple(counts)


@dataclass(frozen=True)
class Metric:
    """One metric of one grammar: per production, per group, per nonterminal."""

    name: str
    productions: tuple[tuple[float, ...], ...]
    groups: tuple[float, ...]
    nonterminals: tuple[float, ...]
    """Metric of each nonterminal A-Z (index 0 = A)."""
    larger_is_better: bool
    word_rule: str
    """``"count"`` (M1), ``"product"`` (M2) or ``"min-over-count"`` (M3)."""

    def word(self, counts: Sequence[int]) -> float:
        """The metric of a derivation given its nonterminal counts (A-Z)."""
        return word_metric(self.word_rule, self.nonterminals, counts)

    def text(self, text: str) -> float:
        return self.word(letter_counts(text))


def word_metric(rule: str, values: Sequence[float], counts: Sequence[int]) -> float:
    if rule == "count":
        return float(sum(counts))
    if rule == "product":
        result = 1.0
        for letter, count in enumerate(counts):
            if count:
                result *= values[letter] ** count
        return result
    total = 0
    least = math.inf
    for letter, count in enumerate(counts):
        if count:
            total += count
            least = min(least, values[letter])
    return 1.0 if total == 0 else least / total


class Metrics:
    """M1, M2 and M3 of one grammar (chance weights included).

    Args:
        grammar: the grammar with its weights.
        tolerance: the M2/M3 iteration's relative stopping tolerance (delta).
    """

    def __init__(self, grammar: Grammar, tolerance: float = DEFAULT_TOLERANCE) -> None:
        if not tolerance > 0:
            raise ValueError(f"tolerance {tolerance!r} must be positive")
        self.grammar = grammar
        self.tolerance = tolerance
        self._counts = [
            [letter_counts(alt) for alt in group.alternatives] for group in grammar.groups
        ]
        self._lefts = [ord(group.left) - 65 for group in grammar.groups]
        total = grammar.total_weight
        self._probs = [weight / total for weight in grammar.weights]
        self.m1 = self._m1()
        self.m2 = self._iterate("M2", "product")
        self.m3 = self._iterate("M3", "min-over-count")

    def _m1(self) -> Metric:
        prods = tuple(tuple(float(sum(c)) for c in row) for row in self._counts)
        groups = tuple(min(row) for row in prods)
        # A nonterminal's M1 is not defined by the thesis; the least group metric is used
        # only for display.
        nts = [math.inf] * 26
        for g, left in enumerate(self._lefts):
            nts[left] = min(nts[left], groups[g])
        return Metric("M1", prods, groups, tuple(nts), False, "count")

    def _iterate(self, name: str, rule: str) -> Metric:
        n = len(self._counts)
        net = [-1.0] * n  # -1: no production computed yet (adds nothing)
        prod = []
        for g, row in enumerate(self._counts):
            values = []
            for counts in row:
                if any(counts):
                    values.append(-1.0)
                else:
                    values.append(1.0)
                    net[g] = 1.0
            prod.append(values)
        lefts, probs, tol = self._lefts, self._probs, self.tolerance

        def nonterminal_values() -> list[float]:
            values = [0.0] * 26
            for g in range(n):
                if net[g] != -1.0:
                    values[lefts[g]] += net[g] * probs[g]
            return values

        for _ in range(MAX_SWEEPS):
            changed = False
            for g, row in enumerate(self._counts):
                for k, counts in enumerate(row):
                    if not any(counts):
                        continue
                    value = word_metric(rule, nonterminal_values(), counts)
                    old = prod[g][k]
                    if abs(old - value) > old * tol:
                        changed = True
                        prod[g][k] = value
                        net[g] = max(net[g], value)
            if not changed:
                break
        groups = tuple(max(0.0, v) for v in net)
        productions = tuple(tuple(max(0.0, v) for v in row) for row in prod)
        values = [0.0] * 26
        for g in range(n):
            values[lefts[g]] += groups[g] * probs[g]
        return Metric(name, productions, groups, tuple(values), True, rule)

    def by_name(self, name: str) -> Metric:
        return {"M1": self.m1, "M2": self.m2, "M3": self.m3}[name.upper()]


_CACHE: dict[tuple[Grammar, float], Metrics] = {}


def metrics_for(grammar: Grammar, tolerance: float = DEFAULT_TOLERANCE) -> Metrics:
    """`Metrics` of a grammar, computed once per process."""
    key = (grammar, tolerance)
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = Metrics(grammar, tolerance)
    return found


def best_index(values: Sequence[float], better: Callable[[float, float], bool]) -> int:
    """Index of the first value no later value is strictly better than."""
    best = 0
    for i in range(1, len(values)):
        if better(values[i], values[best]):
            best = i
    return best
