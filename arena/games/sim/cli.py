"""`arena solve sim`: the value of Sim on K_n with perfect play, and game counts."""

from __future__ import annotations

import json
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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve_sim(vertices: int, count_sequences: bool, no_symmetry: bool, as_json: bool) -> None:
    """Solve Sim on K_N: who wins with perfect play, and at what cost."""
    from arena.games.sim.solver import SimSolver

    solver = SimSolver(vertices, symmetry=not no_symmetry)
    solution = solver.solve()
    report: dict[str, Any] = {"game": "sim", **solution.to_json()}
    if count_sequences:
        report["sequences"] = solver.count_sequences().to_json()
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
