"""The plugin contract: hook specifications every arena plugin may implement.

Built-in games and bots register through these same hooks. A third-party package
adds its own by exposing a module with `@arena.hookimpl` functions under the
``arena.plugins`` entry-point group in its packaging metadata::

    [project.entry-points."arena.plugins"]
    mybots = "mypackage.arena_plugin"
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from arena.bots import BotFactory
    from arena.game import Game

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
