"""The thesis program's strategies as arena bots: ``thesis-random``, ``thesis-search``, ...

Each turn the bot hands its strategy what the program's `Game` hands it: fresh
simplified copies of the player's derivations (all of them, finished ones included),
the round number, the rolled group and a copy of the bank, and plays the steps it
returns. Their moves are legal under ``bank_rule: thesis-program``; under the strict
rules many are not (they leave applicable bank groups unused) and forfeit.

When the C# would throw inside a strategy (`ProgramError`), the program ended the
game there and scored it as it stood; a bot cannot end a game, so it plays a move the
referee rejects, naming the failure (a forfeit). `ProgramBot.failures` counts them.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping
from typing import Any

from arena.bots import BotFactory, Param
from arena.errors import BotSpecError
from arena.games.substitution import SubstitutionGame
from arena.games.substitution._core import GameState
from arena.games.substitution.movestring import MoveString
from bots.substitution.program.simplified import ProgramError, ProgramSettings, Word, settings_for
from bots.substitution.program.strategies import (
    AdaptiveRandomStrategy,
    BetterSmartRandomStrategy,
    ImprovedRandomStrategy,
    InversedSmartRandomStrategy,
    MixedStrategy,
    RandomStrategy,
    SearchStrategy,
    ShortWordsStrategy,
    SmartRandomStrategy,
    Strategy,
    StupidShortWordsStrategy,
)

__all__ = ["ProgramBot", "factories"]

GAME = "substitution"

_new_move = tuple.__new__


class ProgramBot:
    """An arena bot around one of the program's strategies."""

    def __init__(self, game: SubstitutionGame, make: Callable[[ProgramSettings], Strategy]) -> None:
        self.settings = settings_for(game.grammar, game.moves)
        try:
            self.strategy = make(self.settings)
        except ProgramError as error:
            # The program would throw in setGameSettings, before any game.
            raise BotSpecError(f"the thesis program's strategy cannot play this grammar: {error}") from None
        self._converted = functools.lru_cache(maxsize=50_000)(self._convert)
        self.failures = 0

    def _convert(self, text: str) -> tuple[tuple[int, ...], int]:
        word = self.settings.convert(text)
        return tuple(word.counts), word.terminals

    def _word(self, text: str) -> Word:
        counts, terminals = self._converted(text)
        return Word(list(counts), terminals)

    def choose_move(self, game: Any, state: GameState, rng: random.Random) -> MoveString | str:
        player = state.turn % 2
        words = [self._word(word.text) for word in state.derivations[player]]
        try:
            steps = self.strategy.make_move(
                player, state.turn // 2, state.roll, words, list(state.bank), rng  # type: ignore[arg-type]
            )
        except ProgramError as error:
            self.failures += 1
            return f"(the thesis program's strategy failed: {error})"
        return _new_move(MoveString, (tuple(steps),))


DEPTH = Param("depth", "int", 4, "search depth (the program's parameter \"depth\")", minimum=0, maximum=8)
OMEGA = Param(
    "omega", "float", 10.0,
    "the program's finish_coef: search once nonterminals x omega >= moves - move number",
    minimum=0,
)
FINISH = Param(
    "finish", "choice", "search",
    "finishing strategy (the program's: search at depth 4; short-words is its commented-out one)",
    choices=("search", "short-words"),
)
POINTS = Param(
    "points", "ints", (1, 1, 1, 1),
    "probability points of better-smart-random, short-words, search, adaptive-random "
    "(the order of the program's names, 'Mixed Strategy a b c d')",
    minimum=0,
)


def _simple(name: str, cls: Callable[[ProgramSettings], Strategy], description: str) -> BotFactory:
    def create(game: Any, params: Mapping[str, Any]) -> ProgramBot:
        return ProgramBot(game, cls)

    return BotFactory(f"thesis-{name}", GAME, description, create)


def _search(game: Any, params: Mapping[str, Any]) -> ProgramBot:
    depth = params["depth"]
    return ProgramBot(game, lambda s: SearchStrategy(s, depth))


def _adaptive(game: Any, params: Mapping[str, Any]) -> ProgramBot:
    omega, finish, depth = params["omega"], params["finish"], params["depth"]
    return ProgramBot(game, lambda s: AdaptiveRandomStrategy(s, omega, finish, depth))


def _mixed(game: Any, params: Mapping[str, Any]) -> ProgramBot:
    points = tuple(params["points"])
    if len(points) != 4 or sum(points) <= 0:
        raise BotSpecError("thesis-mixed needs four points, not all zero")
    depth, omega = params["depth"], params["omega"]
    return ProgramBot(game, lambda s: MixedStrategy(s, *points, depth=depth, coef=omega))


def factories() -> list[BotFactory]:
    """The program's strategies, registered by `bots.substitution.plugin`."""
    note = " (the thesis program's class as written; legal under bank_rule thesis-program)"
    return [
        _simple("random", RandomStrategy, "RandomStrategy" + note),
        _simple("smart-random", SmartRandomStrategy, "SmartRandomStrategy" + note),
        _simple("better-smart-random", BetterSmartRandomStrategy, "BetterSmartRandomStrategy" + note),
        _simple("inversed-smart-random", InversedSmartRandomStrategy,
                "InversedSmartRandomStrategy" + note),
        _simple("improved-random", ImprovedRandomStrategy, "ImprovedRandomStrategy" + note),
        _simple("stupid-short-words", StupidShortWordsStrategy, "StupidShortWordsStrategy" + note),
        _simple("short-words", ShortWordsStrategy, "ShortWordsStrategy" + note),
        BotFactory("thesis-search", GAME, "SearchStrategy" + note, _search, (DEPTH,)),
        BotFactory("thesis-adaptive-random", GAME, "AdaptiveRandomStrategy" + note, _adaptive,
                   (OMEGA, FINISH, DEPTH)),
        BotFactory("thesis-mixed", GAME, "MixedStrategy" + note, _mixed, (POINTS, DEPTH, OMEGA)),
    ]
