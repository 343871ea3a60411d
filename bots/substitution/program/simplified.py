"""The thesis program's simplified words and metrics (appendix B), as its C# computes them.

`SimplifiedWord` counts each nonterminal of a string, in the order the program's
`Simplifier` met them in the grammar (left sides and right sides, group by group),
plus its number of terminals. The strategies keep such counts for their own words
while they build a turn, with the program's `StrategyUtilitiesClass.applyMove`, which
*subtracts* the nonterminals a production adds (`apply_step`, `apply_steps`): counts can
go negative, and the metrics then see powers with negative exponents.

The metric code is the program's, including three details its text does not say:

* `count_metric` / `count_better_metric` start every production "not computed" (-1):
  the test meant to set productions without nonterminals to 1 looks at
  ``NonterminalsCount``, the *length* of the count array, which is never 0;
* `count_stupid_metric` leaves every group's metric at 0 (it takes the minimum of 0
  and the productions' counts);
* C#'s ``Math.Pow(0, -n)`` is +infinity (Python raises), ``Math.Pow`` overflows to
  +infinity, and ``Math.Sqrt`` of a negative number is NaN; the products and
  comparisons then behave as IEEE doubles, in C# and in Python alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.substitution.grammar import Grammar

__all__ = [
    "ProgramError",
    "ProgramSettings",
    "Word",
    "apply_step",
    "apply_steps",
    "cs_pow",
    "cs_sqrt",
    "find_matches",
    "get_rand",
    "settings_for",
]

Step = tuple[int, int, int]
"""A `PrimaryMove`: (word number, production group number, production number)."""

NOT_COMPUTED = -1.0
TOLERANCE = 0.05
"""The program's hard-coded relative stopping tolerance of `countMetric`."""


class ProgramError(Exception):
    """Where the program's C# would throw (an index out of range, a bank underflow)."""


def cs_pow(base: float, exponent: int) -> float:
    """C#'s ``Math.Pow(base, exponent)`` for a base >= 0 and an integer exponent."""
    if exponent == 0:
        return 1.0
    if base == 0.0:
        return 0.0 if exponent > 0 else math.inf
    try:
        return base**exponent
    except OverflowError:
        return math.inf


def cs_sqrt(value: float) -> float:
    """C#'s ``Math.Sqrt``: NaN for a negative number (Python raises)."""
    return math.sqrt(value) if value >= 0 else math.nan


def cs_max(a: float, b: float) -> float:
    """C#'s ``Math.Max``: NaN if either is NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return max(a, b)


class Word:
    """A `SimplifiedWord`: the count of each nonterminal (Simplifier order) and the
    number of terminals. Mutable, as the program's strategies mutate their copies."""

    __slots__ = ("counts", "terminals")

    def __init__(self, counts: list[int], terminals: int) -> None:
        self.counts = counts
        self.terminals = terminals

    def copy(self) -> Word:
        return Word(list(self.counts), self.terminals)

    def __repr__(self) -> str:
        return f"Word({self.counts}, {self.terminals})"


@dataclass(frozen=True)
class Group:
    """A `SimplifiedProductionGroup`: the left side's index and each right side."""

    left: int
    rights: tuple[Word, ...]
    right_counts: tuple[tuple[int, ...], ...]
    right_terminals: tuple[int, ...]


class ProgramSettings:
    """What a program strategy sees of the game: the `GameSettings` with its simplified
    productions, the chance weights and the number of moves."""

    def __init__(self, grammar: Grammar, moves: int) -> None:
        letters: dict[str, int] = {}
        for group in grammar.groups:
            letters.setdefault(group.left, len(letters))
            for right in group.alternatives:
                for ch in right:
                    if "A" <= ch <= "Z":
                        letters.setdefault(ch, len(letters))
        self.letters = letters
        self.chars = tuple(letters)
        self.k = len(letters)
        self.moves = moves
        self.weights = tuple(grammar.weights)
        self.total = grammar.total_weight
        groups = []
        for group in grammar.groups:
            rights = tuple(self.convert(right) for right in group.alternatives)
            groups.append(Group(
                letters[group.left], rights,
                tuple(tuple(w.counts) for w in rights), tuple(w.terminals for w in rights),
            ))
        self.groups: tuple[Group, ...] = tuple(groups)
        self.n = len(groups)
        self.left = tuple(g.left for g in groups)
        self.is_s = tuple(self.chars[g.left] == "S" for g in groups)
        self.s_index = letters.get("S", -1)

    def convert(self, text: str) -> Word:
        """`Simplifier.ConvertWord`."""
        counts = [0] * self.k
        terminals = 0
        for ch in text:
            if "A" <= ch <= "Z":
                counts[self.letters[ch]] += 1
            else:
                terminals += 1
        return Word(counts, terminals)

    def s_word(self) -> Word:
        """``simplifier.ConvertWord("S")``: a fresh object each time, as in the program."""
        return self.convert("S")

    # -- the metrics (StrategyUtilitiesClass) -------------------------------------------

    def letter_sums(self, net: Sequence[float]) -> list[float]:
        """Per nonterminal, the sum of ``net[i] * p_i / total`` over its computed groups,
        accumulated in group order as `countWordMetric` does."""
        sums = [0.0] * self.k
        for i in range(self.n):
            if net[i] != NOT_COMPUTED:
                sums[self.left[i]] += net[i] * self.weights[i] / self.total
        return sums

    def _iterate(self, better: bool) -> tuple[list[float], list[list[float]]]:
        """`countMetric` (M2) or `countBetterMetric` (M3), Gauss-Seidel, tolerance 0.05."""
        net = [NOT_COMPUTED] * self.n
        prods = [[NOT_COMPUTED] * len(g.rights) for g in self.groups]
        found = True
        while found:
            found = False
            for g, group in enumerate(self.groups):
                for k, counts in enumerate(group.right_counts):
                    sums = self.letter_sums(net)
                    value = better_word_metric(counts, sums) if better else word_metric(counts, sums)
                    old = prods[g][k]
                    if abs(old - value) > old * TOLERANCE:
                        found = True
                        prods[g][k] = value
                        net[g] = cs_max(net[g], value)
        return net, prods

    def count_metric(self) -> tuple[list[float], list[list[float]]]:
        return self._iterate(better=False)

    def count_better_metric(self) -> tuple[list[float], list[list[float]]]:
        return self._iterate(better=True)

    def count_stupid_metric(self) -> tuple[list[int], list[list[int]]]:
        """`countStupidMetric`: productions count their nonterminals; groups stay 0."""
        net = [0] * self.n
        prods = []
        for g, group in enumerate(self.groups):
            row = []
            for counts in group.right_counts:
                value = sum(counts)
                row.append(value)
                net[g] = min(net[g], value)
            prods.append(row)
        return net, prods


def word_metric(counts: Sequence[int], sums: Sequence[float]) -> float:
    """`countWordMetric`: the product of ``sum_j ** count_j`` (factors of 1 skipped)."""
    result = 1.0
    for j, count in enumerate(counts):
        if count:
            result *= cs_pow(sums[j], count)
    return result


def better_word_metric(counts: Sequence[int], sums: Sequence[float]) -> float:
    """`countBetterWordMetric`: the least sum over the nonterminals present, divided by
    how many there are (1 for a word with none)."""
    least = 1.0
    total = 0
    for j, count in enumerate(counts):
        if count > 0:
            least = min(least, sums[j])
            total += count
    return least / total if total > 0 else 1.0


def stupid_word_metric(counts: Sequence[int]) -> int:
    """`countWordStupidMetric`: the sum of the counts (negative ones included)."""
    return sum(counts)


def find_matches(words: Sequence[Word], letter: int) -> list[int]:
    """`findMatches`: indexes of the words whose count of `letter` is positive."""
    return [index for index, word in enumerate(words) if word.counts[letter] > 0]


def get_rand(weights: Sequence[float], r: float) -> int:
    """`RandomStrategy.getRand` with ``r = random.NextDouble()``."""
    total = 0.0
    for weight in weights:
        total += weight
    rest = r * total
    for index, weight in enumerate(weights):
        rest -= weight
        if rest <= 0:
            return index
    return 0


def bank_remove(bank: list[int], group: int) -> None:
    """`Bank.removeProduction`, which throws when the group is not in the bank."""
    if bank[group] < 1:
        raise ProgramError(f"the bank holds no group {group} to remove")
    bank[group] -= 1


def _subtract(word: Word, group: Group, production: int, left: int) -> None:
    """The program's update of a word after a step: the left side goes, the terminals
    come, and the right side's nonterminals are *subtracted* (the program's sign slip)."""
    word.counts[left] -= 1
    word.terminals += group.right_terminals[production]
    counts = word.counts
    for j, count in enumerate(group.right_counts[production]):
        if count:
            counts[j] -= count


def apply_step(settings: ProgramSettings, step: Step, words: list[Word]) -> None:
    """`applyMove(PrimaryMove, List<SimplifiedWord>, ...)`: a new word is a correct copy
    of the right side; an existing one is updated with the sign slip."""
    word_number, group_number, production = step
    group = settings.groups[group_number]
    if word_number != -1:
        if not 0 <= word_number < len(words):
            raise ProgramError(f"there is no word {word_number}")
        _subtract(words[word_number], group, production, group.left)
    else:
        words.append(group.rights[production].copy())


def apply_steps(settings: ProgramSettings, steps: Sequence[Step], bank: list[int], word: Word) -> None:
    """`applyMove(Move, Bank, SimplifiedWord, ...)`: every step's group leaves the bank
    and updates the one word, with the sign slip."""
    for _, group_number, production in steps:
        bank_remove(bank, group_number)
        group = settings.groups[group_number]
        _subtract(word, group, production, group.left)


_SETTINGS: dict[tuple[Grammar, int], ProgramSettings] = {}


def settings_for(grammar: Grammar, moves: int) -> ProgramSettings:
    """`ProgramSettings`, built once per grammar and number of moves."""
    key = (grammar, moves)
    found = _SETTINGS.get(key)
    if found is None:
        found = _SETTINGS[key] = ProgramSettings(grammar, moves)
    return found
