"""`arena compare`: two bots play each other many times, in both seats (the seed's
`sim_compare`, for any two-player game in the registry).

Extra options become game settings: ``arena compare --game sim --bots sim-mc,sim-random
--games 100 --vertices 6 --seed 1`` plays Sim with ``{"vertices": 6}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import click

from arena.errors import ArenaError, SettingsError
from arena.registry import Registry

__all__ = ["CompareResult", "compare", "compare_bots", "parse_extra_settings"]


@dataclass
class CompareResult:
    """Results of `first` (bot A) against bot B, per seat A took."""

    bots: tuple[str, str]
    games: int
    # seat of A -> {"wins": .., "draws": .., "losses": ..}
    by_seat: dict[int, dict[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        total = {k: sum(r[k] for r in self.by_seat.values()) for k in ("wins", "draws", "losses")}
        return {
            "bots": list(self.bots),
            "games_per_seat": self.games,
            "as_first": self.by_seat.get(0),
            "as_second": self.by_seat.get(1),
            "total": total,
        }


def compare_bots(
    registry: Registry,
    game_name: str,
    settings: Mapping[str, Any],
    bots: str,
    *,
    games: int,
    seed: int,
    processes: int | None = None,
) -> CompareResult:
    """Play `games` games with bot A first and `games` with it second.

    A two-bot tournament without self-play (`arena.tournament`): worker processes,
    and game ``i`` of both seatings shares its dice, so a comparison replays exactly
    from its arguments. A registry other than the default plays in this process.
    """
    from arena.registry import default_registry
    from arena.tournament import TournamentSpec, run_tournament

    game = registry.load_game(game_name, settings)
    specs = registry.parse_bots(game_name, bots)
    if len(specs) != 2:
        raise SettingsError(f"compare needs exactly two bots, got {len(specs)} in {bots!r}")
    if game.num_players() != 2:
        raise SettingsError(f"compare is for two-player games; {game_name} has {game.num_players()}")
    names = (str(specs[0]), str(specs[1]))
    spec = TournamentSpec(game_name, dict(settings), names, games, seed, ((0, 1), (1, 0)))
    if registry is default_registry():
        played = run_tournament(spec, processes=processes)
    else:
        played = run_tournament(spec, processes=1, maker=registry.make_bot)
    result = CompareResult(names, games)
    as_first, as_second = played.cells[(0, 1)], played.cells[(1, 0)]
    result.by_seat[0] = {
        "wins": as_first.first_wins, "draws": as_first.draws, "losses": as_first.second_wins,
    }
    result.by_seat[1] = {
        "wins": as_second.second_wins, "draws": as_second.draws, "losses": as_second.first_wins,
    }
    return result


def parse_extra_settings(args: Sequence[str]) -> dict[str, Any]:
    """``["--vertices", "6", "--rules=x"]`` -> ``{"vertices": 6, "rules": "x"}``.

    Values are read as JSON when they parse (numbers, lists, objects), else as text.
    """
    settings: dict[str, Any] = {}
    items = list(args)
    while items:
        token = items.pop(0)
        if not token.startswith("--") or token == "--":
            raise click.UsageError(f"unexpected argument {token!r} (settings look like --name value)")
        name, eq, value = token[2:].partition("=")
        if not eq:
            if not items or items[0].startswith("--"):
                raise click.UsageError(f"setting --{name} needs a value")
            value = items.pop(0)
        try:
            settings[name.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            settings[name.replace("-", "_")] = value
    return settings


@click.command(
    "compare", context_settings={"ignore_unknown_options": True, "allow_extra_args": True}
)
@click.option("--game", required=True, help="Game name, e.g. sim.")
@click.option("--bots", required=True, help="Two bot specs, e.g. sim-mc:trials=100,sim-random.")
@click.option("--games", type=click.IntRange(1), default=100, show_default=True,
              help="Games per seat.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--settings", "settings_json", default=None, help="Game settings as JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.pass_context
def compare(
    ctx: click.Context, game: str, bots: str, games: int, seed: int,
    settings_json: str | None, as_json: bool,
) -> None:
    """Two bots play GAMES games in each seat; print wins, draws and losses of the first.

    Any other --name value option is a game setting (--vertices 6 for Sim).
    """
    from arena.registry import default_registry

    settings = json.loads(settings_json) if settings_json else {}
    settings.update(parse_extra_settings(ctx.args))
    try:
        result = compare_bots(default_registry(), game, settings, bots, games=games, seed=seed)
    except ArenaError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(result.to_json()))
        return
    a, b = result.bots
    for seat, label in ((0, "first"), (1, "second")):
        r = result.by_seat[seat]
        click.echo(
            f"{a} as {label} vs {b}: {r['wins']} wins, {r['draws']} draws, {r['losses']} losses"
        )
