"""`arena match A B`: two bots play game pairs, optionally until a pentanomial SPRT decides."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from arena.cli.tournament import (
    bot_names,
    executor_options,
    game_options,
    game_settings,
    progress_enabled,
)
from arena.errors import ArenaError
from arena.registry import default_registry
from arena.tournament.matchup import MatchResult


@click.command()
@click.argument("first")
@click.argument("second")
@game_options
@click.option("--games", default=100, show_default=True, type=click.IntRange(1, 10_000_000),
              help="Pairs of dice without --sprt (each played in both seat orders).")
@click.option("--sprt", "sprt_text", default=None, metavar="elo0=E0,elo1=E1,alpha=A,beta=B",
              help="Play pairs until the pentanomial generalised SPRT of H0 'A is E0 Elo "
                   "stronger' against H1 'E1 Elo' decides, e.g. "
                   "elo0=0,elo1=10,alpha=0.05,beta=0.05 (model=normalized for nElo bounds).")
@click.option("--max-games", default=None, type=click.IntRange(2, 10**12),
              help="With --sprt: stop undecided after this many games.")
@executor_options
def match(first: str, second: str, game_name: str, settings_json: str | None,
          grammar_spec: str, moves: int | None, bank_rule: str | None, seed: int,
          out: Path | None, json_path: Path | None, games: int, sprt_text: str | None, max_games: int | None, jobs: int,
          cluster: str | None, quiet: bool) -> None:
    """Bot FIRST against bot SECOND: Elo, nElo and LOS from seat-swapped game pairs on
    the same dice, and with --sprt a decision (H0, H1) as early as the data allow.

    The JSON report (--json FILE, --out DIR/match.json) has pentanomial, llr,
    lower_bound, upper_bound, decision, elo, elo_ci and more.
    """
    from arena.tournament.executors import make_executor
    from arena.tournament.matchup import MatchSpec, run_match
    from arena.tournament.stats import SPRT

    registry = default_registry()
    settings = game_settings(registry, game_name, settings_json, grammar_spec, moves, bank_rule)
    bots = []
    for text in (first, second):
        names = bot_names(registry, game_name, text)
        if len(names) != 1:
            raise click.UsageError(f"{text!r} is {len(names)} bot specs; a match takes one each")
        bots.append(names[0])
    sprt = None
    if sprt_text is not None:
        try:
            sprt = SPRT.parse(sprt_text)
        except ValueError as error:
            raise click.UsageError(f"--sprt: {error}") from None
    elif max_games is not None:
        raise click.UsageError("--max-games is for --sprt (without it, --games sets the length)")
    spec = MatchSpec(game_name, settings, (bots[0], bots[1]), seed, games, sprt, max_games)
    try:
        executor = make_executor(jobs or None, cluster)
    except ArenaError as error:
        raise click.ClickException(str(error)) from None
    started = time.perf_counter()
    try:
        with executor, live_status(enabled=not quiet) as show:
            result = run_match(spec, out=out, executor=executor, progress=show)
    except ArenaError as error:
        raise click.ClickException(str(error)) from None
    elapsed = time.perf_counter() - started
    click.echo(f"{bots[0]} vs {bots[1]}: {result.status()}")
    e = result.estimate()
    if e is not None:
        click.echo(f"nElo {e.nelo_text()} · LOS {100 * e.los:.1f}% · score {e.score:.3f}")
    if sprt is not None:
        verdict = {"H1": f"H1 accepted: the results favour {sprt.elo1:+g} Elo for {bots[0]} "
                         f"over {sprt.elo0:+g}",
                   "H0": f"H0 accepted: the results favour {sprt.elo0:+g} Elo for {bots[0]} "
                         f"over {sprt.elo1:+g}"}
        click.echo(verdict.get(result.decision or "", "no decision (the game limit came first)"))
    click.echo(f"{2 * result.pairs} games counted in {elapsed:.1f} s on {executor.describe()}")
    if json_path is not None:
        json_path.write_text(json.dumps(result.to_json(), indent=1) + "\n", encoding="utf-8")


@contextmanager
def live_status(enabled: bool) -> Iterator[Callable[[MatchResult], None]]:
    """Yields ``show(result)``: a live line on a terminal, else a line a second on stderr."""
    if not enabled:
        yield lambda result: None
        return
    if progress_enabled(False):
        from rich.live import Live

        with Live("", refresh_per_second=4, transient=True) as live:
            yield lambda result: live.update(result.status())
        return
    last = 0.0

    def show(result: MatchResult) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= 1.0 or result.decision is not None:
            last = now
            print(result.status(), file=sys.stderr, flush=True)

    yield show
