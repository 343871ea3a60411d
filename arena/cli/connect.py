"""`arena connect`: play on an arena server as an external client.

Exit status: 0 when the session ended as asked (``--stop-after`` games played) with
no game forfeited by the bot; 3 when the bot forfeited a game (an illegal move, a
timeout, a disconnect); 1 when the session failed (the server refused the token, no
connection could be made, the bot's program died); 130 after Ctrl-C. The summary
(games played, won, lost, forfeited) is printed on standard output when games were
played or asked for: in every case but a refused or impossible connection. A program
that died is said once, on standard error: how it ended (its exit status or signal),
its last lines on standard error and the last line it was sent.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from protocol import AuthenticationError, Encoding, ProtocolError

if TYPE_CHECKING:
    from clients.sdk import GameResult

FORFEITS = ("illegal-move", "timeout", "disconnect")
"""Terminations that mean the losing bot broke a rule of the arena, not of the game."""
EXIT_FORFEITED = 3
"""Exit status when the session ran but the bot forfeited at least one game."""


def summary(results: Sequence[GameResult]) -> str:
    """One line: the games played, won, lost and drawn, and the bot's forfeits by kind."""
    won = sum(result.won for result in results)
    drawn = sum(result.winner is None for result in results)
    text = f"{len(results)} game(s) played: {won} won, {len(results) - won - drawn} lost, " \
           f"{drawn} drawn or aborted"
    forfeits = Counter(result.termination for result in forfeited(results))
    if forfeits:
        text += "; forfeited by this bot: " + ", ".join(
            f"{count} by {kind}" for kind, count in sorted(forfeits.items()))
    return text


def forfeited(results: Sequence[GameResult]) -> list[GameResult]:
    """The games this bot lost by an illegal move, a timeout or a disconnect."""
    return [result for result in results if result.termination in FORFEITS
            and result.seat is not None and result.winner is not None
            and result.winner != result.seat]


@click.command()
@click.option("--url", required=True,
              help="The server, e.g. ws://127.0.0.1:8765/, or several servers of one arena "
                   "separated by commas: when one refuses or dies, the next is tried.")
@click.option("--token", required=True, envvar="ARENA_TOKEN", help="The bot's token ($ARENA_TOKEN).")
@click.option("--bot", "spec", default=None, help="A built-in bot spec, e.g. 'random'.")
@click.option("--exec", "command", default=None,
              help="Run this command and relay games over the stdio line protocol.")
@click.option("--name", default=None, help="The bot's account name (checked against the token).")
@click.option("--games", default="", help="Comma-separated games the bot plays (default: any).")
@click.option("--json", "use_json", is_flag=True, help="JSON text frames instead of msgpack.")
@click.option("--stop-after", type=click.IntRange(1), default=None,
              help="Stop after this many finished games (then print a summary; exit status 0, "
                   "or 3 if the bot forfeited any).")
@click.option("--retries", "connect_retries", type=click.IntRange(0), default=None,
              help="Give up after this many failed connection attempts in a row (default: "
                   "retry for ever, waiting 0.1 s, then twice as long each time, up to 5 s).")
@click.option("--connect-timeout", type=click.FloatRange(0), default=None, metavar="SECONDS",
              help="Give up after trying this long without a connection (default: never).")
@click.option("--legal-limit", default=None, type=click.IntRange(0),
              help="--exec: longest 'legal' list in a turn line; a longer one is sent as null "
                   "with its 'legal_count' (default: the server's limits.max_legal).")
@click.option("--legal-first", default=None, type=click.IntRange(0), metavar="N",
              help="--exec, for programs written before 2026-11-23: each turn line's "
                   "'legal' holds the first N legal moves, never null, as it did then (the "
                   "old default was 50; default: $ARENA_LEGAL_FIRST, else every move or null).")
@click.option("--accept", "accept_mode", type=click.Choice(["auto", "decline"]), default=None,
              help="Answer other bots' challenges (docs/protocol.md): 'auto' accepts them, "
                   "within --min-rating and --max-rating (default: the server declines "
                   "them for this bot).")
@click.option("--min-rating", type=float, default=None,
              help="With --accept auto: decline challengers rated below this.")
@click.option("--max-rating", type=float, default=None,
              help="With --accept auto: decline challengers rated above this.")
@click.option("--paused", is_flag=True,
              help="Stay out of the ladder's pairing (challenges still come, --accept).")
@click.option("--verbose", "-v", is_flag=True)
def connect(url: str, token: str, spec: str | None, command: str | None, name: str | None,
            games: str, use_json: bool, stop_after: int | None, connect_retries: int | None,
            connect_timeout: float | None, legal_limit: int | None, legal_first: int | None,
            accept_mode: str | None, min_rating: float | None, max_rating: float | None,
            paused: bool, verbose: bool) -> None:
    """Connect a built-in bot (--bot) or any program (--exec) to a server and play.

    The server's complaints that do not end the session (a rejected move and why, a
    debug line over the limits) are shown on standard error as they come.
    """
    from clients.bridge import ExecBot
    from clients.sdk import ArenaBot, ArenaClient, BotFailure, BuiltinBot, CannotConnect

    if (spec is None) == (command is None):
        raise click.UsageError("give exactly one of --bot and --exec")
    if accept_mode is None and (min_rating is not None or max_rating is not None):
        raise click.UsageError("--min-rating and --max-rating go with --accept auto")
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(name)s: %(message)s")
    bot: ArenaBot = (BuiltinBot(spec, threaded=True) if spec is not None
                     else ExecBot(command or "", legal_limit=legal_limit,
                                  legal_first=legal_first))
    client = ArenaClient(url, token, bot, name=name,
                         games=[g.strip() for g in games.split(",") if g.strip()],
                         encoding=Encoding.JSON if use_json else Encoding.MSGPACK,
                         stop_after=stop_after, legal_moves=command is not None,
                         connect_retries=connect_retries, connect_timeout=connect_timeout,
                         seek=not paused,
                         accept=None if accept_mode is None else {
                             "mode": accept_mode, "min_rating": min_rating,
                             "max_rating": max_rating})

    async def main() -> None:
        try:
            await client.run()
        finally:
            if isinstance(bot, ExecBot):
                await bot.close()

    interrupted = False
    try:
        asyncio.run(main())
    except AuthenticationError as error:
        raise click.ClickException(
            f"the server refused the token: {error.message}. A token works only on a server "
            "whose database issued it: run 'arena bots add NAME --db FILE' with the FILE the "
            "server runs with ('arena serve --db FILE'; both default to arena.sqlite in the "
            "current directory)") from None
    except ProtocolError as error:
        raise click.ClickException(f"the server refused the connection: {error}") from None
    except CannotConnect as error:
        raise click.ClickException(f"{error} (is 'arena serve' running there?)") from None
    except BotFailure as error:
        click.echo(f"Error: the bot stopped: {error}", err=True)
        click.echo(summary(client.results))
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        interrupted = True
    click.echo(summary(client.results))
    if forfeited(client.results):
        raise SystemExit(EXIT_FORFEITED)
    if interrupted:
        raise SystemExit(130)
