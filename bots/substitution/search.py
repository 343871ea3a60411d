"""The search strategy: thesis Algorithms 3 and 4 (section 4.4), parameter ``depth``.

Algorithm 3 tries, for one derivation, every sequence of up to `depth` bank steps
(groups in order, productions in order; a group used is taken out of the bank) and
returns the sequence whose final derivation has the largest M2, ties going to more
terminals, then to the first found. A derivation to which no bank group applies, or the
end of the depth, is a leaf worth its M2.

Algorithm 4 plays a turn: the rolled group goes to the derivation with the best M2
among those holding its left side (a new derivation if the group rewrites S and the word
"S" is strictly better), with the production whose Algorithm-3 continuation is best, and
that continuation is played. Then, while some bank group applies, the derivation with
the best M2 among those a bank group applies to is searched again and its best sequence
played.

Speed: the result of Algorithm 3 depends only on the derivation's nonterminal counts,
the bank and the depth left (terminals only break ties, and they add up along a
sequence), so results are memoised on that key across turns and games. The
memoised search returns exactly the moves of the plain recursion (``memo=False``),
which the tests check.
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

__all__ = ["SearchBot"]

Result = tuple[float, int, tuple[tuple[int, int], ...]]

MEMO_LIMIT = 400_000


class SearchBot:
    """Algorithm 4 with Algorithm 3 to the given depth."""

    def __init__(
        self,
        game: SubstitutionGame,
        depth: int = 4,
        tolerance: float = DEFAULT_TOLERANCE,
        *,
        memo: bool = True,
    ) -> None:
        if depth < 1:
            raise ValueError("depth must be at least 1")
        self.depth = depth
        rules = self.rules = rules_for(game, tolerance)
        self.m2 = rules.metrics.m2
        self.use_memo = memo
        self._search = (functools.lru_cache(maxsize=MEMO_LIMIT)(self._search_from) if memo
                        else self._search_from)
        self._metric = functools.lru_cache(maxsize=200_000)(
            functools.partial(rules.word_metric, self.m2))
        self._texts = text_cache()
        # per group: (left, [(delta, terminals), ...])
        self._groups = [
            (rules.left[g], [(delta, terms) for (_, terms, delta) in rules.alts[g]])
            for g in range(rules.n_groups)
        ]

    def word_metric(self, counts: Counts) -> float:
        return float(self._metric(counts))

    # -- Algorithm 3 ----------------------------------------------------------------------

    def search(self, counts: Counts, bank: tuple[int, ...], depth: int) -> Result:
        """Best (metric, terminals added, [(group, production), ...]) from `counts`."""
        if self.use_memo:
            # A bank count above the depth left acts like the depth left: cap it, so
            # that more positions share a memo entry.
            bank = tuple([min(depth, b) for b in bank])
        result: Result = self._search(counts, bank, depth)
        return result

    def _search_from(self, counts: Counts, bank: tuple[int, ...], depth: int) -> Result:
        """`search` itself (memoised in `_search`, least recently used out first)."""
        best: Result | None = None
        if depth > 0:
            for g, (left, alternatives) in enumerate(self._groups):
                if bank[g] <= 0 or counts[left] <= 0:
                    continue
                reduced = bank[:g] + (bank[g] - 1,) + bank[g + 1:]
                for k, (delta, terms) in enumerate(alternatives):
                    child = tuple([a + b for a, b in zip(counts, delta)])
                    metric, added, steps = self.search(child, reduced, depth - 1)
                    added += terms
                    if best is None or metric > best[0] or (metric == best[0] and added > best[1]):
                        best = (metric, added, ((g, k),) + steps)
        if best is None:
            best = (self.word_metric(counts), 0, ())
        return best

    # -- Algorithm 4 ----------------------------------------------------------------------

    def draft(self, state: GameState, rng: random.Random) -> TurnDraft:
        rules = self.rules
        draft = TurnDraft(rules, state, self._texts)
        group = draft.roll
        _left, alternatives = self._groups[group]
        word = -1
        best_metric = -1.0
        for w in draft.holding(group):
            metric = self.word_metric(draft.words[w])
            if metric > best_metric:
                word, best_metric = w, metric
        if rules.is_start[group] and best_metric < self.word_metric(rules.s_word):
            word = -1
            start = rules.s_word
        elif word == -1:
            return draft  # the rolled group applies nowhere: an empty move
        else:
            start = draft.words[word]
        bank = tuple(draft.bank)
        best: tuple[float, int, int, tuple[tuple[int, int], ...]] | None = None
        for k, (delta, terms) in enumerate(alternatives):
            child = tuple([a + b for a, b in zip(start, delta)])
            metric, added, steps = self.search(child, bank, self.depth)
            added += terms
            if best is None or metric > best[0] or (metric == best[0] and added > best[1]):
                best = (metric, added, k, steps)
        assert best is not None
        word = draft.apply(word, group, best[2])
        for g, k in best[3]:
            draft.apply(word, g, k)
        self._bank_steps(draft)
        return draft

    def _bank_steps(self, draft: TurnDraft) -> None:
        """Algorithm 4, step 5: search from the best derivation a bank group applies to."""
        groups = self._groups
        while True:
            bank = draft.bank
            word = -1
            best_metric = -1.0
            usable = {left for g, (left, _) in enumerate(groups) if bank[g] > 0}
            for w, counts in draft.words.items():
                if any(counts[left] for left in usable):
                    metric = self.word_metric(counts)
                    if metric > best_metric:
                        word, best_metric = w, metric
            if word == -1:
                return
            _, _, steps = self.search(draft.words[word], tuple(bank), self.depth)
            for g, k in steps:
                draft.apply(word, g, k)

    def choose_move(self, game: Any, state: GameState, rng: random.Random) -> MoveString:
        return self.draft(state, rng).move()


def create(game: Any, params: Mapping[str, Any]) -> SearchBot:
    return SearchBot(game, params.get("depth", 4), params.get("tolerance", DEFAULT_TOLERANCE))
