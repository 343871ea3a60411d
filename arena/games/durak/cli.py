"""`arena solve durak`: solve a deal exactly, with a persistent table of solutions."""

from __future__ import annotations

import json
import time
from typing import Any

import click

from arena.errors import SettingsError
from arena.games.durak.rules import DurakSettings, parse_weights

__all__ = ["solve_durak"]


@click.command("durak")
@click.option(
    "--cards",
    help="The deal as a 0/1 string: character i owns card i + 1; '.' marks a played card.",
)
@click.option("--weights", help="Comma-separated integer weights, one per card.")
@click.option("--draw-rule", is_flag=True, help="D-Durak: running out together is a draw.")
@click.option(
    "--first",
    type=click.IntRange(0, 1),
    default=0,
    show_default=True,
    help="The player who lays the first card.",
)
@click.option(
    "--db",
    "db_path",
    default="durak.sqlite",
    show_default=True,
    help="SQLite file of solved positions (created if missing).",
)
@click.option("--no-db", is_flag=True, help="Do not read or write the solution table.")
@click.option(
    "--precompute",
    type=click.IntRange(1, 24),
    default=None,
    metavar="N",
    help="Store every unweighted position of up to N cards, then exit.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def solve_durak(
    cards: str | None,
    weights: str | None,
    draw_rule: bool,
    first: int,
    db_path: str,
    no_db: bool,
    precompute: int | None,
    as_json: bool,
) -> None:
    """Solve single-suit Durak: winner, score, optimal and tricky moves, every reply."""
    from arena.games.durak.solver import DurakSolver, Position
    from arena.games.durak.store import SolutionStore, all_positions

    store = None if no_db else SolutionStore(db_path)
    solver = DurakSolver(store)
    if precompute is not None:
        if store is None:
            raise click.UsageError("--precompute needs a database (drop --no-db)")
        started = time.perf_counter()
        store.autocommit = False
        for size in range(2, precompute + 1):
            for position in all_positions(size, draw_rule):
                solver.solve(position)
            store.commit()
        click.echo(
            f"{store.count()} solutions in {db_path} ({time.perf_counter() - started:.1f} s)"
        )
        return
    if cards is None:
        raise click.UsageError("give --cards (the deal) or --precompute N")
    cards = cards.strip()
    try:
        # A mid-game position may mark played cards with '.', as the seed writes them
        # (0.1.0); settings validate the cards in play, '.' read as a stand-in owner.
        in_play = cards.replace(".", "")
        if "." in cards and ("0" not in in_play or "1" not in in_play):
            raise SettingsError(f"cards {cards!r}: each player needs a card in play")
        settings = DurakSettings(
            cards.replace(".", "0" if "0" in in_play else "1"),
            parse_weights(weights) if weights else None,
            draw_rule,
            first,
        )
    except SettingsError as error:
        raise click.BadParameter(str(error)) from None
    played = {i + 1 for i, owner in enumerate(cards) if owner == "."}
    position, numbers = Position.from_hands(
        settings.hand(first) - played,
        settings.hand(1 - first) - played,
        settings.weights,
        draw_rule,
    )
    started = time.perf_counter()
    cached = store is not None and store.get(position) is not None
    solution = solver.solve(position)
    seconds = time.perf_counter() - started
    report: dict[str, Any] = {
        "cards": cards,
        "weights": list(settings.weights) if settings.weights else None,
        "draw_rule": draw_rule,
        "first": first,
        **solution.to_json(numbers),
        "seconds": round(seconds, 6),
        "from_db": cached,
    }
    winner = report["winner"]
    report["winner"] = None if winner == "draw" else (first if winner == "mover" else 1 - first)
    if store is not None:
        store.close()
    if as_json:
        click.echo(json.dumps(report))
        return
    _print_report(report)


def _print_report(report: dict[str, Any]) -> None:
    winner = report["winner"]
    who = "draw" if winner is None else f"player {winner} wins"
    click.echo(
        f"deal {report['cards']}, player {report['first']} lays first: "
        f"{who}, score {report['score']}"
    )
    click.echo(f"optimal moves: {', '.join(map(str, report['optimal_moves']))}")
    click.echo(f"catch-take: {report['catch_take']}   catch-pass: {report['catch_pass']}")
    for card, info in report["replies"].items():
        click.echo(
            f"  lay {card}: best reply {' / '.join(info['best'])} "
            f"(payoff to the layer {info['payoff']})"
        )
    source = "table" if report["from_db"] else "search"
    click.echo(f"({report['seconds']:.4f} s, from the {source})")
