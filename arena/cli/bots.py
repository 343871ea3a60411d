"""`arena bots`: list every bot of every installed game plugin with its parameters."""

from __future__ import annotations

import click

from arena.registry import default_registry


@click.group(invoke_without_command=True)
@click.option("--game", default=None, help="Only the bots of this game.")
@click.pass_context
def bots(ctx: click.Context, game: str | None) -> None:
    """List the bots and their parameters."""
    if ctx.invoked_subcommand is not None:
        return
    registry = default_registry()
    for game_name in sorted(registry.games):
        if game is not None and game_name != game:
            continue
        click.echo(f"{game_name}:")
        for factory in registry.bot_factories(game_name):
            click.echo(f"  {factory.name:24s} {factory.description}")
            for param in factory.params:
                limits = ""
                if param.choices:
                    limits = f" one of {', '.join(param.choices)};"
                elif param.minimum is not None or param.maximum is not None:
                    low = "" if param.minimum is None else f"{param.minimum:g}"
                    high = "" if param.maximum is None else f"{param.maximum:g}"
                    limits = f" range {low}..{high};"
                click.echo(f"      {param.name}={param.format(param.default)}  ({param.kind};{limits} {param.doc})")
            for preset, values in factory.presets.items():
                shown = ",".join(f"{k}={factory.param(k).format(v)}" for k, v in values.items())
                click.echo(f"      preset {factory.name}:{preset}  = {shown}")
