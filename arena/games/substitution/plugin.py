"""Registers the substitution game with the arena (a built-in plugin like any other):
the game, the thesis program's text logs, ``arena grammar``, and what the web interface
offers of it (grammar presets, games from the lobby, turns built step by step)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.game import Game, Rejection
from arena.games.substitution.game import SubstitutionGame
from arena.hookspecs import hookimpl
from arena.record import LogFormat

if TYPE_CHECKING:
    from arena.web.routes import Endpoint

NAME = SubstitutionGame.type.name


@hookimpl
def arena_games() -> list[type[Game[Any, Any]]]:
    return [SubstitutionGame]


@hookimpl
def arena_log_formats() -> list[LogFormat]:
    from arena.games.substitution.thesis_log import looks_like_thesis_log, read_thesis_log

    return [LogFormat("thesis text log", looks_like_thesis_log, read_thesis_log)]


@hookimpl
def arena_cli_commands() -> dict[str, str]:
    return {"grammar": "arena.games.substitution.cli:grammar",
            "play": "arena.games.substitution.cli:play"}


CLI_MOVES = 20
"""Moves per player when a command has no ``--moves`` (`arena bot check`)."""


@hookimpl
def arena_cli_settings(game: str, options: Mapping[str, Any]) -> dict[str, Any] | None:
    if game != NAME:
        return None
    from arena.games.substitution.settings import load_settings

    # moves: --moves, else a thesis XML file's NumberOfMoves, else the command's default
    default_moves = options.get("default_moves")
    return load_settings(options.get("grammar") or "medium", options.get("moves"),
                         options.get("bank_rule"),
                         default_moves=CLI_MOVES if default_moves is None else default_moves,
                         ).to_json()


@hookimpl
def arena_web_endpoints() -> list[Endpoint]:
    from arena.games.substitution.webapi import ENDPOINTS

    return list(ENDPOINTS)


@hookimpl
def arena_web_settings(game: str, request: Mapping[str, Any],
                       presets: Mapping[str, str]) -> dict[str, Any] | None:
    if game != NAME:
        return None
    from arena.games.substitution.webplay import web_settings

    return web_settings(request, presets)


@hookimpl
def arena_web_partial_move(game: Game[Any, Any], state: Any,
                           steps: str) -> dict[str, Any] | Rejection | None:
    if not isinstance(game, SubstitutionGame):
        return None
    from arena.games.substitution.webplay import partial_move

    return partial_move(game, state, steps)
