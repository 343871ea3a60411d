"""Beyond the thesis: ``deep-search``, the search strategy judged by expected points.

The thesis's search strategy (Algorithms 3 and 4) picks the derivation for the rolled
group by its M2 alone, looks 4 bank steps ahead, and ranks the outcomes by M2 with
terminals only breaking ties: it finishes words fast but short. ``deep-search`` keeps
Algorithm 3 (memoised, so it can look deeper: 6 bank steps by default) but judges
every choice by the expected points of the derivation it changes::

    value(word) = M2(word) ** alpha x (3 + terminals(word))

the word's score if it were finished now, discounted by its M2. With the default
``alpha = 0.02`` the discount is mild (a dead derivation, M2 = 0, is still worth 0; a
hard one loses a few per cent), so the strategy builds long words wherever they can
still be finished. For the rolled group it tries every derivation holding the group's
left side, and a new derivation for an S group, with every production followed by
Algorithm 3, and plays the largest gain in value; then, while a bank group applies, it
runs Algorithm 3 on every derivation a bank group applies to and plays the sequence
with the largest gain.

Like the adaptive random strategy it first grows: while nonterminals x omega < moves
left (``omega = 6`` by default; 0 turns this off) it plays the inversed smart random
strategy, holding many nonterminals so that its rolls apply and it takes the bank's
groups; then the deep search finishes and lengthens its words.

Tuned on 200 games per seat (seed 11) against search:depth=4 and adaptive-random:omega=10
on `medium` and `low` (omega 0-12, alpha 0.01-1, depth 6-8); measured on fresh dice
(seed 2026, 500 games per seat) in docs/experiments/beyond-the-thesis.md.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.bots import BotFactory, Param
from arena.games.substitution import SubstitutionGame
from arena.games.substitution._core import GameState
from arena.games.substitution.movestring import MoveString
from bots.substitution.common import Counts, TurnDraft
from bots.substitution.metrics import DEFAULT_TOLERANCE
from bots.substitution.search import SearchBot
from bots.substitution.weighted import WeightedRandomBot

__all__ = ["DeepSearchBot", "factories"]

Steps = tuple[tuple[int, int], ...]


class DeepSearchBot(SearchBot):
    """Algorithm 3 over every derivation, ranked by the gain in expected points."""

    def __init__(self, game: SubstitutionGame, depth: int = 6, alpha: float = 0.02,
                 omega: float = 6.0, tolerance: float = DEFAULT_TOLERANCE) -> None:
        super().__init__(game, depth, tolerance)
        self.alpha = alpha
        self.omega = omega
        self.moves = game.moves
        self.grower = WeightedRandomBot(game, "inversed-smart-random", tolerance) if omega > 0 else None

    def value(self, counts: Counts, terminals: int) -> float:
        """Expected points of a derivation: M2 ** alpha x (3 + terminals)."""
        return float(self.word_metric(counts) ** self.alpha * (3 + terminals))

    def choose_move(self, game: Any, state: GameState, rng: random.Random) -> MoveString:
        if self.grower is not None:
            nonterminals = sum(word.nonterminals for word in state.derivations[state.turn % 2])
            if nonterminals * self.omega < self.moves - state.turn // 2:
                return self.grower.choose_move(game, state, rng)
        return self.draft(state, rng).move()

    def draft(self, state: GameState, rng: random.Random) -> TurnDraft:
        rules = self.rules
        draft = TurnDraft(rules, state, self._texts)
        group = draft.roll
        _, alternatives = self._groups[group]
        candidates = draft.holding(group)
        if rules.is_start[group]:
            candidates.append(-1)
        if not candidates:
            return draft  # the rolled group applies nowhere: an empty move
        bank = tuple(draft.bank)
        alpha = self.alpha
        best: tuple[float, int, int, Steps] | None = None
        for w in candidates:
            if w == -1:
                start, terms0, base = rules.s_word, 0, 0.0
            else:
                start, terms0 = draft.words[w], draft.terminals[w]
                base = self.value(start, terms0)
            for k, (delta, terms) in enumerate(alternatives):
                child = tuple([a + b for a, b in zip(start, delta)])
                metric, added, steps = self.search(child, bank, self.depth)
                gain = metric ** alpha * (3 + terms0 + terms + added) - base
                if best is None or gain > best[0]:
                    best = (gain, w, k, steps)
        assert best is not None
        word = draft.apply(best[1], group, best[2])
        for g, k in best[3]:
            draft.apply(word, g, k)
        self._bank_steps(draft)
        return draft

    def _bank_steps(self, draft: TurnDraft) -> None:
        groups = self._groups
        alpha = self.alpha
        while True:
            choice: tuple[float, int, Steps] | None = None
            bank = tuple(draft.bank)
            usable = {left for g, (left, _) in enumerate(groups) if bank[g] > 0}
            for w, counts in draft.words.items():
                if any(counts[left] for left in usable):
                    terms0 = draft.terminals[w]
                    metric, added, steps = self.search(counts, bank, self.depth)
                    gain = metric ** alpha * (3 + terms0 + added) - self.value(counts, terms0)
                    if choice is None or gain > choice[0]:
                        choice = (gain, w, steps)
            if choice is None:
                return
            for g, k in choice[2]:
                draft.apply(choice[1], g, k)


def create(game: Any, params: Mapping[str, Any]) -> DeepSearchBot:
    return DeepSearchBot(game, params["depth"], params["alpha"], params["omega"],
                         params.get("tolerance", DEFAULT_TOLERANCE))


def factories() -> list[BotFactory]:
    return [
        BotFactory(
            "deep-search", "substitution",
            "beyond the thesis: Algorithm 3 (depth 6) over every derivation, ranked by "
            "expected points M2 x (3 + terminals)",
            create,
            (
                Param("depth", "int", 6, "bank steps looked ahead", minimum=1, maximum=12),
                Param("alpha", "float", 0.02, "exponent of M2 in the expected points (0 < alpha; "
                      "small: longer words, only dead ones worthless)", minimum=1e-6),
                Param("omega", "float", 6.0, "grow with inversed weights while nonterminals x "
                      "omega < moves left (0: never)", minimum=0),
                Param("tolerance", "float", DEFAULT_TOLERANCE,
                      "relative stopping tolerance of the M2/M3 iteration", minimum=1e-12, maximum=1),
            ),
        ),
    ]
