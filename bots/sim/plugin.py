"""Registers the Sim bots with the arena."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.bots import Bot, BotFactory, Param
from arena.game import Game
from arena.hookspecs import hookimpl


def _random(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.sim.random_bots import RandomBot

    return RandomBot()


def _safe_random(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.sim.random_bots import SafeRandomBot

    return SafeRandomBot()


def _mc(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.sim.mc import MonteCarloBot

    return MonteCarloBot(params["trials"], params["win"], params["lose"])


def _perfect(game: Game[Any, Any], params: Mapping[str, Any]) -> Bot:
    from bots.sim.perfect import PerfectBot

    return PerfectBot(params["budget"])


@hookimpl
def arena_bots() -> list[BotFactory]:
    return [
        BotFactory("sim-random", "sim", "Any free edge, uniformly.", _random),
        BotFactory(
            "sim-safe-random", "sim",
            "A free edge that does not complete its own triangle, if there is one.",
            _safe_random,
        ),
        BotFactory(
            "sim-mc", "sim",
            "Monte-Carlo: random playouts score the edges of winner and loser; best edge wins.",
            _mc,
            params=(
                Param("trials", "int", 200, "random games per move", minimum=1, maximum=100_000),
                Param("win", "float", 1.0, "score of an edge of the playout's winner"),
                Param("lose", "float", -1.0, "score of an edge of the playout's loser"),
            ),
        ),
        BotFactory(
            "sim-perfect", "sim",
            "Perfect play from the exact solver (safe random when a position is too big).",
            _perfect,
            params=(
                Param("budget", "int", 1_000_000, "most new positions to solve per move (-1: no limit)",
                      minimum=-1),
            ),
        ),
    ]
