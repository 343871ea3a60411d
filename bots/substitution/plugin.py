"""Registers the built-in substitution-game bots (through the same hook as third parties)."""

from __future__ import annotations

from arena.bots import BotFactory
from arena.hookspecs import hookimpl
from bots.substitution import random_bot


@hookimpl
def arena_bots() -> list[BotFactory]:
    return [
        BotFactory(
            name="random",
            game="substitution",
            description="uniformly random legal moves (thesis Algorithm 1, equal weights)",
            create=random_bot.create,
        ),
    ]
