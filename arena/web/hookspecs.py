"""The web's plugin hooks: a game's own HTTP endpoints, web settings and step-built moves.

They live with the web (the core's contract, `arena.hookspecs`, names no web type), and
a plugin implements them like the core's, with `arena.hookimpl`::

    from arena import hookimpl

    @hookimpl
    def arena_web_endpoints():
        from mygame.webapi import ENDPOINTS  # arena.web.routes.Endpoint values
        return list(ENDPOINTS)

Every `arena.registry.Registry` adds these specifications to the core's
(`arena.registry.HOOKSPECS`, by module name: nothing below the web imports it). An
endpoint's handler reaches the arena through `arena.web.routes.service_of`, an
`arena.service.ArenaService`, never the server's modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from arena.game import Game, Rejection
    from arena.web.routes import Endpoint

hookspec = pluggy.HookspecMarker("arena")

@hookspec
def arena_web_endpoints() -> list[Endpoint]:  # type: ignore[empty-body]
    """Return HTTP endpoints of a game's own (`arena.web.routes.Endpoint`).

    Called when the web application is made; they are served and documented (OpenAPI)
    like the arena's own (the substitution game: its grammar presets, ``/api/grammars``).
    """


@hookspec(firstresult=True)
def arena_web_settings(
    game: str, request: Mapping[str, Any], presets: Mapping[str, str]
) -> dict[str, Any] | None:
    """The settings of a game the web starts without ``settings``, from the request's
    fields of the game's own (the substitution game: ``moves`` with ``grammar`` or
    ``text``).

    Args:
        game: the game's name.
        request: the request's fields (``moves``, ``grammar``, ``text``: None if absent).
        presets: the presets saved for this game (name -> text; `Storage.presets`).

    Returns:
        The settings (checked by the game's `from_settings` afterwards), or ``None``
        when this plugin does not serve `game`: the game's `Game.web_lobby` settings are
        used. Raise `arena.errors.SettingsError` for fields it refuses. Stops at first
        non-None result.
    """


@hookspec(firstresult=True)
def arena_web_partial_move(
    game: Game[Any, Any], state: Any, steps: str
) -> dict[str, Any] | Rejection | None:
    """A move being built step by step in a web page (``/api/legal?steps=...``).

    Args:
        game: the game, bound to its settings.
        state: the position, the seat to act's turn.
        steps: the steps chosen so far, as the game's move string (may be empty).

    Returns:
        The fields ``/api/legal`` adds to its answer (the legal next steps, whether the
        move may end, what the page draws of the partial move), the `Rejection` of the
        first bad step (its `step`: the 0-based index), or ``None`` when this plugin
        does not build `game`'s moves (then a request with ``steps`` is refused). Stops
        at first non-None result.
    """
