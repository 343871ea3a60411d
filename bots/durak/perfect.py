"""`durak-perfect`: plays an optimal move found by the exact solver."""

from __future__ import annotations

import random
from typing import Any

from arena.games.durak.game import DurakGame
from arena.games.durak.rules import DurakMove, DurakState, MoveKind
from arena.games.durak.solver import DurakSolver, Position

__all__ = ["PerfectBot", "optimal_moves"]


def attack_position(game: DurakGame, state: DurakState) -> tuple[Position, tuple[int, ...]]:
    """The canonical position for the attacker, with a laid card back in its hand."""
    attacker = set(state.hands[state.attacker])
    if state.table is not None:
        attacker.add(state.table)
    return Position.from_hands(
        frozenset(attacker), state.hands[state.defender], game.rules.weights, game.rules.draw_rule
    )


def optimal_moves(solver: DurakSolver, game: DurakGame, state: DurakState) -> list[DurakMove]:
    """Every optimal move for the seat to move (lays, or answers to the card laid)."""
    position, cards = attack_position(game, state)
    index = {card: i + 1 for i, card in enumerate(cards)}
    if state.table is None:
        solution = solver.solve(position)
        return [DurakMove(MoveKind.LAY, cards[c - 1]) for c in solution.optimal_moves]
    laid = index[state.table]
    values = {0: solver.reply_value(position, laid, 0)}
    for beat in position.beats(laid):
        values[beat] = solver.reply_value(position, laid, beat, values[0])
    best = min(values.values())
    return [
        DurakMove(MoveKind.TAKE) if r == 0 else DurakMove(MoveKind.BEAT, cards[r - 1])
        for r, v in sorted(values.items())
        if v == best
    ]


class PerfectBot:
    """Optimal play. Among optimal lays `prefer` picks: ``tricky`` (a catch-take, else a
    catch-pass, else the lowest), ``lowest`` or ``random``."""

    def __init__(self, prefer: str = "tricky", solver: DurakSolver | None = None) -> None:
        self.prefer = prefer
        self.solver = solver or DurakSolver()

    def choose_move(self, game: Any, state: DurakState, rng: random.Random) -> DurakMove:
        if state.table is None and self.prefer == "tricky":
            position, cards = attack_position(game, state)
            solution = self.solver.solve(position)
            card = solution.catch_take or solution.catch_pass or solution.optimal_moves[0]
            return DurakMove(MoveKind.LAY, cards[card - 1])
        moves = optimal_moves(self.solver, game, state)
        if self.prefer == "random":
            return rng.choice(moves)
        return moves[0]
