"""The random strategy family: thesis Algorithm 1 with weight distributions 1-4.

The draws follow Algorithm 1 and the program's order: for the rolled group, the
production, then the derivation (existing ones in order, then "a new derivation" if the
group rewrites S); then, while a bank group applies to some derivation, the group, the
production, then the derivation. Unlike the program, a bank step never starts a new
derivation (the rules forbid it), so the new-derivation candidate appears only for the
rolled group.

Weights (alpha is a group, a production or a derivation):

* ``random`` -- distribution 1: 1 everywhere.
* ``smart-random`` -- distribution 2: M2(alpha).
* ``better-smart-random`` -- distribution 3: sqrt(M3(alpha)).
* ``inversed-smart-random`` -- distribution 4: 0 if M3(alpha) = 0, else 1.01 - M3(alpha).
* ``improved-random`` -- the appendix's `ImprovedRandomStrategy`: groups and productions
  weigh their M2 (0 stays 0, 1 becomes 0.01), derivations weigh their number of
  nonterminals (M1; 0 if their M2 is 0, 0.01 if it is 1).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Mapping
from typing import Any

from arena.games.substitution import SubstitutionGame
from arena.games.substitution._core import GameState
from arena.games.substitution.movestring import MoveString
from bots.substitution.common import Counts, TurnDraft, pick, rules_for, text_cache
from bots.substitution.metrics import DEFAULT_TOLERANCE

__all__ = ["KINDS", "WeightedRandomBot"]


def _inverse(m: float) -> float:
    return 0.0 if m == 0 else 1.01 - m


def _improved(m: float) -> float:
    return 0.0 if m == 0 else 0.01 if m == 1 else m


KINDS = ("random", "smart-random", "better-smart-random", "inversed-smart-random", "improved-random")


class WeightedRandomBot:
    """Algorithm 1 with one of the thesis's weight distributions."""

    def __init__(self, game: SubstitutionGame, kind: str, tolerance: float = DEFAULT_TOLERANCE) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown weight distribution {kind!r}")
        self.kind = kind
        rules = self.rules = rules_for(game, tolerance)
        m = rules.metrics
        word_weight: Callable[[Counts], float]
        if kind == "random":
            groups = [1.0] * rules.n_groups
            prods = [[1.0] * len(row) for row in rules.alts]

            def word_weight(counts: Counts) -> float:
                return 1.0
        elif kind == "smart-random":
            groups = list(m.m2.groups)
            prods = [list(row) for row in m.m2.productions]
            m2 = m.m2

            def word_weight(counts: Counts) -> float:
                return rules.word_metric(m2, counts)
        elif kind == "better-smart-random":
            groups = [math.sqrt(v) for v in m.m3.groups]
            prods = [[math.sqrt(v) for v in row] for row in m.m3.productions]
            m3 = m.m3

            def word_weight(counts: Counts) -> float:
                return math.sqrt(rules.word_metric(m3, counts))
        elif kind == "inversed-smart-random":
            groups = [_inverse(v) for v in m.m3.groups]
            prods = [[_inverse(v) for v in row] for row in m.m3.productions]
            m3 = m.m3

            def word_weight(counts: Counts) -> float:
                return _inverse(rules.word_metric(m3, counts))
        else:
            groups = [_improved(v) for v in m.m2.groups]
            prods = [[_improved(v) for v in row] for row in m.m2.productions]
            m2 = m.m2

            def word_weight(counts: Counts) -> float:
                value = rules.word_metric(m2, counts)
                return 0.0 if value == 0 else 0.01 if value == 1 else float(sum(counts))

        self.group_weights = groups
        self.production_weights = prods
        self._weights = functools.lru_cache(maxsize=100_000)(word_weight)
        self._texts = text_cache()

    def word_weight(self, counts: Counts) -> float:
        return float(self._weights(counts))

    def draft(self, state: GameState, rng: random.Random) -> TurnDraft:
        """Build the turn on a draft (used by the adaptive and mixed strategies too)."""
        rules = self.rules
        draft = TurnDraft(rules, state, self._texts)
        r = rng.random
        group = draft.roll
        candidates = draft.holding(group)
        if rules.is_start[group]:
            candidates.append(-1)
        if not candidates:
            return draft
        words = draft.words
        production = pick(self.production_weights[group], r())
        weights = [self.word_weight(words[w] if w >= 0 else rules.s_word) for w in candidates]
        draft.apply(candidates[pick(weights, r())], group, production)
        group_weights = self.group_weights
        while True:
            groups = draft.applicable_bank_groups()
            if not groups:
                return draft
            group = groups[pick([group_weights[g] for g in groups], r())]
            production = pick(self.production_weights[group], r())
            candidates = draft.holding(group)
            weights = [self.word_weight(words[w]) for w in candidates]
            draft.apply(candidates[pick(weights, r())], group, production)

    def choose_move(self, game: Any, state: GameState, rng: random.Random) -> MoveString:
        return self.draft(state, rng).move()


def factory(kind: str) -> Callable[[Any, Mapping[str, Any]], WeightedRandomBot]:
    def create(game: Any, params: Mapping[str, Any]) -> WeightedRandomBot:
        return WeightedRandomBot(game, kind, params.get("tolerance", DEFAULT_TOLERANCE))

    return create
