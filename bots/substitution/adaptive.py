"""The adaptive random strategy (section 4.8) and the mixed strategies (section 4.9).

``adaptive-random`` plays the inversed smart random strategy (weights 4) while
``nonterminals x omega < moves left`` (nonterminals over all the player's derivations;
moves left counts the player's turns still to come, this one included), and the
finishing strategy (``search`` at the given depth, or ``short-words``) afterwards.

``mixed`` picks, every turn, one of better-smart-random, short-words, search and
adaptive-random with probability proportional to its points (the program draws an
integer below the total of the points).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.substitution import SubstitutionGame
from arena.games.substitution._core import GameState
from arena.games.substitution.movestring import MoveString
from bots.substitution.metrics import DEFAULT_TOLERANCE
from bots.substitution.search import SearchBot
from bots.substitution.shortwords import ShortWordsBot
from bots.substitution.weighted import WeightedRandomBot

__all__ = ["MIXED_PRESETS", "AdaptiveRandomBot", "MixedBot"]


class AdaptiveRandomBot:
    """Inversed random while the derivations are short for the moves left, then finish."""

    def __init__(
        self,
        game: SubstitutionGame,
        omega: float = 10.0,
        finish: str = "search",
        depth: int = 4,
        tolerance: float = DEFAULT_TOLERANCE,
    ) -> None:
        self.omega = omega
        self.moves = game.moves
        self.start = WeightedRandomBot(game, "inversed-smart-random", tolerance)
        self.finisher: SearchBot | ShortWordsBot
        if finish == "search":
            self.finisher = SearchBot(game, depth, tolerance)
        elif finish == "short-words":
            self.finisher = ShortWordsBot(game, "M2", tolerance)
        else:
            raise ValueError(f"unknown finishing strategy {finish!r}")

    def finishing(self, state: GameState) -> bool:
        moves_left = self.moves - state.turn // 2
        nonterminals = sum(word.nonterminals for word in state.derivations[state.turn % 2])
        return not nonterminals * self.omega < moves_left

    def choose_move(self, game: Any, state: GameState, rng: random.Random) -> MoveString:
        if self.finishing(state):
            return self.finisher.choose_move(game, state, rng)
        return self.start.choose_move(game, state, rng)


MIXED_PRESETS: dict[str, tuple[int, int, int, int]] = {
    # points for (better-smart-random, short-words, search, adaptive-random)
    "equal": (1, 1, 1, 1),
    "peaks": (1, 1, 1, 10),
    "peaks-adaptive-5": (1, 1, 1, 5),
    "peaks-search-5": (1, 1, 5, 1),
    "peaks-adaptive-10": (1, 1, 1, 10),
    "peaks-search-10": (1, 1, 10, 1),
    "linear": (2, 1, 3, 4),
    "linear-2134": (2, 1, 3, 4),
    "linear-1023": (1, 0, 2, 3),
    "linear-2143": (2, 1, 4, 3),
    "linear-1032": (1, 0, 3, 2),
    # "percent of wins" from the thesis's own tables 6.1 (PP1) and 6.3 (PP2)
    "wins": (1581, 1177, 2706, 2263),
    "wins-medium": (1581, 1177, 2706, 2263),
    "wins-low": (1890, 844, 2194, 2746),
}


class MixedBot:
    """A probabilistic mixture of four pure strategies, chosen anew every turn."""

    def __init__(
        self,
        game: SubstitutionGame,
        points: tuple[int, ...] = (1, 1, 1, 1),
        depth: int = 4,
        omega: float = 10.0,
        tolerance: float = DEFAULT_TOLERANCE,
    ) -> None:
        if len(points) != 4:
            raise ValueError("mixed needs four points: better-smart-random, short-words, search, adaptive")
        if sum(points) <= 0:
            raise ValueError("the points must not all be zero")
        self.points = tuple(points)
        self.total = sum(points)
        self.strategies: tuple[Any, ...] = (
            WeightedRandomBot(game, "better-smart-random", tolerance),
            ShortWordsBot(game, "M2", tolerance),
            SearchBot(game, depth, tolerance),
            AdaptiveRandomBot(game, omega, "search", depth, tolerance),
        )

    def choose_move(self, game: Any, state: GameState, rng: random.Random) -> MoveString:
        rest = int(rng.random() * self.total)
        for points, strategy in zip(self.points, self.strategies):
            rest -= points
            if rest < 0:
                move: MoveString = strategy.choose_move(game, state, rng)
                return move
        raise AssertionError("unreachable: the points add up to the total")


def create_adaptive(game: Any, params: Mapping[str, Any]) -> AdaptiveRandomBot:
    return AdaptiveRandomBot(
        game, params["omega"], params["finish"], params["depth"],
        params.get("tolerance", DEFAULT_TOLERANCE),
    )


def create_mixed(game: Any, params: Mapping[str, Any]) -> MixedBot:
    return MixedBot(
        game, params["points"], params["depth"], params["omega"],
        params.get("tolerance", DEFAULT_TOLERANCE),
    )
