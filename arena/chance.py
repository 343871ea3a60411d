"""Chance outcomes drawn from a seed: the arena's dice, shared by the match loop and replay.

Rules never roll dice themselves (`arena.game`: chance is a player); whoever drives a
game, live (`arena.match.Match`) or from a log (`arena.replay.Replay`), samples the
game's `chance_outcomes` with a `ChanceSource`, so a seed always gives the same game.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["ChanceSource"]


class ChanceSource:
    """Samples chance outcomes from integer weights with a seeded generator.

    The draw is ``r = floor(random() * total)``, then the first outcome whose
    cumulative weight exceeds ``r`` (the thesis program's `RandomProvider` draws the
    same way from .NET's generator). Python's Mersenne Twister `random()` is stable
    across versions, so a seed always gives the same dice.

    (Compiled as an extension type: `chance.pxd` declares its fields.)

    Args:
        seed: the seed of the generator (``None``: seeded from the system).

    Example:
        >>> dice = ChanceSource(7)
        >>> [dice.sample([("heads", 1), ("tails", 1)]) for _ in range(4)]
        ['heads', 'heads', 'tails', 'heads']
    """

    def __init__(self, seed: int | str | None) -> None:
        self._random = random.Random(seed).random
        self._table: tuple[Sequence[tuple[Any, int]], tuple[Any, ...], list[int], int] | None = None

    @property
    def draw(self) -> Callable[[], float]:
        """The generator's ``random()``: what an accelerated replay draws from itself
        (the substitution game's compiled `Replay`), in step with `sample`."""
        return self._random

    def sample(self, outcomes: Sequence[tuple[Any, int]]) -> Any:
        """One outcome of ``(outcome, integer weight)`` pairs, drawn by weight.

        Args:
            outcomes: the game's `chance_outcomes`, weights positive integers.

        Returns:
            The outcome drawn (its first element).
        """
        table = self._table
        if table is None or table[0] is not outcomes:
            table = _sampling_table(outcomes)
            self._table = table
        values = table[1]
        cumulative = table[2]
        r = int(self._random() * table[3])
        for index in range(len(cumulative)):
            if r < cumulative[index]:
                return values[index]
        return values[-1]


def _sampling_table(
    outcomes: Sequence[tuple[Any, int]],
) -> tuple[Sequence[tuple[Any, int]], tuple[Any, ...], list[int], int]:
    """The outcomes, their values and cumulative weights, for `ChanceSource.sample`."""
    cumulative = list(itertools.accumulate(weight for _, weight in outcomes))
    return outcomes, tuple(value for value, _ in outcomes), cumulative, cumulative[-1]
