"""`arena solve tiles`: exact solo play (expected turns, policy) and the race."""

from __future__ import annotations

import json
import time
from typing import Any

import click

from arena.games.tiles.rules import MAX_TILES, ROLLS, tiles_of

__all__ = ["solve_tiles"]


@click.command("tiles")
@click.option("--tiles", type=click.IntRange(1, MAX_TILES), default=12, show_default=True)
@click.option(
    "--voluntary-skip/--no-voluntary-skip", default=False, show_default=True,
    help="Allow passing when a move exists (the seed's rules do not: the default).",
)
@click.option(
    "--race", is_flag=True, help="Solve the two-player race: the first player's winning chance."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (with the whole policy).")
def solve_tiles(tiles: int, voluntary_skip: bool, race: bool, as_json: bool) -> None:
    """Solve the dice-tile game exactly (solo: fewest expected turns)."""
    voluntary = voluntary_skip
    started = time.perf_counter()
    if race:
        from arena.games.tiles.race import race_table

        table = race_table(tiles, voluntary)
        report: dict[str, Any] = {
            "tiles": tiles,
            "voluntary_skip": voluntary,
            "first_player_wins": table.first_player,
            "seconds": round(time.perf_counter() - started, 3),
        }
        if as_json:
            click.echo(json.dumps(report))
        else:
            click.echo(
                f"{tiles} tiles, perfect race play: the first player wins with "
                f"probability {table.first_player:.6f} ({report['seconds']} s)"
            )
        return
    from arena.games.tiles.expected import solo_table

    solo = solo_table(tiles, voluntary)
    full = (1 << tiles) - 1
    if not as_json:
        click.echo(f"{tiles} tiles, optimal solo play: {solo.full:.6f} expected turns")
        click.echo("first turn, optimal choice per roll:")
        for (x, y), _ in ROLLS:
            click.echo(f"  {x}-{y}: {solo.best_choice(full, (x, y)).value}")
        return
    policy = {
        ",".join(map(str, tiles_of(board))): {
            f"{x}-{y}": solo.best_choice(board, (x, y)).value for (x, y), _ in ROLLS
        }
        for board in range(1, full + 1)
    }
    click.echo(
        json.dumps(
            {
                "tiles": tiles,
                "voluntary_skip": voluntary,
                "expected_turns": solo.full,
                "expected": {
                    ",".join(map(str, tiles_of(board))): solo.expected[board]
                    for board in range(1, full + 1)
                },
                "policy": policy,
                "seconds": round(time.perf_counter() - started, 3),
            }
        )
    )
