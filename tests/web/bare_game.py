"""A game plugin that ships no web renderer: the web interface falls back to its JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.bots import Bot, BotFactory
from arena.game import Game, GameType, LegalOptions
from arena.games.sim.game import SimGame
from arena.hookspecs import hookimpl


class BareSim(SimGame):
    """Sim under another name, from a module without a web.js beside it."""

    type = GameType(name="bare-sim", title="Bare Sim", description="Sim without a renderer",
                    move_syntax="'i j'")

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> BareSim:
        return cls(settings.get("vertices", 4))

    @classmethod
    def web_lobby(cls) -> dict[str, Any]:
        return {}  # what a game says when it has nothing for the lobby

    def legal_moves(self, state: Any, limit: int = 1000) -> LegalOptions:
        raise NotImplementedError("bare-sim does not list its moves")


def _random(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.sim.random_bots import RandomBot

    return RandomBot()


@hookimpl
def arena_games() -> list[type[Game[Any, Any]]]:
    return [BareSim]


@hookimpl
def arena_bots() -> list[BotFactory]:
    return [BotFactory("bare-random", "bare-sim", "Any free edge.", _random)]
