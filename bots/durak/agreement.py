"""How often `durak-greedy` picks an optimal move: its agreement rate with the solver.

Positions come from games between random players on random deals, so early, middle
and late positions all count; at each decision the greedy move is checked against the
solver's set of optimal moves.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from arena.games.durak.game import DurakGame
from arena.games.durak.rules import DurakSettings, apply_move, legal_moves
from arena.games.durak.solver import DurakSolver
from bots.durak.greedy import greedy_move
from bots.durak.perfect import optimal_moves

__all__ = ["Agreement", "measure_agreement"]


@dataclass(frozen=True)
class Agreement:
    decisions: int
    agreed: int
    lays: int
    lays_agreed: int

    @property
    def rate(self) -> float:
        return self.agreed / self.decisions if self.decisions else 1.0

    @property
    def lay_rate(self) -> float:
        return self.lays_agreed / self.lays if self.lays else 1.0

    @property
    def answer_rate(self) -> float:
        answers = self.decisions - self.lays
        return (self.agreed - self.lays_agreed) / answers if answers else 1.0


def measure_agreement(
    *,
    cards: int = 12,
    deals: int = 50,
    seed: int = 1,
    draw_rule: bool = False,
    style: str = "table",
    solver: DurakSolver | None = None,
    weights: tuple[int, int] | None = None,
) -> Agreement:
    """Agreement over `deals` random deals; `weights` = (low, high) draws card weights."""
    solver = solver or DurakSolver()
    rng = random.Random(seed)
    decisions = agreed = lays = lays_agreed = 0
    for _ in range(deals):
        deal = "".join(rng.choice("01") for _ in range(cards))
        if "0" not in deal or "1" not in deal:
            continue
        card_weights = (
            tuple(rng.randint(*weights) for _ in range(cards)) if weights is not None else None
        )
        game = DurakGame(DurakSettings(deal, card_weights, draw_rule))
        state = game.initial_state()
        while not state.over:
            moves = legal_moves(game.rules, state)
            if len(moves) > 1:
                guess = greedy_move(state, style, card_weights)
                good = guess in optimal_moves(solver, game, state)
                decisions += 1
                agreed += good
                if state.table is None:
                    lays += 1
                    lays_agreed += good
            state = apply_move(state, rng.choice(moves))
    return Agreement(decisions, agreed, lays, lays_agreed)
