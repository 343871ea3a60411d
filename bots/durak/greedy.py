"""`durak-greedy`: a fast rule of thumb that guesses a good move without searching.

Defender: beat with the smallest card that beats the laid one, take if none does.
Attacker (style ``lowest``, the default): lay the smallest card. Style ``runs``: lay
the lowest card of the attacker's highest run below the defender's top card, which
forces the defender to spend a high card or take. The agreement rate with the solver
(`bots.durak.agreement`) is about 80% of decisions for ``lowest`` and 76% for ``runs``
over positions from random play; weights are ignored.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.durak.rules import DurakMove, DurakState, MoveKind

__all__ = ["GreedyBot", "greedy_move"]


def greedy_move(state: DurakState, style: str = "lowest") -> DurakMove:
    attacker = sorted(state.hands[state.attacker])
    defender = sorted(state.hands[state.defender])
    if state.table is not None:
        laid = state.table
        higher = [c for c in defender if c > laid]
        if not higher:
            return DurakMove(MoveKind.TAKE)
        return DurakMove(MoveKind.BEAT, higher[0])
    if style == "lowest":
        return DurakMove(MoveKind.LAY, attacker[0])
    # Lay the lowest card of the attacker's highest run under the defender's top card:
    # the defender must spend a high card on it or take it.
    top = defender[-1]
    below = [c for c in attacker if c < top]
    if not below:
        return DurakMove(MoveKind.LAY, attacker[0])
    card = below[-1]
    lower_defender = [c for c in defender if c < card]
    floor = lower_defender[-1] if lower_defender else 0
    run = [c for c in attacker if floor < c <= card]
    return DurakMove(MoveKind.LAY, run[0])


class GreedyBot:
    def __init__(self, style: str = "lowest") -> None:
        self.style = style

    def choose_move(self, game: Any, state: DurakState, rng: random.Random) -> DurakMove:
        return greedy_move(state, self.style)
