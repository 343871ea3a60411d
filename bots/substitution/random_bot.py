"""The random strategy: thesis Algorithm 1 with equal weights (compiled in `_core`)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.substitution import SubstitutionGame, random_turn
from arena.games.substitution._core import GameState
from arena.games.substitution.movestring import MoveString

_new_move = tuple.__new__


class RandomBot:
    """Makes a uniformly random legal turn: every group, production and derivation
    choice is drawn with equal weight, in the thesis program's order."""

    def __init__(self, game: SubstitutionGame) -> None:
        self.compiled = game.compiled

    def choose_move(self, game: Any, state: GameState, rng: random.Random) -> MoveString:
        # tuple.__new__ is what MoveString._make does, without an interpreted frame.
        return _new_move(MoveString, (random_turn(self.compiled, state, rng.random),))


def create(game: Any, params: Mapping[str, Any]) -> RandomBot:
    return RandomBot(game)
