"""`arena solve sim`: the value of Sim on K_n with perfect play, and game counts."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from arena.games.sim.rules import MAX_VERTICES, MIN_VERTICES


@click.command("sim")
@click.option(
    "--vertices", "-n", type=click.IntRange(MIN_VERTICES, MAX_VERTICES), default=6,
    show_default=True, help="Number of vertices of the complete graph.",
)
@click.option("--count-sequences", is_flag=True, help="Also count every complete game by length.")
@click.option("--no-symmetry", is_flag=True, help="Do not merge positions equal up to relabelling.")
@click.option(
    "--max-memory", type=click.FloatRange(min=0.001), default=8.0, show_default=True,
    help="GB the game count's table may use; past it the count stops with an error.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve_sim(
    vertices: int, count_sequences: bool, no_symmetry: bool, max_memory: float, as_json: bool
) -> None:
    """Solve Sim on K_N: who wins with perfect play, and at what cost."""
    from arena.games.sim.solver import CountMemoryExceeded, SimSolver

    solver = SimSolver(vertices, symmetry=not no_symmetry)
    solution = solver.solve()
    report: dict[str, Any] = {"game": "sim", **solution.to_json()}
    if count_sequences:
        started = time.perf_counter()

        def progress(positions: int, table_bytes: int) -> None:
            print(
                f"counting games: {positions} positions, {table_bytes / 1e9:.2f} GB, "
                f"{time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )

        try:
            counted = solver.count_sequences(
                max_bytes=int(max_memory * 1e9), progress=progress
            )
        except CountMemoryExceeded as error:
            raise click.ClickException(f"{error}; raise --max-memory to go on") from error
        report["sequences"] = counted.to_json()
    if as_json:
        click.echo(json.dumps(report))
        return
    click.echo(
        f"Sim on K{vertices}: {solution.value} "
        f"({solution.positions} positions, {solution.seconds:.3f} s)"
    )
    if count_sequences:
        seq = report["sequences"]
        click.echo(
            f"{seq['total']} complete games, {seq['draws']} draws "
            f"({seq['positions']} positions, {seq['seconds']:.3f} s)"
        )
        for length, number in seq["by_length"].items():
            click.echo(f"  {length:>3} moves: {number}")
