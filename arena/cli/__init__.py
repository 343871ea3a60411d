"""The `arena` command line: one entry point, one module per subcommand."""

from __future__ import annotations

import click

from arena.cli.lazy import LazyGroup

SUBCOMMANDS = {
    "play": "arena.cli.play:play",
    "validate": "arena.cli.validate:validate",
    "bots": "arena.cli.bots:bots",
    "grammar": "arena.cli.grammar:grammar",
    "solve": "arena.cli.solve:solve",
    "compare": "arena.cli.compare:compare",
    "compare-tiles": "arena.games.tiles.compare:compare_tiles",
    "serve": "arena.cli.serve:serve",
    "connect": "arena.cli.connect:connect",
    "schema": "arena.cli.schema:schema",
    "bot": "arena.cli.bot_check:bot",
    "tournament": "arena.cli.tournament:tournament",
    "match": "arena.cli.match:match",
    "experiment": "arena.cli.experiment:experiment",
}


@click.group(cls=LazyGroup, lazy_subcommands=SUBCOMMANDS)
@click.version_option(package_name="arena")
def main() -> None:
    """The arena: strict referee, bots, tournaments and logs for turn-based games."""
