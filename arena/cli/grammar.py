"""`arena grammar`: check, show and convert grammars."""

from __future__ import annotations

from pathlib import Path

import click

from arena.errors import ArenaError
from arena.games.substitution import PRESETS, Settings, load_grammar


@click.group()
def grammar() -> None:
    """Check, show and convert grammars (text format and the thesis's XML)."""


@grammar.command("list")
def list_presets() -> None:
    """The built-in grammars."""
    for name, (groups, description) in PRESETS.items():
        click.echo(f"{name:12s} {description}")
        click.echo(f"{'':12s} {'; '.join(groups)}")


@grammar.command("check")
@click.argument("spec")
def check(spec: str) -> None:
    """Check a grammar file (or preset); print it, or the error with its line number."""
    try:
        loaded = load_grammar(spec)
    except ArenaError as error:
        click.echo(f"{spec}: {error}", err=True)
        raise SystemExit(1) from None
    for index, (group, weight) in enumerate(zip(loaded.groups, loaded.weights, strict=True)):
        click.echo(f"{index:3d}  {group}  (weight {weight}/{loaded.total_weight})")


@grammar.command("convert")
@click.argument("spec")
@click.option("--to", "target", type=click.Choice(["text", "xml"]), required=True)
@click.option("--moves", default=200, show_default=True, type=click.IntRange(1, 100_000),
              help="NumberOfMoves written into the XML.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
def convert(spec: str, target: str, moves: int, out: Path | None) -> None:
    """Convert a grammar between the text format and the thesis's XML settings."""
    try:
        loaded = load_grammar(spec)
        text = loaded.to_text() if target == "text" else Settings(loaded, moves).to_xml() + "\n"
    except ArenaError as error:
        click.echo(f"{spec}: {error}", err=True)
        raise SystemExit(1) from None
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
