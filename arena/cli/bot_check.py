"""`arena bot check`: validation games for a program before it plays on a server."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import click

from arena.errors import ArenaError

SHOWN_NOTES = 12
"""Debug lines shown per game: the first ones of a good game, the last ones of a failed one."""


@click.group()
def bot() -> None:
    """Work on a bot program of your own."""


@bot.command()
@click.option("--exec", "command", default=None,
              help="The program, as for 'arena connect --exec' (e.g. './mybot').")
@click.option("--hosted", "hosted", default=None, metavar="DIR",
              help="Instead: a built bot, played from its sandbox (arena bots build ... "
                   "--out DIR).")
@click.option("--clock", "time_kind", type=click.Choice(["wall", "cpu"]), default="wall",
              show_default=True,
              help="What a move's time is: wall time, or (--hosted) the CPU time of the "
                   "bot's processes.")
@click.option("--ws", "websocket", is_flag=True,
              help="Check a bot that speaks the WebSocket protocol itself: start a throwaway "
                   "server on 127.0.0.1, print its URL and a token, and play the games "
                   "against the bot that connects with them.")
@click.option("--port", default=0, show_default=True, type=click.IntRange(0, 65535),
              help="--ws: the throwaway server's port (0: any free port).")
@click.option("--name", default="mybot", show_default=True,
              help="--ws: the account the bot logs in as.")
@click.option("--wait", "connect_timeout", default=300.0, show_default=True,
              type=click.FloatRange(0), metavar="SECONDS",
              help="--ws: how long to wait for the bot to connect.")
@click.option("--game", "game_names", multiple=True,
              help="A game to check (repeatable; default: every game).")
@click.option("--settings", "settings_json", default=None,
              help="The game's settings as JSON (with one --game).")
@click.option("--games", default=2, show_default=True, type=click.IntRange(1),
              help="Games per game, the program's seat alternating.")
@click.option("--against", default=None, help="The built-in bot to play (default: a random one).")
@click.option("--move-ms", default=2000, show_default=True, type=click.IntRange(1))
@click.option("--bank-ms", default=10_000, show_default=True, type=click.IntRange(0))
@click.option("--first-move-ms", default=5000, show_default=True, type=click.IntRange(1))
@click.option("--seed", default=1, show_default=True, type=int)
def check(command: str | None, hosted: str | None, time_kind: str, websocket: bool,
          port: int, name: str, connect_timeout: float, game_names: tuple[str, ...],
          settings_json: str | None,
          games: int, against: str | None, move_ms: int, bank_ms: int, first_move_ms: int,
          seed: int) -> None:
    """Play validation games against built-in bots; print every rejection, timeout and
    the program's standard error, then a verdict (exit status 1 on FAIL).

    With --ws, the bot is one that connects over WebSocket: a throwaway server starts,
    its URL and the bot's token are printed, and the games are played once the bot has
    connected (start it with them: ARENA_TOKEN=TOKEN ./mybot URL). With --hosted, the bot
    is a build (arena bots build), played from its sandbox.
    """
    from arena.bot_check import check_program, check_websocket_bot
    from arena.bots import HOSTED_PREFIX
    from arena.clock import TimeControl
    from arena.registry import default_registry

    if [command is not None, hosted is not None, websocket].count(True) != 1:
        raise click.UsageError("give exactly one of --exec, --hosted and --ws")
    if time_kind == "cpu" and hosted is None:
        raise click.UsageError("--clock cpu times a hosted bot (--hosted DIR)")
    program = HOSTED_PREFIX + hosted if hosted is not None else command

    registry = default_registry()
    names = list(game_names) or sorted(registry.games)
    if settings_json is not None and len(names) != 1:
        raise click.UsageError("--settings goes with exactly one --game")
    try:
        settings = {name: _settings(registry, name, settings_json) for name in names}
    except (ArenaError, ValueError) as error:
        raise click.UsageError(str(error)) from None

    def show(game: Any) -> None:
        mark = "FAIL" if game.failure else "ok  "
        if game.record is None:
            click.echo(f"{mark} {game.game} seat {game.seat} vs {game.opponent}: not finished")
        else:
            outcome = game.record.outcome
            result = "won" if outcome.winner == game.seat else "drawn" \
                if outcome.winner is None else "lost"
            click.echo(f"{mark} {game.game} seat {game.seat} vs {game.opponent}: {result} "
                       f"({outcome.termination.value}, {len(game.record.turns)} moves)")
        if game.failure:
            click.echo(f"     {game.failure}")
        notes = game.notes()  # the program's '#' lines and standard error
        shown = notes[-SHOWN_NOTES:] if game.failure else notes[:SHOWN_NOTES]
        if len(shown) < len(notes):
            click.echo(f"     ({len(notes) - len(shown)} of its {len(notes)} debug lines not shown)")
        for line in shown:
            click.echo(f"     | {line}")

    def announce(url: str, token: str) -> None:
        click.echo(f"server: {url}")
        click.echo(f"token:  {token}")
        click.echo(f"start your bot with them, e.g. ARENA_TOKEN={token} ./mybot {url} "
                   f"(waiting {connect_timeout:g} s for {name!r} to connect)", nl=True)
        sys.stdout.flush()

    control = TimeControl(move_ms, bank_ms, first_move_ms, kind=time_kind)
    try:
        if program is not None:
            report = check_program(registry, program, settings, games=games, opponent=against,
                                   time_control=control, seed=seed, progress=show)
        else:
            report = asyncio.run(check_websocket_bot(
                registry, settings, games=games, opponent=against, time_control=control,
                seed=seed, name=name, port=port, connect_timeout=connect_timeout,
                announce=announce, progress=show))
    except TimeoutError:
        click.echo(f"FAIL: no bot connected as {name!r} within {connect_timeout:g} s")
        sys.exit(1)
    except (ArenaError, ValueError) as error:
        raise click.UsageError(str(error)) from None
    click.echo(report.verdict())
    sys.exit(0 if report.passed else 1)


def _settings(registry: Any, name: str, settings_json: str | None) -> dict[str, Any]:
    """The settings to check `name` with: given, the game's plugin's for no options
    (`arena_cli_settings`; the substitution game: the medium grammar, 20 moves each), or
    the web lobby's example."""
    if settings_json is not None:
        settings: dict[str, Any] = json.loads(settings_json)
    else:
        settings = registry.cli_settings(name, {}) or dict(
            registry.game_class(name).web_lobby().get("settings", {}))
    registry.load_game(name, settings)
    return settings
