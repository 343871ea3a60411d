"""`arena solve sim`: the value of Sim on K_n (or any graph) with perfect play, and game counts."""

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
    show_default=True, help="Number of vertices of the graph.",
)
@click.option(
    "--edges", default=None,
    help="The graph as an edge list, '0-1 1-2 0-2 ...' (default: the complete graph K_N).",
)
@click.option("--count-sequences", is_flag=True, help="Also count every complete game by length.")
@click.option("--no-symmetry", is_flag=True, help="Do not merge positions equal up to relabelling.")
@click.option(
    "--max-memory", type=click.FloatRange(min=0.001), default=8.0, show_default=True,
    help="GB the game count's table may use; past it the count stops with an error.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve_sim(
    vertices: int, edges: str | None, count_sequences: bool, no_symmetry: bool,
    max_memory: float, as_json: bool,
) -> None:
    """Solve Sim on K_N or a graph: who wins with perfect play, and at what cost."""
    from arena.games.sim.rules import edge_mask
    from arena.games.sim.solver import CountMemoryExceeded, SimSolver

    graph = None
    if edges is not None:
        try:
            graph = edge_mask(vertices, parse_edges(edges))
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--edges") from None
    solver = SimSolver(vertices, graph=graph, symmetry=not no_symmetry)
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
    board = f"K{vertices}" if graph is None else (
        f"the graph on {vertices} vertices with {graph.bit_count()} edges")
    click.echo(
        f"Sim on {board}: {solution.value} "
        f"({solution.positions} positions, {solution.seconds:.3f} s"
        + ("" if solver.symmetry or no_symmetry else ", without symmetry: too many automorphisms")
        + ")"
    )
    if count_sequences:
        seq = report["sequences"]
        click.echo(
            f"{seq['total']} complete games, {seq['draws']} draws "
            f"({seq['positions']} positions, {seq['seconds']:.3f} s)"
        )
        for length, number in seq["by_length"].items():
            click.echo(f"  {length:>3} moves: {number}")


def parse_edges(text: str) -> list[list[int]]:
    """``"0-1 1-2, 2-3"`` -> ``[[0, 1], [1, 2], [2, 3]]`` (spaces, commas or semicolons)."""
    import re

    pairs = []
    for token in re.split(r"[\s,;]+", text.strip()):
        match = re.fullmatch(r"(\d{1,3})-(\d{1,3})", token)
        if match is None:
            raise ValueError(f"{token!r} is not an edge like 0-1")
        pairs.append([int(match[1]), int(match[2])])
    return pairs
