"""`arena compare-tiles`: the seed's three strategies over many solo games (a command of
the tile bots' plugin, `arena.hookspecs.arena_cli_commands`).

Every strategy plays the same seeds through the arena's own `play_match` (the same
dice come up for all of them on the same game number), and the distribution of the
number of turns is drawn as a histogram (PNG) with a JSON summary next to it.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from arena.bots import Bot
from arena.games.tiles.rules import MAX_TILES

__all__ = ["compare_tiles", "run_comparison"]

STRATEGIES = ("tiles-random", "tiles-probability", "tiles-zermelo")


def run_comparison(games: int, tiles: int, seed: int, voluntary_skip: bool) -> dict[str, list[int]]:
    """Turns needed per game and strategy."""
    from arena.games.tiles.game import TilesGame
    from arena.games.tiles.rules import TilesSettings
    from arena.match import play_match
    from bots.tiles import bots

    game = TilesGame(TilesSettings(tiles, 1, voluntary_skip))
    makers: dict[str, Callable[[], Bot]] = {
        "tiles-random": bots.RandomBot,
        "tiles-probability": bots.ProbabilityBot,
        "tiles-zermelo": bots.ZermeloBot,
    }
    turns: dict[str, list[int]] = {}
    for name in STRATEGIES:
        bot = makers[name]()
        results = []
        for number in range(games):
            match = play_match(game, [bot], seed=seed * 1_000_003 + number)
            assert match.outcome is not None and match.outcome.scores is not None
            results.append(int(match.outcome.scores[0]))
        turns[name] = results
    return turns


def summarise(turns: dict[str, list[int]]) -> dict[str, dict[str, float]]:
    summary = {}
    for name, values in turns.items():
        ordered = sorted(values)
        summary[name] = {
            "games": len(values),
            "mean": statistics.fmean(values),
            "stdev": statistics.pstdev(values),
            "median": statistics.median(values),
            "p90": ordered[int(0.9 * (len(ordered) - 1))],
            "max": ordered[-1],
        }
    return summary


def plot(turns: dict[str, list[int]], optimum: float, path: Path, tiles: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(9, 5))
    top = max(max(v) for v in turns.values())
    bins = range(0, min(top, 250) + 5, 5)
    for name, values in turns.items():
        axes.hist(
            values,
            bins=bins,
            histtype="step",
            linewidth=1.8,
            label=f"{name} (mean {statistics.fmean(values):.1f})",
        )
    axes.axvline(optimum, color="black", linestyle="--", label=f"optimal expectation {optimum:.2f}")
    axes.set_xlabel("turns to turn all tiles down")
    axes.set_ylabel("games")
    axes.set_title(f"Dice tiles, {tiles} tiles, solo: {len(next(iter(turns.values())))} games each")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


@click.command("compare-tiles")
@click.option("--games", type=click.IntRange(1, 1_000_000), default=2000, show_default=True)
@click.option("--tiles", type=click.IntRange(1, MAX_TILES), default=12, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--voluntary-skip/--no-voluntary-skip", default=False, show_default=True,
              help="Allow passing when a move exists (the seed's rules do not: the default).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=".", show_default=True)
def compare_tiles(games: int, tiles: int, seed: int, voluntary_skip: bool, out_dir: str) -> None:
    """Compare the seed's three tile strategies; write a histogram and a summary."""
    from arena.games.tiles.expected import solo_table

    voluntary = voluntary_skip
    turns = run_comparison(games, tiles, seed, voluntary)
    summary = summarise(turns)
    optimum = solo_table(tiles, voluntary).full
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plot(turns, optimum, out / "tiles-turns.png", tiles)
    report: dict[str, Any] = {
        "tiles": tiles,
        "voluntary_skip": voluntary,
        "optimal_expected_turns": optimum,
        "strategies": summary,
    }
    (out / "tiles-compare.json").write_text(json.dumps(report, indent=2) + "\n")
    click.echo(f"{'strategy':20} {'mean':>8} {'stdev':>8} {'median':>7} {'p90':>5} {'max':>5}")
    for name, row in summary.items():
        click.echo(
            f"{name:20} {row['mean']:8.2f} {row['stdev']:8.2f} {row['median']:7.1f} "
            f"{row['p90']:5d} {row['max']:5d}"
        )
    click.echo(f"optimal expectation {optimum:.3f}; plot: {out / 'tiles-turns.png'}")
