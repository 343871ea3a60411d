"""Registers the heap bots with the arena."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.bots import Bot, BotFactory
from arena.game import Game
from arena.hookspecs import hookimpl


def _random(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.heaps.bots import RandomBot

    return RandomBot()


def _perfect(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.heaps.bots import PerfectBot

    return PerfectBot()


@hookimpl
def arena_bots() -> list[BotFactory]:
    return [
        BotFactory("heaps-random", "heaps", "Any legal move, uniformly.", _random),
        BotFactory(
            "heaps-perfect", "heaps",
            "Perfect play from the retrograde colouring: fastest win, slowest loss.",
            _perfect,
        ),
    ]
