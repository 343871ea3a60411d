"""The plugin registry: games and bots from built-in modules and installed packages.

Built-in plugins are registered exactly like third-party ones (they implement the
hooks in `arena.hookspecs`); installed packages are found through the
``arena.plugins`` entry-point group.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Mapping
from typing import Any

import pluggy

from arena import hookspecs
from arena.bots import EXEC_PREFIX, Bot, BotFactory, BotSpec, parse_bot_list, parse_bot_spec
from arena.errors import BotSpecError, PluginError, SettingsError
from arena.game import Game

__all__ = ["BUILTIN_PLUGINS", "ENTRY_POINT_GROUP", "Registry", "default_registry"]

ENTRY_POINT_GROUP = "arena.plugins"

BUILTIN_PLUGINS: tuple[str, ...] = (
    "arena.games.substitution.plugin",
    "bots.substitution.plugin",
    "arena.games.sim.plugin",
    "bots.sim.plugin",
    "arena.games.heaps.plugin",
    "bots.heaps.plugin",
    "arena.games.durak.plugin",
    "bots.durak.plugin",
    "arena.games.tiles.plugin",
    "bots.tiles.plugin",
)
"""Modules of the built-in plugins, registered before installed ones."""


class Registry:
    """Every game and bot the installed plugins provide."""

    def __init__(
        self, plugins: Iterable[str] = BUILTIN_PLUGINS, *, entry_points: bool = True
    ) -> None:
        self.manager = pluggy.PluginManager("arena")
        self.manager.add_hookspecs(hookspecs)
        for module_name in plugins:
            try:
                module = importlib.import_module(module_name)
            except ImportError as error:
                raise PluginError(f"cannot load the plugin module {module_name!r}: {error}") from error
            self.manager.register(module, name=module_name)
        if entry_points:
            self.manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        self.manager.check_pending()
        self.games: dict[str, type[Game[Any, Any]]] = {}
        for game_list in self.manager.hook.arena_games():
            for game_class in game_list:
                name = game_class.type.name
                if name in self.games:
                    raise PluginError(f"two plugins provide a game named {name!r}")
                self.games[name] = game_class
        self.bots: dict[tuple[str, str], BotFactory] = {}
        for factory_list in self.manager.hook.arena_bots():
            for factory in factory_list:
                key = (factory.game, factory.name)
                if key in self.bots:
                    raise PluginError(f"two plugins provide a {factory.game} bot {factory.name!r}")
                self.bots[key] = factory
        self.solvers: dict[str, str] = {}
        """``arena solve`` subcommands: game name -> ``"module:click command"``."""
        for solver_map in self.manager.hook.arena_solvers():
            for name, target in solver_map.items():
                if name in self.solvers:
                    raise PluginError(f"two plugins provide a solver named {name!r}")
                self.solvers[name] = target

    # -- games --------------------------------------------------------------------------

    def game_class(self, name: str) -> type[Game[Any, Any]]:
        try:
            return self.games[name]
        except KeyError:
            known = ", ".join(sorted(self.games))
            raise SettingsError(f"unknown game {name!r} (games: {known})") from None

    def load_game(self, name: str, settings: Mapping[str, Any]) -> Game[Any, Any]:
        return self.game_class(name).from_settings(settings)

    # -- bots ---------------------------------------------------------------------------

    def bot_factories(self, game: str) -> list[BotFactory]:
        return [f for (g, _), f in sorted(self.bots.items()) if g == game]

    def bot_factory(self, game: str, name: str) -> BotFactory:
        """The factory of bot `name` for `game`; ``exec`` (``exec:COMMAND``, a program
        through the line protocol) works for every game and is not listed."""
        if name == EXEC_PREFIX[:-1]:
            from arena.exec_bot import exec_factory

            return exec_factory(game)
        try:
            return self.bots[(game, name)]
        except KeyError:
            known = ", ".join(f.name for f in self.bot_factories(game))
            raise BotSpecError(f"unknown {game} bot {name!r} (bots: {known})") from None

    def parse_bots(self, game: str, text: str) -> list[BotSpec]:
        specs = parse_bot_list(text, [f.name for f in self.bot_factories(game)])
        for spec in specs:
            spec.resolve(self.bot_factory(game, spec.name))
        return specs

    def make_bot(self, game: Game[Any, Any], spec: BotSpec | str, *,
                 allow_exec: bool = True) -> Bot:
        """A bot for `game` from a spec. `allow_exec` False refuses ``exec:COMMAND``: a
        server never runs a program a client names (house bots)."""
        if isinstance(spec, str):
            spec = parse_bot_spec(spec)
        if not allow_exec and spec.name == EXEC_PREFIX[:-1]:
            raise BotSpecError("exec: bots run a local program; they cannot play as house bots")
        factory = self.bot_factory(game.type.name, spec.name)
        return factory.create(game, spec.resolve(factory))


@functools.cache
def default_registry() -> Registry:
    """The registry of built-in and installed plugins, loaded once per process."""
    return Registry()
