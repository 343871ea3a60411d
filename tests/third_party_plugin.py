"""A third-party game's plugin using every hook a game may use: what the built-in games
get through the hooks, an outside package gets the same way (tests/test_plugin_hooks.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from aiohttp import web

from arena.bots import BotFactory
from arena.game import Game, GameType, Rejection
from arena.hookspecs import hookimpl
from arena.record import LogFormat, MatchRecord, read_jsonl
from arena.web.http import json_response
from arena.web.routes import Endpoint
from tests.web.bare_game import BareSim, _random

MARK = "THIRD LOG\n"


class ThirdSim(BareSim):
    """Sim under another name, as an outside package would ship a game."""

    type = GameType(name="third-sim", title="Third Sim", description="Sim from outside",
                    move_syntax="'i j'")


def read_third_log(text: str) -> MatchRecord:
    return read_jsonl(text.removeprefix(MARK).splitlines())


@click.command("third-hello")
def hello() -> None:
    """Say which game this plugin brings."""
    click.echo("hello from third-sim")


async def hello_endpoint(request: web.Request) -> web.Response:
    return json_response({"game": "third-sim"})


@hookimpl
def arena_games() -> list[type[Game[Any, Any]]]:
    return [ThirdSim]


@hookimpl
def arena_bots() -> list[BotFactory]:
    return [BotFactory("third-random", "third-sim", "Any free edge.", _random)]


@hookimpl
def arena_log_formats() -> list[LogFormat]:
    return [LogFormat("third log", lambda text: text.startswith(MARK.strip()), read_third_log)]


@hookimpl
def arena_cli_commands() -> dict[str, str]:
    return {"third-hello": "tests.third_party_plugin:hello"}


@hookimpl
def arena_cli_settings(game: str, options: Mapping[str, Any]) -> dict[str, Any] | None:
    return {"vertices": options.get("moves") or 5} if game == "third-sim" else None


@hookimpl
def arena_web_endpoints() -> list[Endpoint]:
    return [Endpoint("GET", "/api/third/hello", hello_endpoint, "Which game this is", "third")]


@hookimpl
def arena_web_settings(game: str, request: Mapping[str, Any],
                       presets: Mapping[str, str]) -> dict[str, Any] | None:
    if game != "third-sim":
        return None
    if request.get("grammar") is not None:  # a saved preset holds a number of vertices
        return {"vertices": int(presets[request["grammar"]])}
    return {"vertices": request.get("moves") or 5}


@hookimpl
def arena_web_partial_move(game: Game[Any, Any], state: Any,
                           steps: str) -> dict[str, Any] | Rejection | None:
    if not isinstance(game, ThirdSim):
        return None
    if steps.strip() == "x":
        return Rejection("malformed", "x is no step", 0)
    return {"steps_so_far": steps, "to_act": game.to_act(state)}
