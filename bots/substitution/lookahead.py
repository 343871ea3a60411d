"""Beyond the thesis: ``grow-finish``, a deterministic two-phase strategy with a tuned
evaluation of each step.

The thesis's adaptive random strategy grows long derivations by drawing productions
with inverted weights, then finishes them with the search strategy. ``grow-finish``
keeps the two phases but plays the growth phase greedily: every step (the rolled group,
then each bank group it must use) takes the (group, production, derivation) with the
best value ``terminals + beta x nonterminals`` of the production's right side, never a
production that cannot finish (M3 = 0) when another is possible, and prefers starting
a new derivation for a rolled S group (more nonterminals catch more rolls and more bank
groups, which the opponent then cannot use). The switch to the finishing search comes
when ``nonterminals x omega >= moves left``, as in the thesis, and the finishing search
is Algorithms 3-4.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.bots import BotFactory, Param
from arena.games.substitution import SubstitutionGame
from arena.games.substitution._core import GameState
from bots.substitution.common import TurnDraft, rules_for
from bots.substitution.metrics import DEFAULT_TOLERANCE
from bots.substitution.search import SearchBot
from protocol.movestring import MoveString

__all__ = ["GrowFinishBot", "factories"]


class GrowFinishBot:
    """Greedy growth of long derivations, then the thesis's search to finish them."""

    def __init__(self, game: SubstitutionGame, omega: float = 6.0, beta: float = 1.5,
                 depth: int = 4, tolerance: float = DEFAULT_TOLERANCE, cap: int = 1000) -> None:
        self.omega = omega
        self.cap = cap
        self.moves = game.moves
        rules = self.rules = rules_for(game, tolerance)
        m3 = rules.metrics.m3
        self.finisher = SearchBot(game, depth, tolerance)
        # value of each (group, production) for growing
        self.value = [
            [
                (terms + beta * sum(counts)) if m3.productions[g][k] > 0 else -1e9
                for k, (counts, terms, _) in enumerate(rules.alts[g])
            ]
            for g in range(rules.n_groups)
        ]
        self.best = [max(range(len(row)), key=lambda k, row=row: (row[k], -k)) for row in self.value]
        self.alive = [rules.metrics.m3.nonterminals[ord(ch) - 65] > 0 for ch in rules.letters]
        self._texts: dict[str, tuple[int, ...]] = {}

    def finishing(self, state: GameState) -> bool:
        moves_left = self.moves - state.turn // 2
        nonterminals = sum(word.nonterminals for word in state.derivations[state.turn % 2])
        return nonterminals >= self.cap or not nonterminals * self.omega < moves_left

    def _word(self, draft: TurnDraft, candidates: list[int]) -> int:
        """The derivation to rewrite: a new one if allowed, else the one with the most
        nonterminals that can all finish (useless derivations last)."""
        if -1 in candidates:
            return -1
        alive = self.alive

        def key(w: int) -> tuple[bool, int, int]:
            counts = draft.words[w]
            return (all(alive[i] for i, c in enumerate(counts) if c), sum(counts), -w)

        return max(candidates, key=key)

    def grow(self, state: GameState) -> TurnDraft:
        rules = self.rules
        draft = TurnDraft(rules, state, self._texts)
        group = draft.roll
        candidates = draft.holding(group)
        if rules.is_start[group]:
            candidates.append(-1)
        if not candidates:
            return draft
        draft.apply(self._word(draft, candidates), group, self.best[group])
        while True:
            groups = draft.applicable_bank_groups()
            if not groups:
                return draft
            group = max(groups, key=lambda g: (self.value[g][self.best[g]], -g))
            draft.apply(self._word(draft, draft.holding(group)), group, self.best[group])

    def choose_move(self, game: SubstitutionGame, state: GameState, rng: random.Random) -> MoveString:
        if self.finishing(state):
            return self.finisher.choose_move(game, state, rng)
        return self.grow(state).move()


def create(game: Any, params: Mapping[str, Any]) -> GrowFinishBot:
    return GrowFinishBot(game, params["omega"], params["beta"], params["depth"],
                         params.get("tolerance", DEFAULT_TOLERANCE), params["cap"])


def factories() -> list[BotFactory]:
    return [
        BotFactory(
            "deep-search", "substitution",
            "beyond the thesis: search judged by expected points M2 x (3 + terminals) over "
            "every derivation, deeper",
            create_deep,
            (
                Param("depth", "int", 6, "bank steps looked ahead", minimum=1, maximum=12),
                Param("alpha", "float", 1.0, "exponent of M2 in the expected points", minimum=0),
                Param("omega", "float", 0.0, "grow with inversed random while nonterminals x "
                      "omega < moves left (0: never)", minimum=0),
                Param("tolerance", "float", DEFAULT_TOLERANCE, "M2/M3 iteration tolerance",
                      minimum=1e-12, maximum=1),
            ),
        ),
        BotFactory(
            "grow-finish", "substitution",
            "beyond the thesis: greedy growth (terminals + beta x nonterminals), then search",
            create,
            (
                Param("omega", "float", 6.0, "finish once nonterminals x omega >= moves left", minimum=0),
                Param("beta", "float", 1.5, "weight of a production's nonterminals while growing"),
                Param("depth", "int", 4, "depth of the finishing search", minimum=1, maximum=12),
                Param("cap", "int", 1000, "finish while holding at least this many nonterminals",
                      minimum=0),
                Param("tolerance", "float", DEFAULT_TOLERANCE, "M2/M3 iteration tolerance",
                      minimum=1e-12, maximum=1),
            ),
        ),
    ]


class DeepSearchBot(SearchBot):
    """The search strategy judged by expected points instead of M2 alone (beyond the
    thesis): every derivation that could take the rolled group (and a new one) is tried
    with every production, each followed by Algorithm 3; the choice maximises the gain
    in ``M2 x (3 + terminals)`` -- the word's score discounted by the metric's chance
    of finishing it -- and bank steps go, each time, to the derivation where
    Algorithm 3 gains most."""

    alpha = 1.0
    omega = 0.0
    grower: Any = None

    def choose_move(self, game: SubstitutionGame, state: GameState, rng: random.Random) -> MoveString:
        if self.omega > 0:
            nonterminals = sum(word.nonterminals for word in state.derivations[state.turn % 2])
            if nonterminals * self.omega < game.moves - state.turn // 2:
                if self.grower is None:
                    from bots.substitution.weighted import WeightedRandomBot

                    self.grower = WeightedRandomBot(game, "inversed-smart-random")
                return self.grower.choose_move(game, state, rng)  # type: ignore[no-any-return]
        return self.draft(state, rng).move()

    def _value(self, counts: tuple[int, ...], terminals: int) -> float:
        return self.word_metric(counts) ** self.alpha * (3 + terminals)

    def draft(self, state: GameState, rng: random.Random) -> TurnDraft:
        rules = self.rules
        draft = TurnDraft(rules, state, self._texts)
        group = draft.roll
        _, alternatives = self._groups[group]
        candidates = draft.holding(group)
        if rules.is_start[group]:
            candidates.append(-1)
        if not candidates:
            return draft
        bank = tuple(draft.bank)
        best = None
        for w in candidates:
            start, terms0 = (rules.s_word, 0) if w == -1 else (draft.words[w], draft.terminals[w])
            base = 0.0 if w == -1 else self._value(start, terms0)
            for k, (delta, terms) in enumerate(alternatives):
                child = tuple([a + b for a, b in zip(start, delta)])
                metric, added, steps = self.search(child, bank, self.depth)
                gain = metric ** self.alpha * (3 + terms0 + terms + added) - base
                if best is None or gain > best[0]:
                    best = (gain, w, k, steps)
        assert best is not None
        word = draft.apply(best[1], group, best[2])
        for g, k in best[3]:
            draft.apply(word, g, k)
        while True:
            choice = None
            bank = tuple(draft.bank)
            usable = {left for g, (left, _) in enumerate(self._groups) if bank[g] > 0}
            for w, counts in draft.words.items():
                if any(counts[left] for left in usable):
                    metric, added, steps = self.search(counts, bank, self.depth)
                    gain = (metric ** self.alpha * (3 + draft.terminals[w] + added)
                            - self._value(counts, draft.terminals[w]))
                    if choice is None or gain > choice[0]:
                        choice = (gain, w, steps)
            if choice is None:
                return draft
            for g, k in choice[2]:
                draft.apply(choice[1], g, k)


def create_deep(game: Any, params: Mapping[str, Any]) -> DeepSearchBot:
    bot = DeepSearchBot(game, params["depth"], params.get("tolerance", DEFAULT_TOLERANCE))
    bot.alpha = params.get("alpha", 1.0)
    bot.omega = params.get("omega", 0.0)
    return bot
