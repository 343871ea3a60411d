"""The plugin contract: hook specifications every arena plugin may implement.

Built-in games and bots register through these same hooks. A third-party package
adds its own by exposing a module with `@arena.hookimpl` functions under the
``arena.plugins`` entry-point group in its packaging metadata::

    [project.entry-points."arena.plugins"]
    mybots = "mypackage.arena_plugin"

The generic layers (validation, the command line, the web interface) never name a game:
whatever is particular to one (a log format of its own, a command, web endpoints, how a
web page builds its moves) comes through these hooks, so a third-party game gets what
the built-in ones get. The web's own hooks (``arena_web_*``) live with the web, in
`arena.web.hookspecs`; a plugin implements them with the same `hookimpl`, and every
`arena.registry.Registry` knows both modules (`arena.registry.HOOKSPECS`). The layers
are written down as import-linter contracts in ``pyproject.toml``
(``[tool.importlinter]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from arena.bots import BotFactory
    from arena.game import Game
    from arena.record import LogFormat

hookspec = pluggy.HookspecMarker("arena")
hookimpl = pluggy.HookimplMarker("arena")

# -- registration -------------------------------------------------------------------


@hookspec
def arena_games() -> list[type[Game[object, object]]]:  # type: ignore[empty-body]
    """Return the game classes this plugin provides.

    Called once when the registry loads. Each class must set `type` (a `GameType`) with
    a name no other plugin uses.
    """


@hookspec
def arena_bots() -> list[BotFactory]:  # type: ignore[empty-body]
    """Return the bot factories this plugin provides.

    Called once when the registry loads. Each factory names the game it plays; the pair
    (game, bot name) must be unique across plugins.
    """


@hookspec
def arena_solvers() -> dict[str, str]:  # type: ignore[empty-body]
    """Return exact solvers as ``{game name: "module.path:command"}``.

    Each names a click command that becomes ``arena solve NAME``; the module is
    imported only when that command runs, so a heavy solver costs nothing elsewhere.
    """


# -- logs ----------------------------------------------------------------------------


@hookspec
def arena_log_formats() -> list[LogFormat]:  # type: ignore[empty-body]
    """Return readers of log formats besides the arena's JSON Lines.

    Called once when the registry loads. `arena validate`, the web viewer's uploads and
    every other reader of logs (`arena.validate.parse_log`) try each `LogFormat` whose
    `detect` accepts the text (the substitution game: the thesis program's text logs).
    """


# -- the command line ---------------------------------------------------------------


@hookspec
def arena_cli_commands() -> dict[str, str]:  # type: ignore[empty-body]
    """Return top-level commands as ``{name: "module.path:command"}``.

    Each names a click command that becomes ``arena NAME`` (``arena grammar``,
    ``arena compare-tiles``); the module is imported only when that command runs. A name
    the arena's own commands use is an error.
    """


@hookspec(firstresult=True)
def arena_cli_settings(game: str, options: Mapping[str, Any]) -> dict[str, Any] | None:
    """The settings of a game named on the command line without ``--settings``.

    Args:
        game: the game's name (``--game``).
        options: the command's options a game may read (``grammar``: a preset or a
            grammar file, ``moves``, ``bank_rule``; None or absent where the command
            has no such option) and ``default_moves``, the command's default length
            (a game of its own length may ignore it).

    Returns:
        The settings (checked by the game's `from_settings` afterwards), or ``None``
        when this plugin does not serve `game` (the game's defaults, ``{}``, are used).
        Raise `arena.errors.ArenaError` for options it refuses. Stops at first non-None
        result.
    """
