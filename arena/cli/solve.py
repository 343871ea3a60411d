"""`arena solve GAME ...`: exact solvers of the game plugins."""

from __future__ import annotations

import click

from arena.cli.lazy import LazyGroup

SOLVERS: dict[str, str] = {
    "sim": "arena.games.sim.cli:solve_sim",
    "heaps": "arena.games.heaps.cli:solve_heaps",
    "durak": "arena.games.durak.cli:solve_durak",
    "tiles": "arena.games.tiles.cli:solve_tiles",
}


@click.group(cls=LazyGroup, lazy_subcommands=SOLVERS)
def solve() -> None:
    """Solve a game exactly (perfect play values, counts, optimal moves)."""
