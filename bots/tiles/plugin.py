"""Registers the tile bots: random, probability, zermelo and race-perfect."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.bots import Bot, BotFactory
from arena.game import Game
from arena.hookspecs import hookimpl


def _factory(name: str) -> Any:
    def create(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
        from bots.tiles import bots

        bot: Bot = getattr(bots, name)()
        return bot

    return create


@hookimpl
def arena_bots() -> list[BotFactory]:
    return [
        BotFactory(
            "tiles-random",
            "tiles",
            "Seed strategy 1: a random possible move.",
            _factory("RandomBot"),
        ),
        BotFactory(
            "tiles-probability",
            "tiles",
            "Seed strategy 2: compare the chances of the tiles left up.",
            _factory("ProbabilityBot"),
        ),
        BotFactory(
            "tiles-zermelo",
            "tiles",
            "Seed strategy 3: fewest expected turns (exact solo table).",
            _factory("ZermeloBot"),
        ),
        BotFactory(
            "tiles-race-perfect",
            "tiles",
            "Highest chance to win the two-player race (exact race table).",
            _factory("RacePerfectBot"),
        ),
    ]


@hookimpl
def arena_cli_commands() -> dict[str, str]:
    return {"compare-tiles": "bots.tiles.compare:compare_tiles"}
