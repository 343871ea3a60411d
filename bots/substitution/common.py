"""What the substitution-game strategies share: the grammar as count vectors, and a
working copy of one player's turn in the thesis's "simplified word" form.

A derivation is represented by the counts of the grammar's nonterminals it holds (the
thesis's `SimplifiedWord`), which is all the strategies look at, plus its number of
terminals. `TurnDraft` applies steps to such a copy of the player's derivations and the
bank, tracking them exactly (the thesis program's strategies subtract, in one helper,
the nonterminals a production adds; ours do not), so the steps it records form a legal
move whenever the strategy follows the rules' obligations.
"""

from __future__ import annotations

import functools
from collections.abc import MutableMapping, Sequence
from typing import Any

from cachetools import LRUCache

from arena.games.substitution import Grammar, SubstitutionGame
from arena.games.substitution._core import GameState
from arena.games.substitution.movestring import MoveString
from bots.substitution.metrics import DEFAULT_TOLERANCE, Metric, Metrics, metrics_for

__all__ = ["CompiledRules", "TurnDraft", "pick", "rules_for"]

Counts = tuple[int, ...]

_new_move = tuple.__new__


def make_move(steps: Sequence[tuple[int, int, int]]) -> MoveString:
    return _new_move(MoveString, (tuple(steps),))


def pick(weights: Sequence[float], r: float) -> int:
    """The thesis's weighted choice (Algorithm 1's phi, the program's `getRand`).

    `r` is uniform in [0, 1): the first index where ``r * sum - (w_0 + ... + w_i) <= 0``,
    or 0 if there is none (all weights zero).
    """
    rest = r * sum(weights)
    for index, weight in enumerate(weights):
        rest -= weight
        if rest <= 0:
            return index
    return 0


class CompiledRules:
    """A grammar as count vectors over its own nonterminals, with its metrics."""

    def __init__(self, grammar: Grammar, tolerance: float = DEFAULT_TOLERANCE) -> None:
        self.grammar = grammar
        letters = sorted(grammar.nonterminals | {"S"})
        self.letters = tuple(letters)
        self.index = {ch: i for i, ch in enumerate(letters)}
        self.k = len(letters)
        self.s = self.index["S"]
        self.n_groups = len(grammar.groups)
        self.left = tuple(self.index[g.left] for g in grammar.groups)
        self.is_start = tuple(g.left == "S" for g in grammar.groups)
        # per group, per production: (counts, terminals, delta vector with the left removed)
        self.alts: list[list[tuple[Counts, int, Counts]]] = []
        for g, group in enumerate(grammar.groups):
            row = []
            for text in group.alternatives:
                counts = self.counts_of(text)
                terminals = len(text) - sum(counts)
                delta = list(counts)
                delta[self.left[g]] -= 1
                row.append((counts, terminals, tuple(delta)))
            self.alts.append(row)
        self.metrics: Metrics = metrics_for(grammar, tolerance)
        self.s_word: Counts = tuple(1 if i == self.s else 0 for i in range(self.k))
        self._values = {
            name: tuple(m.nonterminals[ord(ch) - 65] for ch in letters)
            for name, m in (("M1", self.metrics.m1), ("M2", self.metrics.m2), ("M3", self.metrics.m3))
        }

    def counts_of(self, text: str) -> Counts:
        return tuple(text.count(ch) for ch in self.letters)

    def word_metric(self, metric: Metric, counts: Counts) -> float:
        """The metric of a word from its counts over this grammar's nonterminals."""
        rule = metric.word_rule
        if rule == "count":
            return float(sum(counts))
        values = self._values[metric.name]
        if rule == "product":
            result = 1.0
            for i, c in enumerate(counts):
                if c:
                    result *= values[i] ** c
            return result
        total = 0
        least = 2.0
        for i, c in enumerate(counts):
            if c:
                total += c
                least = min(least, values[i])
        return 1.0 if total == 0 else least / total


TEXTS_KEPT = 50_000
"""Derivation texts whose counts a bot remembers (`text_cache`)."""


def rules_for(game: SubstitutionGame, tolerance: float = DEFAULT_TOLERANCE) -> CompiledRules:
    return _rules(game.grammar, tolerance)


@functools.lru_cache(maxsize=16)
def _rules(grammar: Grammar, tolerance: float) -> CompiledRules:
    """Compiled once per grammar; a long-lived process (a server's worker) meets many."""
    return CompiledRules(grammar, tolerance)


def text_cache() -> MutableMapping[str, Counts]:
    """A bot's memory of derivation texts' counts, for `TurnDraft` (bounded)."""
    return LRUCache(TEXTS_KEPT)


class TurnDraft:
    """One player's derivations and the bank, as counts, while a turn is being built.

    Only unfinished derivations are kept (`words` and `terminals` map a derivation's
    index to its counts and terminal count, in index order): finished words take no
    further steps, and skipping them keeps a turn's cost independent of how many
    words a player has finished.
    """

    __slots__ = ("bank", "count", "roll", "rules", "steps", "terminals", "words")

    def __init__(self, rules: CompiledRules, state: GameState,
                 cache: MutableMapping[str, Counts]) -> None:
        self.rules = rules
        words: dict[int, Counts] = {}
        terminals: dict[int, int] = {}
        derivations = state.derivations[state.turn % 2]
        for index, word in enumerate(derivations):
            if word.nonterminals:
                text = word.text
                counts = cache.get(text)
                if counts is None:
                    counts = cache[text] = rules.counts_of(text)
                words[index] = counts
                terminals[index] = len(text) - word.nonterminals
        self.words = words
        self.terminals = terminals
        self.count = len(derivations)
        self.bank: list[int] = list(state.bank)
        self.steps: list[tuple[int, int, int]] = []
        self.roll: int = state.roll  # type: ignore[assignment]

    def holding(self, group: int) -> list[int]:
        left = self.rules.left[group]
        return [w for w, counts in self.words.items() if counts[left]]

    def nonterminals(self) -> int:
        return sum(sum(c) for c in self.words.values())

    def applicable_bank_groups(self) -> list[int]:
        rules = self.rules
        bank = self.bank
        present = [False] * rules.k
        for counts in self.words.values():
            for i, c in enumerate(counts):
                if c:
                    present[i] = True
        left = rules.left
        return [g for g in range(rules.n_groups) if bank[g] and present[left[g]]]

    def apply(self, word: int, group: int, production: int) -> int:
        """Apply a step (no checks); returns the word's index (new words go last)."""
        counts, terms, delta = self.rules.alts[group][production]
        if word == -1:
            word = self.count
            self.count += 1
            self.words[word] = counts
            self.terminals[word] = terms
            self.steps.append((-1, group, production))
        else:
            old = self.words[word]
            self.words[word] = tuple([a + b for a, b in zip(old, delta)])
            self.terminals[word] += terms
            self.steps.append((word, group, production))
        if len(self.steps) > 1:
            self.bank[group] -= 1
        return word

    def move(self) -> MoveString:
        return make_move(self.steps)


def create_params_tolerance(params: Any) -> float:
    return float(params.get("tolerance", DEFAULT_TOLERANCE))
