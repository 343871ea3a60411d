"""`arena serve`: run the arena server (WebSocket protocol, ladder, HTTP API)."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
from urllib.parse import urlsplit

import click

from arena.errors import ArenaError


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=int, help="0 picks a free port.")
@click.option("--db", default="arena.sqlite", show_default=True, help="SQLite database file.")
@click.option("--ladder/--no-ladder", default=True, show_default=True,
              help="Pair connected bots continuously.")
@click.option("--game", default="substitution", show_default=True, help="The ladder's game.")
@click.option("--settings", "settings_json", default=None,
              help="The ladder game's settings as JSON (default: the game's defaults; for the "
                   "substitution game the medium grammar).")
@click.option("--grammar", default="medium", show_default=True,
              help="Substitution game: grammar preset or file for the ladder.")
@click.option("--moves", default=None, type=click.IntRange(1, 100_000),
              help="Substitution game: turns per player in ladder games (default: a thesis "
                   "XML file's NumberOfMoves, else 50).")
@click.option("--house", default="", help="Built-in bots playing on the ladder, comma-separated "
                                          "specs (e.g. 'random').")
@click.option("--house-vs-house", is_flag=True, help="Let house bots also play each other.")
@click.option("--move-ms", default=2000, show_default=True, type=click.IntRange(1))
@click.option("--bank-ms", default=10_000, show_default=True, type=click.IntRange(0))
@click.option("--first-move-ms", default=5000, show_default=True, type=click.IntRange(1))
@click.option("--retries", default=0, show_default=True, type=click.IntRange(0),
              help="Illegal moves a bot may correct per turn (0: forfeit at once).")
@click.option("--grace-ms", default=10_000, show_default=True, type=click.IntRange(0),
              help="Reconnect grace period before a disconnected bot forfeits.")
@click.option("--max-games", default=2, show_default=True, type=click.IntRange(2),
              help="Ladder games in flight per bot.")
@click.option("--interval", default=0.5, show_default=True, type=float,
              help="Seconds between ladder pairing rounds.")
@click.option("--tournaments", type=click.Path(exists=True, file_okay=False), default=None,
              help="A directory of tournament results to show in the web interface.")
@click.option("--origin", "origins", multiple=True, metavar="URL",
              help="A browser origin (https://arena.example.org) whose pages may use the web "
                   "interface besides the server's own; repeat for more.")
@click.option("--guests-per-client", default=5, show_default=True, type=click.IntRange(1),
              help="Guest accounts (browser players) one client address may create per minute.")
@click.option("--verbose", "-v", is_flag=True)
def serve(host: str, port: int, db: str, ladder: bool, game: str, settings_json: str | None,
          grammar: str, moves: int | None, house: str, house_vs_house: bool, move_ms: int, bank_ms: int,
          first_move_ms: int, retries: int, grace_ms: int, max_games: int, interval: float,
          tournaments: str | None, origins: tuple[str, ...], guests_per_client: int,
          verbose: bool) -> None:
    """Run the arena server until Ctrl-C or SIGTERM."""
    from arena.registry import default_registry
    from arena.server import ArenaServer, LadderConfig, ServerConfig, TimeControl
    from arena.web.config import WebConfig

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        if settings_json is not None:
            settings = json.loads(settings_json)
        elif game == "substitution":
            from arena.games.substitution.settings import load_settings

            # 50 turns for a ladder unless given, or a thesis XML file says
            settings = load_settings(grammar, moves, None, default_moves=50).to_json()
        else:
            settings = {}
        registry = default_registry()
        rules = registry.load_game(game, settings)
        if ladder and rules.num_players() != 2:
            raise click.UsageError(
                f"the ladder pairs two bots, but {game} with these settings is a "
                f"{rules.num_players()}-player game: give two-player settings (for tiles: "
                "--settings '{\"players\": 2}') or --no-ladder")
        house_specs = tuple(str(spec) for spec in registry.parse_bots(game, house)) if house else ()
        for spec in house_specs:
            registry.make_bot(rules, spec, allow_exec=False)
        for origin in origins:
            parts = urlsplit(origin)
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.path.strip("/"):
                raise ValueError(f"--origin {origin!r}: give scheme://host[:port], nothing more")
    except (ArenaError, ValueError) as error:
        raise click.UsageError(str(error)) from None
    config = ServerConfig(
        host=host, port=port, db=db,
        time_control=TimeControl(move_ms, bank_ms, first_move_ms, retries, grace_ms),
        ladder=LadderConfig(game, settings, house_specs, house_vs_house, interval, max_games)
        if ladder else None,
        tournaments=tournaments,
        web=WebConfig(origins=tuple(o.rstrip("/") for o in origins),
                      guests_per_client_minute=guests_per_client),
    )

    async def main() -> None:
        server = ArenaServer(config, registry=registry)
        await server.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, lambda: loop.create_task(server.close()))
        click.echo(f"arena server on {server.url} (web interface and HTTP API on "
                   f"http://{host}:{server.port}/; db {db})", err=True)
        if server.recovered:
            click.echo(f"recorded {len(server.recovered)} interrupted game(s) as aborted", err=True)
        await server.serve_forever()

    asyncio.run(main())
