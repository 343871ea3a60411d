"""`durak-greedy`: a fast rule of thumb that guesses a good move without searching.

Defender: beat with the smallest card that beats the laid one, take if none does.
Attacker, by style:

* ``table`` (default): look the position's features up in a small table fitted
  offline to solved positions (`bench/train_durak_greedy.py`): which run of the
  attacker's cards (a maximal group with no defender card between) to lay the lowest
  card of. Features: who holds the top card and the bottom card, the number of runs
  (capped at 4) and the hand-size difference (capped at +-2).
* ``lowest``: lay the smallest card.
* ``runs``: the lowest card of the attacker's highest run below the defender's top.

With weights (any style) the rules weigh cards instead: the attacker lays its heaviest
card (the defender must take that weight or spend a card on it); the defender beats
with its heaviest higher card when the two weights together are positive (weight
leaves the game), else takes. These were the best of a few simple rules on solved
weighted positions. Agreement rates with the solver: `bench/bench_durak.py`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from arena.games.durak.rules import DurakMove, DurakState, MoveKind

__all__ = ["GreedyBot", "greedy_move"]


def attacker_runs(owners: str) -> list[tuple[int, int]]:
    """The runs of ``0`` (the attacker's cards) in a canonical owner string, 0-based."""
    runs = []
    start = None
    for index, owner in enumerate(owners + "1"):
        if owner == "0" and start is None:
            start = index
        elif owner == "1" and start is not None:
            runs.append((start, index - 1))
            start = None
    return runs


def lay_features(owners: str, runs: list[tuple[int, int]]) -> tuple[str, int, int, str]:
    difference = owners.count("0") - owners.count("1")
    return (owners[-1], min(len(runs), 4), max(-2, min(2, difference)), owners[0])


def table_lay(attacker: list[int], defender: list[int]) -> int:
    """The card the lay table suggests (see the module docstring)."""
    from bots.durak.lay_table import LAY_TABLE

    mine = set(attacker)
    cards = sorted(mine | set(defender))
    owners = "".join("0" if c in mine else "1" for c in cards)
    runs = attacker_runs(owners)
    choice = LAY_TABLE.get(lay_features(owners, runs), 0) if len(runs) > 1 else 0
    run = runs[-1] if choice == -1 else runs[min(choice, len(runs) - 1)]
    return cards[run[0]]


def weighted_move(state: DurakState, weights: Sequence[int]) -> DurakMove:
    """The weight-aware rules (see the module docstring)."""

    def weight(card: int) -> int:
        return weights[card - 1]

    if state.table is None:
        card = max(state.hands[state.attacker], key=lambda c: (weight(c), -c))
        return DurakMove(MoveKind.LAY, card)
    higher = [c for c in state.hands[state.defender] if c > state.table]
    if higher:
        beat = max(higher, key=lambda c: (weight(c), -c))
        if weight(state.table) + weight(beat) > 0:
            return DurakMove(MoveKind.BEAT, beat)
    return DurakMove(MoveKind.TAKE)


def greedy_move(
    state: DurakState, style: str = "table", weights: Sequence[int] | None = None
) -> DurakMove:
    if weights is not None:
        return weighted_move(state, weights)
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
    if style == "table":
        return DurakMove(MoveKind.LAY, table_lay(attacker, defender))
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
    def __init__(self, style: str = "table") -> None:
        self.style = style

    def choose_move(self, game: Any, state: DurakState, rng: random.Random) -> DurakMove:
        return greedy_move(state, self.style, game.rules.weights)
