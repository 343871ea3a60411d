"""Registers the Durak bots: `durak-perfect` and `durak-greedy`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.bots import Bot, BotFactory, Param
from arena.game import Game
from arena.hookspecs import hookimpl


def _perfect(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.durak.perfect import PerfectBot

    return PerfectBot(prefer=params["prefer"])


def _greedy(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.durak.greedy import GreedyBot

    return GreedyBot(style=params["style"])


@hookimpl
def arena_bots() -> list[BotFactory]:
    return [
        BotFactory(
            "durak-perfect",
            "durak",
            "Optimal play from the exact solver.",
            _perfect,
            (
                Param(
                    "prefer",
                    "choice",
                    "tricky",
                    "which optimal lay to play",
                    choices=("tricky", "lowest", "random"),
                ),
            ),
        ),
        BotFactory(
            "durak-greedy",
            "durak",
            "A rule of thumb without search: smallest beating card, lowest lay.",
            _greedy,
            (
                Param(
                    "style",
                    "choice",
                    "table",
                    "how to choose the card to lay",
                    choices=("table", "lowest", "runs"),
                ),
            ),
        ),
    ]
