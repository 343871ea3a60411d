"""The plugin registry: games and bots from built-in modules and installed packages.

Built-in plugins are registered exactly like third-party ones (they implement the
hooks in `arena.hookspecs` and the web's in `arena.web.hookspecs`); installed packages
are found through the ``arena.plugins`` entry-point group.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Mapping
from typing import Any

import pluggy

from arena.bots import (
    EXEC_PREFIX,
    HOSTED_PREFIX,
    Bot,
    BotFactory,
    BotSpec,
    parse_bot_list,
    parse_bot_spec,
)
from arena.errors import BotSpecError, PluginError, SettingsError
from arena.game import Game
from arena.record import LogFormat

__all__ = ["BUILTIN_PLUGINS", "ENTRY_POINT_GROUP", "HOOKSPECS", "Registry", "default_registry"]

ENTRY_POINT_GROUP = "arena.plugins"

HOOKSPECS: tuple[str, ...] = ("arena.hookspecs", "arena.web.hookspecs")
"""Modules of the hook specifications: the core's, and the web's, which live with the
web. Named, not imported, as the built-in plugins are: the registry is below the web and
the server (import-linter), and the web's module imports nothing but pluggy at run time."""

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
    """Every game, bot, solver, log format and command the installed plugins provide.

    Args:
        plugins: modules of plugins to register first (by default the built-in ones).
        entry_points: also load the installed packages' plugins (the ``arena.plugins``
            entry-point group).

    Raises:
        PluginError: a plugin module cannot be imported, implements a hook that has no
            specification, or provides a name another plugin provides already.

    Example:
        >>> registry = Registry(["arena.games.sim.plugin", "bots.sim.plugin"],
        ...                     entry_points=False)
        >>> sorted(registry.games)
        ['sim']
        >>> game = registry.load_game("sim", {"vertices": 6})
        >>> registry.make_bot(game, "sim-random").__class__.__name__
        'RandomBot'
    """

    def __init__(
        self, plugins: Iterable[str] = BUILTIN_PLUGINS, *, entry_points: bool = True
    ) -> None:
        self.plugins = tuple(plugins)
        """The plugin modules registered, in order (a worker process rebuilds the same
        registry from them and `entry_points`)."""
        self.entry_points = entry_points
        self.manager = pluggy.PluginManager("arena")
        for spec_module in HOOKSPECS:
            self.manager.add_hookspecs(importlib.import_module(spec_module))
        for module_name in self.plugins:
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
        self.solvers: dict[str, str] = _merge(self.manager.hook.arena_solvers(), "solver")
        """``arena solve`` subcommands: game name -> ``"module:click command"``."""
        self.log_formats: list[LogFormat] = [
            log_format for formats in self.manager.hook.arena_log_formats() for log_format in formats]
        """Log formats besides JSON Lines (`arena.validate.parse_log` tries each)."""
        self.cli_commands: dict[str, str] = _merge(self.manager.hook.arena_cli_commands(),
                                                   "command")
        """Top-level ``arena`` commands of the plugins: name -> ``"module:click command"``."""

    # -- games --------------------------------------------------------------------------

    def game_class(self, name: str) -> type[Game[Any, Any]]:
        """The class of game `name`.

        Raises:
            SettingsError: no plugin provides a game of that name (the message lists
                the games there are).
        """
        try:
            return self.games[name]
        except KeyError:
            known = ", ".join(sorted(self.games))
            raise SettingsError(f"unknown game {name!r} (games: {known})") from None

    def load_game(self, name: str, settings: Mapping[str, Any]) -> Game[Any, Any]:
        """Game `name` bound to `settings` (JSON-like, as logs and the wire carry them).

        Raises:
            SettingsError: an unknown game, or settings its `Game.from_settings` refuses.
        """
        return self.game_class(name).from_settings(settings)

    # -- the command line and the web interface ------------------------------------------

    def cli_settings(self, game: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """The settings of `game` from command-line options of its own
        (`arena.hookspecs.arena_cli_settings`); ``{}`` if no plugin reads them.

        Raises:
            ArenaError: options the game's plugin refuses (a grammar that does not read).
        """
        result: dict[str, Any] | None = self.manager.hook.arena_cli_settings(
            game=game, options=options)
        return {} if result is None else result

    # -- the web interface ------------------------------------------------------------

    def web_endpoints(self) -> list[Any]:
        """The plugins' own HTTP endpoints (`arena.web.routes.Endpoint`)."""
        return [endpoint for endpoints in self.manager.hook.arena_web_endpoints()
                for endpoint in endpoints]

    def web_settings(self, game: str, request: Mapping[str, Any],
                     presets: Mapping[str, str]) -> dict[str, Any] | None:
        """The settings a plugin makes of a web request's own fields for `game`
        (`arena.web.hookspecs.arena_web_settings`); None if no plugin does."""
        result: dict[str, Any] | None = self.manager.hook.arena_web_settings(
            game=game, request=request, presets=presets)
        return result

    def web_partial_move(self, game: Game[Any, Any], state: Any, steps: str) -> Any:
        """What a plugin says of a move being built in steps
        (`arena.web.hookspecs.arena_web_partial_move`); None if no plugin builds them."""
        return self.manager.hook.arena_web_partial_move(game=game, state=state, steps=steps)

    # -- bots ---------------------------------------------------------------------------

    def bot_factories(self, game: str) -> list[BotFactory]:
        """The bots that play `game`, by name (``exec`` not included)."""
        return [f for (g, _), f in sorted(self.bots.items()) if g == game]

    def bot_factory(self, game: str, name: str) -> BotFactory:
        """The factory of bot `name` for `game`; ``exec`` (``exec:COMMAND``, a program
        through the line protocol) and ``hosted`` (``hosted:DIR``, a built bot in its
        sandbox) work for every game and are not listed."""
        if name == EXEC_PREFIX[:-1]:
            from arena.exec_bot import exec_factory

            return exec_factory(game)
        if name == HOSTED_PREFIX[:-1]:
            from arena.sandbox.hosted import hosted_factory

            return hosted_factory(game)
        try:
            return self.bots[(game, name)]
        except KeyError:
            known = ", ".join(f.name for f in self.bot_factories(game))
            title = self.game_class(game).type.title if game in self.games else game
            raise BotSpecError(f"unknown {game} bot {name!r} (bots: {known})",
                               code="unknown-house-bot",
                               params={"game": game, "title": title, "bot": name[:60],
                                       "known": known}) from None

    def parse_bots(self, game: str, text: str) -> list[BotSpec]:
        """Bot specs from a comma-separated list (``random,greedy:depth=2``), each
        checked against its factory's parameters.

        Raises:
            BotSpecError: a spec that does not parse, names no bot of `game`, or gives
                a parameter the bot does not take.
        """
        specs = parse_bot_list(text, [f.name for f in self.bot_factories(game)])
        for spec in specs:
            spec.resolve(self.bot_factory(game, spec.name))
        return specs

    def make_bot(self, game: Game[Any, Any], spec: BotSpec | str, *,
                 allow_exec: bool = True) -> Bot:
        """A bot for `game` from a spec.

        Args:
            game: the game the bot plays (its settings included).
            spec: a `BotSpec`, or its text (``"sim-mc:trials=30"``).
            allow_exec: False refuses ``exec:COMMAND`` and ``hosted:DIR``: a server never
                runs a program or a build a client names (house bots).

        Returns:
            A fresh bot (its `prepare` hook not yet run).

        Raises:
            BotSpecError: an unknown bot, bad parameters, or ``exec`` where refused.
        """
        if isinstance(spec, str):
            spec = parse_bot_spec(spec)
        if not allow_exec and spec.name == EXEC_PREFIX[:-1]:
            raise BotSpecError("exec: bots run a local program; they cannot play as house bots",
                               code="program-not-house")
        if not allow_exec and spec.name == HOSTED_PREFIX[:-1]:
            raise BotSpecError("hosted: bots run a build named by a path; a server runs only "
                               "the builds it made itself", code="program-not-house")
        factory = self.bot_factory(game.type.name, spec.name)
        return factory.create(game, spec.resolve(factory))


def _merge(maps: Iterable[Mapping[str, str]], kind: str) -> dict[str, str]:
    """The plugins' ``{name: "module:command"}`` maps as one; a name given twice is a
    `PluginError`."""
    merged: dict[str, str] = {}
    for each in maps:
        for name, target in each.items():
            if name in merged:
                raise PluginError(f"two plugins provide a {kind} named {name!r}")
            merged[name] = target
    return merged


@functools.cache
def default_registry() -> Registry:
    """The registry of built-in and installed plugins, loaded once per process."""
    return Registry()
