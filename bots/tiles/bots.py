"""Bot classes wrapping the decision rules of `bots.tiles.strategies`."""

from __future__ import annotations

import random
from typing import Any

from arena.games.tiles.expected import solo_table
from arena.games.tiles.race import race_table
from arena.games.tiles.rules import TilesMove, TilesState
from bots.tiles import strategies

__all__ = ["ProbabilityBot", "RacePerfectBot", "RandomBot", "ZermeloBot"]


class RandomBot:
    def choose_move(self, game: Any, state: TilesState, rng: random.Random) -> TilesMove:
        assert state.roll is not None
        return TilesMove(strategies.random_choice(state.boards[state.to_move], state.roll, rng))


class ProbabilityBot:
    def choose_move(self, game: Any, state: TilesState, rng: random.Random) -> TilesMove:
        assert state.roll is not None
        board = state.boards[state.to_move]
        return TilesMove(strategies.probability_choice(board, state.roll, rng))


class ZermeloBot:
    """Fewest expected turns; passes when staying is better (if passing is allowed)."""

    def prepare(self, game: Any) -> None:
        """Solve the solo table (a fraction of a second) before the clock starts."""
        solo_table(game.rules.tiles, game.rules.voluntary_skip)

    def choose_move(self, game: Any, state: TilesState, rng: random.Random) -> TilesMove:
        assert state.roll is not None
        rules = game.rules
        board = state.boards[state.to_move]
        return TilesMove(
            strategies.zermelo_choice(board, state.roll, rules.tiles, rules.voluntary_skip)
        )


class RacePerfectBot:
    """Highest chance to win a two-player race; plays like `ZermeloBot` otherwise."""

    def prepare(self, game: Any) -> None:
        """Load the race table for the game's settings before the clock starts (solved
        and stored in the disk cache the first time: about a second for 12 tiles)."""
        rules = game.rules
        if rules.players != 2:
            ZermeloBot().prepare(game)
        else:
            race_table(rules.tiles, rules.voluntary_skip)

    def choose_move(self, game: Any, state: TilesState, rng: random.Random) -> TilesMove:
        assert state.roll is not None
        rules = game.rules
        if rules.players != 2:
            return ZermeloBot().choose_move(game, state, rng)
        board = state.boards[state.to_move]
        other = state.boards[1 - state.to_move]
        return TilesMove(
            strategies.race_choice(board, other, state.roll, rules.tiles, rules.voluntary_skip)
        )
