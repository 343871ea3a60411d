"""`arena serve`: run the arena server (WebSocket protocol, ladder, HTTP API)."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import re
import signal
from typing import Any
from urllib.parse import urlsplit

import click

from arena.bus.urls import BusUrl, BusUrlType
from arena.cli.config_file import (
    ACCOUNTS_META,
    LADDERS_META,
    SEASONS_META,
    ladder_configs,
    load_config,
    single_ladder_given,
)
from arena.cli.db import DB_OPTION, check_url
from arena.errors import ArenaError, SettingsError

_HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})"
                        r"(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?")
"""A DNS name as ``--server-name`` takes it (labels of letters, digits, ``-``, ``_``)."""


@click.command()
@click.option("--config", type=click.Path(dir_okay=False), is_eager=True, expose_value=False,
              callback=load_config, metavar="FILE",
              help="A TOML file of settings: every option below has a key (--move-ms is "
                   "move_ms), and [[ladders]] tables run several ladders; options given "
                   "here override the file (docs/server.md).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=int, help="0 picks a free port.")
@DB_OPTION
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
@click.option("--clock", "clock_kind", default="wall", show_default=True,
              type=click.Choice(["wall", "cpu"]),
              help="What a move's time is: wall time, or (cpu) for hosted bots the CPU time "
                   "of their sandbox (connected bots keep wall time); the time control's kind.")
@click.option("--grace-ms", default=10_000, show_default=True, type=click.IntRange(0),
              help="Reconnect grace period before a disconnected bot forfeits.")
@click.option("--no-write-ahead", "no_write_ahead", is_flag=True, hidden=True,
              help="Do not store each move before telling anybody (benchmarks' baseline only: "
                   "a restart cannot resume the games in flight).")
@click.option("--max-games", default=2, show_default=True, type=click.IntRange(2),
              help="Ladder games in flight per bot.")
@click.option("--interval", default=0.5, show_default=True, type=float,
              help="Seconds between ladder pairing rounds.")
@click.option("--pairings-per-hour", default=10, show_default=True, type=click.IntRange(0),
              help="Times the same two bot accounts may be paired on the ladder in an hour "
                   "(a pairing is two games; house bots are not limited; 0: no limit).")
@click.option("--challenges-per-hour", default=20, show_default=True, type=click.IntRange(0),
              help="Challenges a bot may send in any hour, refused ones included (0: none).")
@click.option("--challenges-pending", default=3, show_default=True, type=click.IntRange(1),
              help="Unanswered challenges a bot may have sent, and been sent, at once.")
@click.option("--challenge-timeout", default=60.0, show_default=True,
              type=click.FloatRange(0.1), help="Seconds a challenge waits for its answer.")
@click.option("--tournaments", type=click.Path(exists=True, file_okay=False), default=None,
              help="A directory of tournament results to show in the web interface.")
@click.option("--max-connections-per-address", default=64, show_default=True,
              type=click.IntRange(1), help="WebSocket connections open at once from one address.")
@click.option("--shared-limits", default="local", show_default=True,
              metavar="local|redis://HOST[:PORT][/DB][?prefix=NAME]",
              help="Where the budgets per address and per person (connections, guest "
                   "accounts, sign-ups, sign-ins...) are counted: 'local' in this process, "
                   "or a Redis shared by every process. Needed when several processes "
                   "serve one arena (docs/cluster.md, 'Limits across processes').")
@click.option("--message-rate", default=50.0, show_default=True, type=click.FloatRange(0),
              help="Messages a second a connection may send beyond those the server asked "
                   "for (0: no limit).")
@click.option("--message-burst", default=200, show_default=True, type=click.IntRange(1),
              help="Messages a connection may send at once before --message-rate applies.")
@click.option("--max-state-bytes", default=64 * 1024, show_default=True, type=click.IntRange(0),
              help="Largest game state (msgpack bytes); a bigger one aborts its game (0: any).")
@click.option("--max-queue-bytes", default=1024 * 1024, show_default=True,
              type=click.IntRange(1), help="Unread bytes queued for a client before it is "
                                           "dropped as a slow consumer.")
@click.option("--limit", "limits", multiple=True, metavar="GAME.SIZE=N",
              help="Change a game's settings limit for bots with accounts (repeatable), "
                   "e.g. heaps.positions=4000000; see docs/security.md.")
@click.option("--guest-limit", "guest_limits", multiple=True, metavar="GAME.SIZE=N",
              help="Change a game's settings limit for guests (repeatable).")
@click.option("--guest-lifetime", default=24 * 3600.0, show_default=True,
              type=click.FloatRange(1), help="Seconds a guest account lives.")
@click.option("--max-log-bytes-per-day", default=4 * 1024 * 1024, show_default=True,
              type=click.IntRange(0), help="Bytes of debug lines stored per bot per UTC day; "
                                           "more are dropped (the games go on).")
@click.option("--debug-retention-days", default=14.0, show_default=True,
              type=click.FloatRange(0), help="Days a game's debug lines are kept after it "
                                             "ends (0: for ever).")
@click.option("--debug-disk-reserve-mb", default=256, show_default=True,
              type=click.IntRange(0), help="MiB of free disk for the database below which no "
                                           "debug line is kept (0: no reserve).")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1),
              help="Worker processes the house bots think in.")
@click.option("--worker-memory-mb", default=1024, show_default=True, type=click.IntRange(0),
              help="Address-space limit of each worker, in MiB (0: none).")
@click.option("--origin", "origins", multiple=True, metavar="URL",
              help="A browser origin (https://arena.example.org) whose pages may use the web "
                   "interface besides the server's own; repeat for more.")
@click.option("--server-name", "server_names", multiple=True, metavar="NAME",
              help="A host name the server answers to (arena.example.org), besides --host, "
                   "localhost and any IP address; requests to other names get 421 (DNS "
                   "rebinding). Repeat for more.")
@click.option("--guests-per-client", default=5, show_default=True, type=click.IntRange(1),
              help="Guest accounts (browser players) one client address may create per minute.")
@click.option("--signup", default="closed", show_default=True,
              type=click.Choice(["open", "invite", "closed"]),
              help="Who may sign up on the web: anybody, people with an invite code "
                   "('arena users invite'), or nobody (the operator adds people: "
                   "'arena users add NAME').")
@click.option("--hosted-dir", "hosted_dir", default=None,
              type=click.Path(file_okay=False, path_type=str),
              help="Host uploaded bots: their builds go here (arena bots upload, POST "
                   "/api/bots/NAME/builds) and the server plays them in the sandbox (root "
                   "and bubblewrap needed). Without it no bot is hosted.")
@click.option("--hosted-slots", default=None, type=click.IntRange(1),
              help="Hosted programs at once; more games of hosted bots wait their turn "
                   "(default: a slot per core but one). In a cluster, the gateway running "
                   "the hosted bots counts them for every host's games.")
@click.option("--hosted-ws-programs", "hosted_ws_programs", default=None,
              type=click.IntRange(1),
              help="WebSocket-speaking hosted programs running at once (they run all the "
                   "time); more wait their turn to start (default: as many as "
                   "--hosted-slots).")
@click.option("--seasons", "seasons_file", type=click.Path(exists=True, dir_okay=False),
              default=None, metavar="FILE.toml",
              help="A TOML file of [[seasons]] tables (docs/server.md#seasons): the ladders' "
                   "seasons, their entry rules and finals (instead of the --config file's "
                   "[[seasons]]).")
@click.option("--host-id", default=None, metavar="NAME",
              help="This server's name as a host of games on a shared PostgreSQL database "
                   "(docs/cluster.md); default: machine:pid:random.")
@click.option("--lease-seconds", default=10.0, show_default=True,
              type=click.FloatRange(0.5, 3600),
              help="How long a game's lease lasts: a dead server's games are taken over "
                   "by another within about 1.33 times this.")
@click.option("--role", default="all", show_default=True,
              type=click.Choice(["all", "gateway", "host"]),
              help="This process's part (docs/cluster.md): all (one process), gateway (the "
                   "bots' and browsers' connections and the web, no game) or host (the "
                   "games and the ladder's pairing, no connection); gateway and host need "
                   "a PostgreSQL --db and a nats:// --bus.")
@click.option("--bus", default="local:", show_default=True, type=BusUrlType(),
              help="The bus between gateways and hosts: local: (--role all) or "
                   "nats://HOST[:PORT][?prefix=NAME] (--role gateway or host).")
@click.option("--verbose", "-v", is_flag=True)
def serve(host: str, port: int, db: str, ladder: bool, game: str, settings_json: str | None,
          grammar: str, moves: int | None, house: str, house_vs_house: bool, move_ms: int, bank_ms: int,
          first_move_ms: int, retries: int, clock_kind: str, grace_ms: int, no_write_ahead: bool,
          max_games: int, interval: float,
          pairings_per_hour: int, challenges_per_hour: int, challenges_pending: int,
          challenge_timeout: float,
          tournaments: str | None, max_connections_per_address: int, shared_limits: str,
          message_rate: float,
          message_burst: int, max_state_bytes: int, max_queue_bytes: int,
          limits: tuple[str, ...], guest_limits: tuple[str, ...], guest_lifetime: float,
          max_log_bytes_per_day: int, debug_retention_days: float, debug_disk_reserve_mb: int,
          workers: int, worker_memory_mb: int, origins: tuple[str, ...],
          server_names: tuple[str, ...], guests_per_client: int, signup: str,
          hosted_dir: str | None, hosted_slots: int | None,
          hosted_ws_programs: int | None, seasons_file: str | None,
          host_id: str | None, lease_seconds: float, role: str, bus: BusUrl,
          verbose: bool) -> None:
    """Run the arena server until Ctrl-C or SIGTERM."""
    from arena.app import Arena
    from arena.bot_logs import LogLimits
    from arena.config import (
        AccountsConfig,
        ChallengeLimits,
        HostedConfig,
        LadderConfig,
        ServerConfig,
        TimeControl,
        WebConfig,
    )
    from arena.counters import parse_counters_url
    from arena.registry import default_registry
    from arena.workers import WorkerLimits

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    check_url(db)
    check_role(role, db, bus)
    ctx = click.get_current_context()
    tables = ctx.meta.get(LADDERS_META)
    if tables is not None and ladder:
        given = single_ladder_given(ctx)
        if given:
            raise click.UsageError(
                f"the configuration file's [[ladders]] define the ladders: leave out "
                f"{', '.join(given)} (or give one ladder by them and no [[ladders]])")
    control = TimeControl(move_ms, bank_ms, first_move_ms, retries, grace_ms, kind=clock_kind)
    try:
        registry = default_registry()
        ladders: tuple[LadderConfig, ...] = ()
        if tables is not None and ladder:
            ladders = ladder_configs(
                tables, registry=registry, time_control=control,
                default_settings=lambda name: _default_settings(registry, name),
                defaults={"house_vs_house": house_vs_house, "max_games": max_games,
                          "interval": interval, "pairings_per_hour": pairings_per_hour})
            if not ladders:
                raise ValueError("the configuration file's ladders array is empty: give at "
                                 "least one [[ladders]] table, or ladder = false")
        if settings_json is not None:
            settings = json.loads(settings_json)
        else:
            # the substitution game: 50 turns each unless --moves or a thesis XML says
            settings = (registry.cli_settings(game, {"grammar": grammar, "moves": moves,
                                                     "default_moves": 50})
                        or _default_settings(registry, game))
        rules = registry.load_game(game, settings)
        if ladder and not ladders and rules.num_players() != 2:
            raise click.UsageError(
                f"the ladder pairs two bots, but {game} with these settings is a "
                f"{rules.num_players()}-player game: give two-player settings (for tiles: "
                "--settings '{\"players\": 2}') or --no-ladder")
        house_specs = tuple(str(spec) for spec in registry.parse_bots(game, house)) if house else ()
        for spec in house_specs:
            registry.make_bot(rules, spec, allow_exec=False)
        settings_limits = _limits(registry, limits, "--limit")
        guest_settings_limits = _limits(registry, guest_limits, "--guest-limit")
        if ladder and not ladders:
            from arena.limits import check_settings

            check_settings(rules, "standard", settings_limits)
        if ladders:
            from arena.server.ladder import check_ladders

            check_ladders(registry, ServerConfig(ladders=ladders,
                                                 settings_limits=settings_limits))
        for origin in origins:
            parts = urlsplit(origin)
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.path.strip("/"):
                raise ValueError(f"--origin {origin!r}: give scheme://host[:port], nothing more")
        for name in server_names:
            if not _HOST_NAME.fullmatch(name):
                raise ValueError(f"--server-name {name!r}: give a host name "
                                 "(arena.example.org), no scheme or port")
        names = ([ladder.name for ladder in ladders] if ladders
                 else [game] if ladder else [])  # the single ladder is named after its game
        seasons = _seasons(seasons_file, ctx.meta.get(SEASONS_META, ()), names)
        parse_counters_url(shared_limits)  # ValueError says what to give
        if host_id is not None and not (0 < len(host_id) <= 200 and host_id.isprintable()):
            raise ValueError("--host-id: give 1 to 200 printable characters")
    except (ArenaError, ValueError) as error:
        raise click.UsageError(str(error)) from None
    config = ServerConfig(
        host=host, port=port, db=db,
        time_control=control,
        ladder=LadderConfig(game, settings, house_specs, house_vs_house, interval, max_games,
                            pairings_per_hour=pairings_per_hour) if ladder and not ladders
        else None,
        ladders=ladders,
        tournaments=tournaments, write_ahead=not no_write_ahead,
        host_id=host_id, lease_seconds=lease_seconds,
        role=role,  # type: ignore[arg-type]  # click's Choice
        bus="local:" if bus.kind == "local" else f"{','.join(bus.servers)}?prefix={bus.prefix}",
        challenges=ChallengeLimits(challenges_per_hour, challenges_pending, challenge_timeout),
        max_connections_per_address=max_connections_per_address,
        shared_limits=shared_limits, message_rate=message_rate,
        message_burst=message_burst, max_state_bytes=max_state_bytes,
        max_queue_bytes=max_queue_bytes, settings_limits=settings_limits,
        guest_settings_limits=guest_settings_limits, guest_lifetime=guest_lifetime,
        log_limits=LogLimits(max_log_bytes_per_day=max_log_bytes_per_day),
        debug_retention_days=debug_retention_days, debug_disk_reserve_mb=debug_disk_reserve_mb,
        workers=WorkerLimits(processes=workers, memory_mb=worker_memory_mb),
        web=WebConfig(origins=tuple(o.rstrip("/") for o in origins),
                      server_names=tuple(n.lower() for n in server_names),
                      guests_per_client_minute=guests_per_client),
        accounts=AccountsConfig(signup=signup,  # type: ignore[arg-type]  # click's Choice
                                **ctx.meta.get(ACCOUNTS_META, {})),
        hosted=HostedConfig(directory=hosted_dir, slots=hosted_slots,
                            ws_programs=hosted_ws_programs),
        seasons=seasons,
    )

    async def main() -> None:
        arena = Arena(config, registry=registry)  # the composition root: server and web
        await arena.start()
        server = arena.server
        # everything loaded so far lives as long as the server: keep it out of the
        # garbage collector's full passes, which then take a fraction of the time
        gc.freeze()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, lambda: loop.create_task(arena.close()))
        # on standard output, once listening: scripts wait for these lines
        if role == "host":  # no bot connects here: the gateways relay them
            click.echo(f"arena game host listening (its bots connect to the gateways)\n"
                       f"  /healthz, /metrics:        http://{host}:{server.port}/\n"
                       f"  database:                  {server.storage.description}")
        else:
            click.echo(f"arena {'gateway' if role == 'gateway' else 'server'} listening\n"
                       f"  bots (WebSocket):          {server.url}\n"
                       f"  web interface, HTTP API:   http://{host}:{server.port}/\n"
                       f"  database:                  {server.storage.description}\n"
                       f"  limits counted:            {server.counters.description}")
        if server.resumed:
            click.echo(f"resumed {len(server.resumed)} running game(s) from their stored moves",
                       err=True)
        if server.recovered:
            click.echo(f"recorded {len(server.recovered)} running game(s) that could not be "
                       "replayed as aborted", err=True)
        if server.storage.failure is not None:
            click.echo(f"warning: the database cannot be written ({server.storage.failure}); "
                       "no game starts until it can (/healthz answers 503)", err=True)
        await arena.serve_forever()

    from arena.counters import CountersFailure
    from arena.sandbox.host import SandboxUnavailable
    from arena.storage import StorageFailure, StorageVersionError
    from arena.uploads import UploadError

    try:
        asyncio.run(main())
    except (StorageFailure, StorageVersionError) as error:  # the database cannot be opened
        raise click.ClickException(str(error)) from None
    except CountersFailure as error:  # --shared-limits: Redis does not answer
        raise click.ClickException(str(error)) from None
    except (SandboxUnavailable, UploadError) as error:  # --hosted-dir, and no sandbox
        raise click.UsageError(str(error)) from None


def check_role(role: str, db: str, bus: BusUrl) -> None:
    """Refuse (a usage error saying what to give) a ``--role`` its other flags cannot
    serve: ``all`` is one process on the in-process bus; a gateway and a host share
    their games through PostgreSQL and their messages through NATS."""
    if role == "all":
        if bus.kind != "local":
            raise click.UsageError(
                f"--bus {bus}: --role all is one process on the in-process bus (--bus "
                "local:, the default); a nats:// bus joins --role gateway and --role host "
                "processes (docs/cluster.md)")
        return
    if not db.startswith(("postgresql://", "postgres://")):
        raise click.UsageError(
            f"--role {role} needs --db postgresql://...: the gateways and hosts of one "
            "arena share its database, which SQLite cannot (docs/cluster.md)")
    if bus.kind != "nats":
        raise click.UsageError(
            f"--role {role} needs --bus nats://HOST[:PORT]: the in-process bus (local:) "
            "reaches no other process (docs/cluster.md)")


def _default_settings(registry: Any, game: str) -> dict[str, Any]:
    """The ladder's settings when none are given: the game's own defaults, or, for a
    game that has none (heaps, Durak), the example settings its web lobby starts from
    (said on standard error), or a clear error naming what to pass."""
    try:
        registry.load_game(game, {})
        return {}
    except SettingsError as error:
        example = registry.game_class(game).web_lobby().get("settings")
        if not example:
            raise click.UsageError(
                f"the game {game!r} has no default settings ({error}): give them with "
                f"--settings JSON ('arena schema --game {game} --markdown' lists the "
                "fields)") from None
        click.echo(f"{game} has no default settings: the ladder plays its example settings "
                   f"{json.dumps(example)} (--settings JSON for others)", err=True)
        return dict(example)


def _limits(registry: Any, items: tuple[str, ...], flag: str) -> dict[str, int]:
    """``GAME.SIZE=N`` items as a mapping, each naming a limit a game declares."""
    known = {f"{name}.{limit.name}" for name, cls in registry.games.items()
             for limit in cls.type.limits}
    limits: dict[str, int] = {}
    for item in items:
        key, _, value = item.partition("=")
        key = key.strip()
        if key not in known:
            raise ValueError(f"{flag} {item!r}: no such limit (limits: {', '.join(sorted(known))})")
        if not value.strip().isdigit() or int(value) < 1:
            raise ValueError(f"{flag} {item!r}: the value must be a positive integer")
        limits[key] = int(value)
    return limits


def _seasons(path: str | None, configured: tuple[Any, ...],
             ladders: list[str]) -> tuple[Any, ...]:
    """The seasons: the ``[[seasons]]`` of the TOML file `path` if given, else those of
    the ``--config`` file (`configured`); each on one of the server's `ladders` (by name).

    Raises:
        ValueError: the file is not TOML, or a season is bad or names another ladder.
    """
    seasons, source = configured, "--config"
    if path is not None:
        import tomllib

        from arena.seasons import seasons_from_toml

        try:
            with open(path, "rb") as file:
                data = tomllib.load(file)
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"--seasons {path}: not TOML ({error})") from None
        seasons, source = seasons_from_toml(data.get("seasons", [])), f"--seasons {path}"
    for season in seasons:
        if season.ladder not in ladders:
            raise ValueError(
                f"{source}: season {season.name!r} is on the ladder {season.ladder!r}, but "
                + (f"this server's ladder is {ladders[0]!r}" if len(ladders) == 1
                   else f"this server's ladders are {', '.join(map(repr, ladders))}" if ladders
                   else "there is no ladder"))
    return tuple(seasons)
