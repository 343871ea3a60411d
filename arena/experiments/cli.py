"""`arena experiment`: re-run the thesis's experiments (section 6, appendix A)."""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.group()
def experiment() -> None:
    """Reproducible experiments."""


@experiment.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory for the report, figures, tables and game logs.")
@click.option("--games", default=500, show_default=True, type=click.IntRange(1, 1_000_000),
              help="Games per cell (per ordered pair).")
@click.option("--omega-games", default=None, type=click.IntRange(1, 1_000_000),
              help="Games per seat for each point of figure 9 (default: --games).")
@click.option("--appendix-games", default=None, type=click.IntRange(1, 1_000_000),
              help="Games per cell of tables A.1 and A.2 (default: --games).")
@click.option("--moves", default=200, show_default=True, type=click.IntRange(1, 100_000))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--report", "reports", multiple=True, type=click.Choice(["primary", "second"]),
              help="Which report(s): primary (classic, low-s), second (medium, low). Default both.")
@click.option("--rules", default="strict", show_default=True,
              type=click.Choice(["strict", "thesis-program"]),
              help="strict: the arena's strategies under the rules as written. thesis-program: "
                   "the thesis program's strategies as written under its bank rule, reported "
                   "side by side with the strict tables (played too, or reused).")
@click.option("--omegas", default="1-20", show_default=True,
              help="The Ω values of figure 9: a range (1-60), a list (1,5,10-20), a range "
                   "with a step (1-20,25-60/5).")
@click.option("--strict-from", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="With --rules thesis-program: a directory holding finished strict tables "
                   "(an earlier --out, or docs/experiments/data), reused where they match.")
@click.option("--jobs", default=0, type=int, help="Worker processes (default: every core).")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Play on a Ray cluster (ray://HOST:PORT, HOST:PORT or auto).")
@click.option("--no-logs", is_flag=True, help="Do not keep the games' logs.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
def thesis(out: Path, games: int, omega_games: int | None, appendix_games: int | None, moves: int, seed: int,
           reports: tuple[str, ...], rules: str, omegas: str, strict_from: Path | None, jobs: int,
           cluster: str | None, no_logs: bool, quiet: bool) -> None:
    """Tables 6.1, 6.2, 6.3, A.1, A.2 and figure 9, on both pairs of grammars.

    Finished tables are reused when the directory already holds them with the same
    settings, so an interrupted run continues where it stopped.
    """
    from arena.experiments.thesis import parse_omegas, run_thesis
    from arena.tournament.progress import progress_bar

    try:
        omega_values = parse_omegas(omegas)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--omegas") from None
    enabled = not quiet and sys.stderr.isatty()
    path = run_thesis(
        out, games=games, seed=seed, moves=moves, reports=reports or ("primary", "second"),
        processes=jobs or None, logs=not no_logs, omega_games=omega_games,
        appendix_games=appendix_games, rules=rules, omegas=omega_values, strict_from=strict_from,
        cluster=cluster,
        progress=lambda name: progress_bar(name, enabled),
    )
    click.echo(f"report written to {path}")
