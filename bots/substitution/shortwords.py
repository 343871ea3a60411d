"""Algorithm 2: the (stupid) short-words strategies (thesis sections 4.2 and 4.3).

Before the game each group gets its best production (M1: fewest nonterminals; M2:
largest metric; ties go to the production with more terminals, then the first). In a
turn the rolled group's best production goes to the best derivation that holds its left
side (a new derivation counts as the word "S" and comes last); then, while a bank group
applies, the bank group with the best group metric (the first on ties) goes, with its
best production, to the best derivation holding its left side.

``stupid-short-words`` uses M1, ``short-words`` uses M2.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping
from typing import Any

from arena.games.substitution import SubstitutionGame
from arena.games.substitution._core import GameState
from arena.games.substitution.movestring import MoveString
from bots.substitution.common import Counts, TurnDraft, rules_for, text_cache
from bots.substitution.metrics import DEFAULT_TOLERANCE

__all__ = ["ShortWordsBot"]


class ShortWordsBot:
    """Algorithm 2 with metric M1 (``stupid``) or M2."""

    def __init__(self, game: SubstitutionGame, metric: str, tolerance: float = DEFAULT_TOLERANCE) -> None:
        rules = self.rules = rules_for(game, tolerance)
        self.metric = rules.metrics.by_name(metric)
        sign = -1.0 if not self.metric.larger_is_better else 1.0
        self.sign = sign  # scores: larger is better after multiplying by sign
        self.best_production = []
        for g, row in enumerate(self.metric.productions):
            best = 0
            for k in range(1, len(row)):
                a, b = sign * row[k], sign * row[best]
                if a > b or (a == b and rules.alts[g][k][1] > rules.alts[g][best][1]):
                    best = k
            self.best_production.append(best)
        self.group_score = [sign * v for v in self.metric.groups]
        self._scores = functools.lru_cache(maxsize=100_000)(self._score)
        self._texts = text_cache()

    def _score(self, counts: Counts) -> float:
        return float(self.sign * self.rules.word_metric(self.metric, counts))

    def word_score(self, counts: Counts) -> float:
        return float(self._scores(counts))

    def _best_word(self, draft: TurnDraft, candidates: list[int]) -> int:
        best, best_score = candidates[0], None
        for w in candidates:
            score = self.word_score(draft.words[w] if w >= 0 else self.rules.s_word)
            if best_score is None or score > best_score:
                best, best_score = w, score
        return best

    def draft(self, state: GameState, rng: random.Random) -> TurnDraft:
        rules = self.rules
        draft = TurnDraft(rules, state, self._texts)
        group = draft.roll
        candidates = draft.holding(group)
        if rules.is_start[group]:
            candidates.append(-1)
        if not candidates:
            return draft
        draft.apply(self._best_word(draft, candidates), group, self.best_production[group])
        scores = self.group_score
        while True:
            groups = draft.applicable_bank_groups()
            if not groups:
                return draft
            group = groups[0]
            for g in groups:
                if scores[g] > scores[group]:
                    group = g
            word = self._best_word(draft, draft.holding(group))
            draft.apply(word, group, self.best_production[group])

    def choose_move(self, game: Any, state: GameState, rng: random.Random) -> MoveString:
        return self.draft(state, rng).move()


def create_stupid(game: Any, params: Mapping[str, Any]) -> ShortWordsBot:
    return ShortWordsBot(game, "M1")


def create(game: Any, params: Mapping[str, Any]) -> ShortWordsBot:
    return ShortWordsBot(game, "M2", params.get("tolerance", DEFAULT_TOLERANCE))
