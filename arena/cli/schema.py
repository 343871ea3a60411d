"""`arena schema`: the protocol's JSON Schema (2020-12), with one game's parts or all."""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena.errors import ArenaError


@click.command()
@click.option("--game", default=None, help="Fill in this game's settings, state, chance and "
                                           "move (default: generic parts, every game's under "
                                           "x-games).")
@click.option("--markdown", is_flag=True, help="With --game: the game's layouts as Markdown "
                                               "tables instead.")
@click.option("--docs", "docs_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Rewrite the '<!-- schema:NAME -->' blocks of this Markdown "
                                 "file from the schemas (docs/bots.md).")
def schema(game: str | None, markdown: bool, docs_path: Path | None) -> None:
    """Print the machine-readable contract (also served at GET /api/schema)."""
    from arena.registry import default_registry
    from arena.schema import contract, parts_markdown, update_docs

    registry = default_registry()
    try:
        if docs_path is not None:
            text = docs_path.read_text(encoding="utf-8")
            docs_path.write_text(update_docs(registry, text), encoding="utf-8")
            return
        if markdown:
            if game is None:
                raise click.UsageError("--markdown needs --game")
            click.echo(parts_markdown(registry, game))
            return
        click.echo(json.dumps(contract(registry, game), indent=1, ensure_ascii=False))
    except ArenaError as error:
        raise click.UsageError(str(error)) from None
