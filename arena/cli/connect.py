"""`arena connect`: play on an arena server as an external client."""

from __future__ import annotations

import asyncio
import logging

import click

from protocol import Encoding, ProtocolError


@click.command()
@click.option("--url", required=True, help="The server, e.g. ws://127.0.0.1:8765/")
@click.option("--token", required=True, envvar="ARENA_TOKEN", help="The bot's token ($ARENA_TOKEN).")
@click.option("--bot", "spec", default=None, help="A built-in bot spec, e.g. 'random'.")
@click.option("--exec", "command", default=None,
              help="Run this command and relay games over the stdio line protocol.")
@click.option("--name", default=None, help="The bot's account name (checked against the token).")
@click.option("--games", default="", help="Comma-separated games the bot plays (default: any).")
@click.option("--json", "use_json", is_flag=True, help="JSON text frames instead of msgpack.")
@click.option("--stop-after", type=click.IntRange(1), default=None,
              help="Stop after this many finished games.")
@click.option("--legal-limit", default=None, type=click.IntRange(0),
              help="--exec: longest 'legal' list in a turn line; a longer one is sent as null "
                   "with its 'legal_count' (default: the server's limits.max_legal).")
@click.option("--verbose", "-v", is_flag=True)
def connect(url: str, token: str, spec: str | None, command: str | None, name: str | None,
            games: str, use_json: bool, stop_after: int | None, legal_limit: int | None,
            verbose: bool) -> None:
    """Connect a built-in bot (--bot) or any program (--exec) to a server and play."""
    from clients.bridge import ExecBot
    from clients.sdk import ArenaBot, ArenaClient, BotFailure, BuiltinBot

    if (spec is None) == (command is None):
        raise click.UsageError("give exactly one of --bot and --exec")
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING)
    bot: ArenaBot = (BuiltinBot(spec, threaded=True) if spec is not None
                     else ExecBot(command or "", legal_limit=legal_limit))
    client = ArenaClient(url, token, bot, name=name,
                         games=[g.strip() for g in games.split(",") if g.strip()],
                         encoding=Encoding.JSON if use_json else Encoding.MSGPACK,
                         stop_after=stop_after, legal_moves=command is not None)

    async def main() -> None:
        try:
            await client.run()
        finally:
            if isinstance(bot, ExecBot):
                await bot.close()

    try:
        asyncio.run(main())
    except ProtocolError as error:
        raise click.ClickException(f"the server refused the connection: {error}") from None
    except BotFailure as error:
        raise click.ClickException(f"the bot stopped: {error}") from None
    except KeyboardInterrupt:
        pass
    wins = sum(result.won for result in client.results)
    click.echo(f"{len(client.results)} game(s) played, {wins} won", err=True)
