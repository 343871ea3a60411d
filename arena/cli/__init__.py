"""The `arena` command line: one entry point, one module per subcommand (``arena
experiment``'s is in a layer of its own, `arena.experiments.cli`, named here only by its
path); the plugins add their own (`arena.hookspecs.arena_cli_commands`: ``arena play``
and ``arena grammar`` of the substitution game, ``arena compare-tiles`` of the tile
bots)."""

from __future__ import annotations

from typing import Any

import click

from arena.cli.lazy import LazyGroup, load_command
from arena.speech import CONTEXT_KEY, LANGUAGES, environment_language

SUBCOMMANDS = {
    "validate": "arena.cli.validate:validate",
    "bots": "arena.cli.bots:bots",
    "solve": "arena.cli.solve:solve",
    "compare": "arena.cli.compare:compare",
    "serve": "arena.cli.serve:serve",
    "connect": "arena.cli.connect:connect",
    "schema": "arena.cli.schema:schema",
    "bot": "arena.cli.bot_check:bot",
    "tournament": "arena.cli.tournament:tournament",
    "match": "arena.cli.match:match",
    "db": "arena.cli.db:db",
    "users": "arena.cli.users:users",
    "cluster": "arena.cli.cluster:cluster",
    "experiment": "arena.experiments.cli:experiment",
}




class ArenaGroup(LazyGroup):
    """The arena's own commands and, looked up only when a name is not one of them, the
    commands of the installed plugins."""

    def _plugin_commands(self) -> dict[str, str]:
        from arena.errors import PluginError
        from arena.registry import default_registry

        commands = default_registry().cli_commands
        clash = sorted(set(commands) & set(SUBCOMMANDS))
        if clash:
            raise PluginError(f"a plugin provides the arena's own command {clash[0]!r}")
        return commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._plugin_commands()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> Any:
        if cmd_name in self.lazy_subcommands:
            return super().get_command(ctx, cmd_name)
        target = self._plugin_commands().get(cmd_name)
        return None if target is None else load_command(target)


@click.group(cls=ArenaGroup, lazy_subcommands=SUBCOMMANDS)
@click.version_option(package_name="arena")
@click.option("--lang", type=click.Choice(sorted(LANGUAGES)), default=None,
              help="The language the arena's errors are said in to a person (a log's or "
                   "settings' reason): en or ru; default: the environment's, read as gettext "
                   "does (LANGUAGE, LC_ALL, LC_MESSAGES, LANG).")
@click.pass_context
def main(ctx: click.Context, lang: str | None) -> None:
    """The arena: strict referee, bots, tournaments and logs for turn-based games."""
    ctx.meta[CONTEXT_KEY] = lang or environment_language()
