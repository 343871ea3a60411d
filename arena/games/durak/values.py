"""Encoded game values: one integer per result, ordered as the players prefer them.

The solver works with the payoff to the player about to lay a card, doubled so that
"won with score 0" and "lost with score 0" (plain Durak, no draw rule) stay apart:

* the mover ran out and the opponent still holds weight ``S``: ``2 * S``, or ``1`` when
  ``S == 0`` without the draw rule (the mover wins with score 0);
* the opponent ran out with the mover holding ``S``: minus that.

So ``value > 0`` means the mover wins, ``< 0`` the opponent, ``0`` a draw (D-Durak),
and the payoff is ``value / 2`` rounded towards zero.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Verdict", "decode"]


@dataclass(frozen=True)
class Verdict:
    """A decoded value, from the mover's side: who wins and with what score."""

    winner: str
    """``"mover"``, ``"opponent"`` or ``"draw"``."""
    score: int
    """The absolute weight of the loser's remaining cards."""
    payoff: int
    """The mover's payoff (positive when the mover wins)."""


def decode(value: int) -> Verdict:
    payoff = int(value / 2)
    if value > 0:
        return Verdict("mover", abs(payoff), payoff)
    if value < 0:
        return Verdict("opponent", abs(payoff), payoff)
    return Verdict("draw", 0, 0)
