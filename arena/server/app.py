"""The arena server: its lifecycle, and the parts it wires together.

`ArenaServer` starts and stops the pieces, each with one job: the database
(`arena.storage`: SQLite or PostgreSQL, with `Durability`'s promise that no result is
announced unless stored), house bots in worker processes (`arena.server.house`), the
live games (`arena.server.games`, each a sans-I/O `LiveGame` given the time, and the
grace periods of bots away from them, `arena.server.grace`), the clients' sessions and
messages (`arena.server.clients`, with `arena.server.auth`), the `Ladder`, the health
report (`arena.server.health`), the leases of its games on a database shared with
other servers (`arena.storage.leases.LeaseKeeper`: a dead server's games are taken
over, docs/cluster.md). It neither opens its database nor listens: the
composition root `arena.app` opens the storage and gives it to `start`, and serves the
server's WebSocket side (`websocket_side`) and the web's HTTP side on one port
(`arena.server.dispatch`). To the web it is an `arena.service.ArenaService`, the one
interface the web uses; the server never imports the web. What a stranger can make it do is budgeted
(docs/security.md): connections per address, messages per second, the settings of a
game (`arena.limits`), its state's size, what waits for a client that does not read,
the debug lines it stores (`arena.server.upkeep`); and a storage failure stops new
games instead of announcing results it did not store.
Embedding it without a port or a web (`arena.app.Arena` is the whole arena)::

    storage = await open_storage("arena.sqlite")
    server = ArenaServer(ServerConfig(db="arena.sqlite"))
    await server.start(storage)
    record = await server.play_game("substitution", settings, ["house:random"] * 2, seed=1)
    await server.close()
    await storage.close()  # whoever opens the storage closes it

Without a storage, `start` opens ``config.db`` itself, and then `close` closes it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, TypeVar

from websockets.asyncio.server import ServerConnection

from arena.counters import Counters, open_counters
from arena.errors import ArenaError, SettingsError
from arena.names import is_guest
from arena.record import MatchRecord
from arena.registry import Registry, default_registry
from arena.sandbox.host import probe_host
from arena.sandbox.slots import HostedSlots
from arena.seeds import new_seed
from arena.server.aids import LegalMoves, Notes
from arena.server.auth import Revocations
from arena.server.challenges import ID_SHAPE, Challenge, ChallengeError, Challenges
from arena.server.clients import Clients
from arena.server.config import LadderConfig, ServerConfig, TimeControl
from arena.server.connection import ArenaConnection
from arena.server.durability import Durability, StorageUnavailable
from arena.server.games import Games, PlayerUnavailable
from arena.server.health import health_report
from arena.server.hosted import HostedRunner
from arena.server.house import HouseBots
from arena.server.ladder import PAIR_WINDOW, Ladder, check_ladders, ladder_candidates
from arena.server.live import LiveGame
from arena.server.session import Outbox, Session
from arena.server.upkeep import DebugLineUpkeep
from arena.service import ArenaService, Handshake, LiveView, Records, ServerCounts
from arena.starts import draw_settings, pair_start_seed
from arena.storage import BuildRow, RunningGame, Storage, StorageFailure, open_storage
from arena.storage.interface import CLAIM_LIMIT
from arena.storage.leases import LeaseKeeper, host_id
from arena.uploads import Uploads
from arena.workers import WorkerPool
from protocol import PROTOCOL_VERSION, SUBPROTOCOLS

__all__ = ["ArenaServer", "Pairing", "PlayerUnavailable", "StorageUnavailable", "WebSocketSide"]

log = logging.getLogger("arena.server")

GAME_OVER_POLL = 0.5
"""Seconds between looks at the stored row of a game another process plays, until it is
over (`ArenaServer.game_over`)."""

T = TypeVar("T")

HandshakeCheck = Callable[[ServerConnection, Any], Awaitable[Handshake]]
"""The HTTP side's check of a WebSocket handshake (`arena.service.HttpFront.check_handshake`)."""


@dataclass(frozen=True)
class WebSocketSide:
    """What the port (`arena.server.dispatch.OnePort`) needs to serve the server's
    WebSocket side: websockets' `serve()` arguments, and whom to tell where it listens."""

    handler: Callable[[ServerConnection], Awaitable[None]]
    connection: Callable[..., asyncio.Protocol]
    """Makes the connection of a WebSocket upgrade (`ArenaConnection`)."""
    process_request: Callable[[ServerConnection, Any], Awaitable[Any]]
    process_response: Callable[[ServerConnection, Any, Any], Any]
    options: Mapping[str, Any]
    """`serve()`'s other keyword arguments (subprotocols, frame size, pings)."""
    listening: Callable[[str, int], None]
    """Told the host and port once the port listens (`ArenaServer.port`, `url`)."""


@dataclass(frozen=True)
class Pairing:
    """A ladder pairing to play: its two games, seats swapped (`ArenaServer.start_pairing`)."""

    ladder: str
    first: str
    second: str
    pair: str
    settings: Mapping[str, Any]
    seeds: tuple[int | None, ...]


class ArenaServer(ArenaService):
    """The arena server (see the module docstring), an `ArenaService`.

    Its storage, live games and clients exist from `start` to `close`: reading them
    before `start` raises `RuntimeError`. It does not listen: the composition root
    (`arena.app`) serves its `websocket_side` on the arena's port.

    Args:
        config: its settings.
        registry: its plugins (by default the built-in and installed ones).
    """

    def __init__(self, config: ServerConfig, *, registry: Registry | None = None) -> None:
        self._config = config
        self._registry = registry or default_registry()
        self.sessions: dict[str, Session] = {}
        """The connected bots by name (kept by `clients`)."""
        self.ladders: dict[str, Ladder] = {}
        """The matchmaking loop of each ladder, by its name (from `start` on)."""
        self.ladder: Ladder | None = None
        """The first ladder's loop (the one ladder of a server run with the single-ladder
        flags), or None: no ladder."""
        self.legal_moves = LegalMoves(config.max_legal, config.max_frame // 2)
        self.notes = Notes(config.log_limits)
        self._storage: Storage | None = None
        self._owns_storage = False
        """Whether `start` opened the storage (then `close` closes it)."""
        self._counters: Counters | None = None
        self._durability: Durability | None = None
        self._house_bots: HouseBots | None = None
        self.host = config.host_id or host_id()
        """This server's name as a host of games (`--host-id`; docs/cluster.md)."""
        self._leases: LeaseKeeper | None = None
        self._games: Games | None = None
        self._upkeep: DebugLineUpkeep | None = None
        self._clients: Clients | None = None
        self._challenges: Challenges | None = None
        self._pool: WorkerPool | None = None
        self._outbox = Outbox()
        self._tasks: list[asyncio.Task[None]] = []
        """The watches of the storage and of revoked tokens."""
        self._started = False
        self._address: tuple[str, int] | None = None
        """Where the port serves the server (`WebSocketSide.listening`)."""
        self._stopping = asyncio.Event()
        self.released = 0
        """The games whose leases `shutdown` ended (handed over to the other hosts)."""
        """Set when `shutdown` begins (`_shut_down` when it is done)."""
        self._shut_down = asyncio.Event()
        self._closing = False
        self._closed = asyncio.Event()
        self._uploads: Uploads | None = None
        self.hosted: HostedRunner | None = None
        """The hosted bots playing (`arena.server.hosted`)."""
        self.hosted_slots: HostedSlots | None = None
        """Where games with hosted bots wait their turn."""
        self.hosted_ws_slots: HostedSlots | None = None
        """Where WebSocket-speaking hosted programs wait their turn to run."""
        self.hosted_share: Callable[[HostedRunner], Coroutine[Any, Any, None]] | None = None
        """Decides, beside the hosted runner and for as long as it runs, which hosted bots
        it runs (`HostedRunner.own`; None: all of them, here). A gateway's (`arena.cluster`)
        runs those of the shards it holds: every bot on one gateway only, else it would be
        connected twice, each connection replacing the other."""
        self._hosting = False
        self.taken_elsewhere: Callable[[str], bool] = lambda name: False
        """Whether a program of the bot's author is connected to another process of the
        arena (a gateway's: `arena.cluster.elsewhere`): its hosted one waits too."""
        self.pairings_out: Callable[[Pairing], None] | None = None
        """Where the ladders' pairings go (None: started here). A host's go to the
        durable queue every host consumes (`arena.cluster.host`)."""
        self.ladder_games: Mapping[str, Collection[str]] | None = None
        """The games in flight of each player as the ladders count them (None: this
        process's own, `bot_games`); the leading host's are the whole cluster's."""

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self, storage: Storage | None = None) -> None:
        """Resume the games a stop or crash left running in `storage`, start the
        workers, the clients' side and the ladder (the port is the caller's: it listens
        once this returns).

        Args:
            storage: the database, opened by the caller, who closes it after `close`;
                without one, `config.db` is opened here and closed by `close`.
        """
        if self._started:
            raise RuntimeError("the server is already started")
        self._started = True
        config = self.config
        check_ladders(self.registry, config)  # fail early on bad settings, and on a ladder that cannot pair
        # the budgets per address and person, shared with the arena's other processes
        self._counters = await open_counters(config.shared_limits, process=self.host)
        if storage is None:
            storage = await open_storage(config.db)
            self._owns_storage = True
        self._storage = storage
        durability = self._durability = Durability(storage, self._stopping, self._tell_everybody)
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(storage.watch(config.storage_probe_interval),
                                            name="storage watch"))
        upkeep = self._upkeep = DebugLineUpkeep(
            storage, self.notes, db=config.db, reserve_mb=config.debug_disk_reserve_mb,
            retention_days=config.debug_retention_days)
        await upkeep.check_disk()
        self._tasks.append(loop.create_task(upkeep.watch(), name="debug line upkeep"))
        self._pool = WorkerPool(config.workers)
        house_bots = self._house_bots = HouseBots(self._pool, self.registry,
                                                  config.house_prepare_timeout)
        hosted = config.hosted
        # a host runs no program: its games' hosted slots are those of the gateway that
        # runs them (`arena.cluster.slots.RemoteSlots`, given to its games by its HostSide)
        if hosted.directory is not None and config.role != "host":
            probe_host()  # SandboxUnavailable says what is missing
            self.hosted_slots = HostedSlots(hosted.slots)
            self.hosted_ws_slots = HostedSlots(hosted.ws_programs or self.hosted_slots.capacity)
            self._uploads = Uploads(storage, hosted.directory, build_limits=hosted.build,
                                   upload_limits=hosted.upload,
                                   builds_at_once=hosted.builds_at_once,
                                   queue=hosted.build_queue, on_new_version=self._new_version,
                                   versions_per_day=config.accounts.versions_per_day)
            self._uploads.check_reachable()  # UploadError: which directory to open
        games = self._games = Games(
            config, self.registry, self.sessions, storage=storage, durability=durability,
            house_bots=house_bots, legal_moves=self.legal_moves, notes=self.notes,
            stopping=self._stopping, write_ahead=config.write_ahead,
            hosted_slots=self.hosted_slots, outbox=self._outbox)
        games.leases = self._leases = LeaseKeeper(
            storage, self.host, on_lost=games.lose, on_claimed=self._claimed,
            lease=config.lease_seconds)
        owns_games = config.role != "gateway"  # a gateway's games are the hosts' (docs/cluster.md)
        # running games resume from their moves (on a host); a gateway resumes none
        durability.resume = self._resume_free if owns_games else _resume_none
        await durability.recover()
        if owns_games:
            self._tasks.append(loop.create_task(self._leases.run(), name="lease keeper"))
        challenges = self._challenges = Challenges(
            config.challenges, notify=self._notify_challenge, start=self._start_challenge,
            rating=self._ladder_rating, check=self._check_challenge,
            capable=lambda name: name in self.sessions
            and "challenges" in self.sessions[name].capabilities)
        revocations = Revocations(storage, interval=config.revocation_interval,
                                  purge_interval=config.guest_purge_interval,
                                  drop=lambda session: self.clients.drop(session))
        self._clients = Clients(
            config, self.registry, self.sessions, self._outbox, storage=storage, games=games,
            counters=self._counters, revocations=revocations, legal_moves=self.legal_moves,
            notes=self.notes, challenges=challenges, stopping=self._stopping)
        if self.uploads is not None:
            await self.uploads.recover()  # builds a stop left half-done are failed
        for ladder_config in config.all_ladders:
            ladder = Ladder(ladder_config, functools.partial(self._ladder_candidates,
                                                             ladder_config.name),
                            functools.partial(self._start_pair, ladder_config),
                            await self._recent_pairings(ladder_config.name),
                            owner_of=self._owner_of)
            self.ladders[ladder_config.name] = ladder
            self.ladder = self.ladder or ladder
            if config.role == "all":  # a host's pair while it leads (arena.cluster.host)
                ladder.start()  # no bot is connected before the port listens
        self._tasks.append(loop.create_task(revocations.watch(), name="revocation watch"))

    async def _resume_free(self, running: Sequence[RunningGame]) -> tuple[list[str], list[str]]:
        """At start: take the games no live host holds (a stop or a crash left them
        running) and resume them from their stored moves. On SQLite this is the only
        process, so every other host named in a lease is a dead predecessor: its leases
        are ended first."""
        keeper = self._leases
        assert keeper is not None
        storage = self.storage
        if storage.kind == "sqlite":
            for host in {lease.host for lease in await storage.leases()} - {None, self.host}:
                await storage.release_leases(host)  # type: ignore[arg-type]
        await keeper.take_free(asyncio.get_running_loop().time())
        return await self.games.restore_running(
            [game for game in running if game.id in keeper.held])

    async def claim_now(self) -> int:
        """Claim the games no live host holds at once (a peer stopped and handed its
        games over: `arena.cluster.host`), rather than at the lease keeper's next round;
        they resume here (`_claimed`). How many were claimed."""
        if self._leases is None or self._stopping.is_set():
            return 0
        total = 0
        while len(claimed := await self._leases.claim_free()) == CLAIM_LIMIT:
            total += len(claimed)
        return total + len(claimed)

    def _claimed(self, game_ids: frozenset[str]) -> None:
        """The lease keeper took over a dead host's games: resume them here."""
        task = asyncio.get_running_loop().create_task(self._resume_claimed(game_ids),
                                                      name="resume claimed games")
        self._tasks.append(task)
        task.add_done_callback(self._tasks.remove)

    async def _resume_claimed(self, game_ids: frozenset[str]) -> None:
        """Resume claimed games through the restart's path (`Games.restore_running`:
        their players have each game's grace period to come here); while the storage
        fails, try again at the lease keeper's pace, as long as the games are held."""
        keeper = self._leases
        assert keeper is not None
        while not self._stopping.is_set():
            wanted = game_ids & keeper.held
            if not wanted:
                return
            try:
                running = await self.storage.running_games(wanted)
                resumed, aborted = await self.games.restore_running(running)
            except StorageFailure as failure:
                log.error("the games taken over could not be resumed yet: %s", failure)
                await asyncio.sleep(keeper.lease / 3)
                continue
            self.durability.resumed += resumed
            self.durability.recovered += aborted
            log.warning("resumed %d game(s) taken over from stopped hosts, from their stored "
                        "moves; aborted %d that could not be replayed", len(resumed),
                        len(aborted))
            return

    def websocket_side(self, check_handshake: HandshakeCheck | None = None) -> WebSocketSide:
        """The server's WebSocket side, for the port (`arena.server.dispatch.OnePort`):
        the clients' handler and websockets' options, each handshake checked by
        `check_handshake` (the HTTP side's browser checks, `HttpFront.check_handshake`)
        if given."""
        config = self.config

        async def process_request(connection: ServerConnection, request: Any) -> Any:
            """A WebSocket handshake (plain HTTP never gets here): the HTTP side's checks
            of a browser's (host, origin), and the guest cookie it carries."""
            if check_handshake is None:
                return None
            handshake = await check_handshake(connection, request)
            if handshake.refusal is not None:
                return handshake.refusal
            if handshake.guest_token is not None and isinstance(connection, ArenaConnection):
                connection.cookie_token = handshake.guest_token
            return None

        async def refuse(connection: ServerConnection) -> None:
            """A host takes no connection: its bots reach it through a gateway."""
            await connection.close(1013, "this is a game host of the arena: connect to "
                                         "one of its gateways")

        return WebSocketSide(
            handler=refuse if config.role == "host"
            else lambda connection: self.clients.handle(connection),
            connection=ArenaConnection,
            process_request=process_request,
            process_response=subprotocol_response,
            options={"subprotocols": [*SUBPROTOCOLS], "max_size": config.max_ws_frame,
                     "compression": None, "ping_interval": config.ping_interval,
                     "ping_timeout": config.ping_timeout,
                     "close_timeout": config.close_timeout,
                     "server_header": f"arena/{PROTOCOL_VERSION}"},
            listening=self._listening)

    def _listening(self, host: str, port: int) -> None:
        self._address = (host, port)
        log.info("arena server listening on %s:%s", host, port)
        if self.uploads is not None and not self._hosting and not self._stopping.is_set():
            # the hosted bots connect to the port like any bot: once it listens
            self._hosting = True
            share = self.hosted_share
            runner = self._hosted_runner(everything=share is None)
            self._tasks.append(asyncio.get_running_loop().create_task(
                self._run_hosted(runner) if share is None
                else self._run_hosted(runner, share(runner)), name="hosted bots"))

    def _hosted_runner(self, *, everything: bool) -> HostedRunner:
        """The hosted runner: of every hosted bot, or (not `everything`) of none until
        `hosted_share` says which."""
        assert self.uploads is not None
        runner = self.hosted = HostedRunner(
            self.uploads, self.url, self.clients.hosted_tokens,
            refresh_interval=self.config.hosted.refresh_interval,
            taken=self._taken_by_its_author, slots=self.hosted_ws_slots,
            games_of=self.live_games_of,
            owns=(lambda name: True) if everything else (lambda name: False))
        self.games.cpu_meter = runner.cpu_ms  # its bots' CPU clocks
        return runner

    async def _run_hosted(self, runner: HostedRunner,
                          share: Coroutine[Any, Any, None] | None = None) -> None:
        """Run the hosted bots (those `share` gives the runner) until cancelled, then
        stop them and their sandboxes."""
        try:
            if share is None:
                await runner.watch()
            else:  # one failing ends the other
                async with asyncio.TaskGroup() as group:
                    group.create_task(runner.watch())
                    group.create_task(share)
        finally:
            await runner.close()

    def hosted_thinking(self) -> list[tuple[str, str, int, float]]:
        """The hosted bots running here that think on a CPU-timed turn now, with the CPU
        time they used on it so far (`HostedRunner.thinking`): a gateway reports it to the
        games' hosts while they think (docs/cluster.md)."""
        return [] if self.hosted is None else self.hosted.thinking()

    def hosted_cpu_ms(self, name: str, game_id: str, turn: int) -> float | None:
        """The CPU time (ms) the hosted bot `name` used on `turn` of `game_id`, if it
        runs here (`HostedRunner.cpu_ms`), else None: a gateway sends it with the move to
        the game's host, whose clock charges it (docs/cluster.md)."""
        runner = self.hosted
        if runner is None or name not in runner.bots:
            return None
        return runner.cpu_ms(name, game_id, turn)

    async def shutdown(self) -> None:
        """Stop the ladder, the challenges and the watches, suspend the live games
        (their moves committed; they stay running in storage and resume on the next
        start), close the clients' connections (1012, service restart). The port
        stops accepting first, and the HTTP side closes after (`arena.app`).

        Safe to call twice, and concurrently; `close` calls it.
        """
        if self._stopping.is_set():
            await self._shut_down.wait()
            return
        self._stopping.set()
        try:
            for task in self._tasks:
                task.cancel()
            for ladder in self.ladders.values():
                await ladder.stop()
            if self._challenges is not None:
                self._challenges.close()
            if self.hosted is not None:  # their sandboxes stop with their clients
                await self.hosted.close()
            if self._games is not None:
                self._games.suspend_all()
                await self._games.wait_suspended(timeout=10)
            if self._leases is not None:  # after the moves are stored: a peer takes over
                try:
                    self.released = len(await self._leases.release())
                except StorageFailure as failure:  # they run out by themselves
                    log.error("the games' leases could not be released: %s", failure)
            # all at once: one by one, ten thousand bots would take ten thousand waits
            await asyncio.gather(*(session.drain_and_close(1012, "server restarting")
                                   for session in list(self.sessions.values())))
        finally:
            self._shut_down.set()

    async def close(self) -> None:
        """`shutdown`, then stop the workers and close the storage if `start` opened
        it (a storage given to `start` is the giver's to close).

        Safe to call twice, and concurrently: later calls wait for the first.
        """
        if self._closing:
            await self._closed.wait()
            return
        self._closing = True
        try:
            await self.shutdown()
            if self.uploads is not None:  # builds in progress finish (they use storage)
                await self.uploads.wait()
            if self._pool is not None:
                await asyncio.to_thread(self._pool.close)
            if self._counters is not None:  # this process's connections stop counting
                await self._counters.close()
            if self._storage is not None and self._owns_storage:
                await self._storage.close()
        finally:
            self._closed.set()

    async def serve_forever(self) -> None:
        await self._closed.wait()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- the parts (from `start` on) ---------------------------------------------------

    @property
    def config(self) -> ServerConfig:
        return self._config

    @property
    def stopping(self) -> bool:
        """Whether the server began to shut down (no game starts any more)."""
        return self._stopping.is_set()

    @property
    def registry(self) -> Registry:
        return self._registry

    @property
    def storage(self) -> Storage:
        """The database (`arena.storage`)."""
        return _started(self._storage)

    @property
    def durability(self) -> Durability:
        return _started(self._durability)

    @property
    def house_bots(self) -> HouseBots:
        """The worker processes that play ``house:SPEC`` seats."""
        return _started(self._house_bots)

    @property
    def upkeep(self) -> DebugLineUpkeep:
        """The disk reserve and the retention period of the bots' debug lines."""
        return _started(self._upkeep)

    @property
    def games(self) -> Games:
        return _started(self._games)

    @property
    def clients(self) -> Clients:
        return _started(self._clients)

    @property
    def challenges(self) -> Challenges:
        """The open challenges (`arena.server.challenges`)."""
        return _started(self._challenges)

    @property
    def live(self) -> dict[str, LiveGame]:
        """The live games by id."""
        return self.games.live

    @property
    def bot_games(self) -> defaultdict[str, set[str]]:
        """The ids of the live games each player plays in."""
        return self.games.bot_games

    @property
    def games_finished(self) -> int:
        return self.games.finished

    @property
    def recovered(self) -> list[str]:
        """Ids of the games left running that could not be resumed at start (their
        record cannot be replayed), recorded as aborted."""
        return self.durability.recovered

    @property
    def resumed(self) -> list[str]:
        """Ids of the games left running, resumed at start from their stored moves."""
        return self.durability.resumed

    @property
    def port(self) -> int:
        """The port it is served on (`arena.app`), once listening."""
        if self._address is None:
            raise RuntimeError("the server is not served on a port yet (arena.app.Arena)")
        return self._address[1]

    @property
    def url(self) -> str:
        """The bots' WebSocket address, once listening."""
        return f"ws://{self.config.host}:{self.port}/"

    def _tell_everybody(self, type: str, /, **fields: Any) -> None:
        for session in list(self.sessions.values()):
            session.send(type, **fields)

    # -- games -------------------------------------------------------------------------

    def start_game(
        self,
        game_name: str,
        settings: Mapping[str, Any],
        players: Sequence[str],
        *,
        seed: int | None = None,
        time_control: TimeControl | None = None,
        ladder: bool = False,
        pair: str | None = None,
        ladder_name: str | None = None,
    ) -> LiveGame:
        """Start a game between connected bots and/or ``house:SPEC`` players.

        Every game's settings are checked against its limits (`arena.limits`; a game
        with a guest among its players against the guests' limits). Unless `seed` is
        given (tournaments, operators' requests), the dice get a fresh 128-bit secret
        seed, committed to in ``game_start`` and revealed in ``game_over``. The game is
        played in a task of its own (``games.task_of(live)``, right after this call),
        which returns its record once stored (`LiveGame.record` is set then too).

        Raises:
            PlayerUnavailable: a named bot is not connected.
            StorageUnavailable: the database cannot store games now.
            SettingsError, BotSpecError: bad settings (or beyond the limits) or a bad
                house bot spec.
            RuntimeError: the server is not running.
        """
        if self._stopping.is_set() or self._games is None:
            raise RuntimeError("the server is not running")
        return self._games.start(game_name, settings, players, seed=seed,
                                 time_control=time_control, ladder=ladder, pair=pair,
                                 ladder_name=ladder_name)

    async def play_game(
        self,
        game_name: str,
        settings: Mapping[str, Any],
        players: Sequence[str],
        *,
        seed: int | None = None,
        time_control: TimeControl | None = None,
    ) -> MatchRecord:
        """Play one game and return its record once it is stored (for tournament runners)."""
        live = self.start_game(game_name, settings, players, seed=seed, time_control=time_control)
        return await asyncio.shield(self.games.task_of(live))

    async def check_revocations(self) -> None:
        """Drop the clients whose token was revoked, replaced or expired since they
        logged in (what the revocation watch does every `revocation_interval`)."""
        await self.clients.revocations.check()

    # -- ladder ------------------------------------------------------------------------

    def _owner_of(self, name: str) -> str | None:
        """The person whose bot `name` is (while it is connected), if any."""
        session = self.sessions.get(name)
        return None if session is None else session.owner

    def _ladder_candidates(self, name: str | None = None) -> list[str]:
        """The players the ladder `name` (default: the first) may pair now."""
        ladder = self.config.find_ladder(name) if name is not None else (
            self.config.all_ladders[0] if self.config.all_ladders else None)
        assert ladder is not None
        if self._durability is None or self._durability.unhealthy is not None:
            return []  # no game can start now
        return ladder_candidates(ladder, self.sessions, self.ladder_games
                                 if self.ladder_games is not None else self.bot_games)

    async def recount_pairings(self) -> None:
        """Count each ladder's pair cap from the pairings stored in the last hour again
        (a host that begins to lead the pairing: others paired before it, docs/cluster.md)."""
        for name, ladder in self.ladders.items():
            ladder.recount(await self._recent_pairings(name))

    async def _recent_pairings(self, name: str) -> list[tuple[float, str, str]]:
        """The pairings of the last hour of the ladder `name`, from the database (the
        pair limit survives a restart); none if the database cannot be read now."""
        storage = self.storage
        try:
            return await storage.ladder_pairings(time.time() - PAIR_WINDOW, name)
        except StorageFailure:
            log.warning("the recent pairings of ladder %r cannot be read: its pair limit "
                        "starts from none", name)
            return []

    def _start_pair(self, ladder: LadderConfig, first: str, second: str) -> None:
        """The two games of a ladder pairing, seats swapped; each with its own secret
        seed (a shared one would tell each bot the other game's dice). A ladder with a
        generator draws both seeds first, then the pairing's start from the smaller one
        (`arena.starts`); both games play it."""
        pair = "p" + uuid.uuid4().hex[:12]
        try:
            settings, seeds = self._pairing_start(ladder, 2)
        except ArenaError as error:
            log.warning("ladder %r: no start could be drawn: %s", ladder.name, error)
            return
        pairing = Pairing(ladder.name, first, second, pair, settings, tuple(seeds))
        if self.pairings_out is not None:
            self.pairings_out(pairing)
        else:
            self.start_pairing(pairing)

    def start_pairing(self, pairing: Pairing) -> None:
        """Start a pairing's two games here (a failure to start one is logged)."""
        ladder = self.config.find_ladder(pairing.ladder)
        if ladder is None:
            log.warning("a pairing of an unknown ladder %r: not played", pairing.ladder)
            return
        first, second, pair, settings = (pairing.first, pairing.second, pairing.pair,
                                         pairing.settings)
        for players, seed in zip(((first, second), (second, first)), pairing.seeds,
                                 strict=True):
            try:
                # an unrated ladder's games are not ladder games to the storage: they
                # keep their ladder's name but change no rating, even once resumed
                self.start_game(ladder.game, settings, players, ladder=ladder.rated, pair=pair,
                                seed=seed, time_control=ladder.time_control,
                                ladder_name=ladder.name)
            except (ArenaError, RuntimeError) as error:
                log.warning("ladder %r: pairing %s failed: %s", ladder.name, players, error)

    def _pairing_start(self, ladder: LadderConfig,
                       games: int) -> tuple[Mapping[str, Any], list[int | None]]:
        """The settings and seeds of a pairing's `games` games on `ladder`: its settings
        and fresh seeds at start (None); or, for a ladder with a generator, the seeds
        drawn now and the start drawn from the smaller one (`arena.starts`).

        Raises:
            ArenaError: the generator's parameters draw no start.
        """
        if ladder.generator is None:
            return ladder.settings, [None] * games
        drawn = [new_seed() for _ in range(games)]
        settings = draw_settings(self.registry.game_class(ladder.game), ladder.generator,
                                 pair_start_seed(drawn))
        return settings, list(drawn)

    # -- hosted bots -------------------------------------------------------------------

    async def _new_version(self, build: BuildRow, directory: Path) -> None:
        """A successful upload: the bot plays it from its next sandbox on (the runner
        reads the hosted bots again now rather than at its next refresh)."""
        del build, directory
        if self.hosted is not None and not self._closing:
            try:
                await self.hosted.refresh()
            except StorageFailure as failure:  # the watch tries again
                log.warning("the hosted bots could not be refreshed: %s", failure)

    def _taken_by_its_author(self, name: str) -> bool:
        """Whether a program of `name`'s author is connected (not the hosted one)."""
        session = self.sessions.get(name)
        return (session is not None and not session.hosted) or self.taken_elsewhere(name)

    # -- views for the HTTP API --------------------------------------------------------
    # -- challenges --------------------------------------------------------------------

    def _notify_challenge(self, name: str, type: str, fields: dict[str, Any]) -> None:
        """Challenge news for a connected bot that opted in to challenges."""
        session = self.sessions.get(name)
        if session is not None and session.challenges:
            session.send(type, **fields)

    async def _ladder_rating(self, name: str, ladder: str) -> float | None:
        """`name`'s displayed rating on the ladder named `ladder` (None: not rated yet)."""
        row = await self.storage.rating(name, ladder)
        return None if row is None else round(row.conservative, 3)

    def _check_challenge(self, challenger: str, opponent: str, rated: bool,
                         ladder_name: str) -> None:
        """Refuse (`ChallengeError`) a challenge the ladder `ladder_name` could not play
        now: both bots connected, playing its game, with room for the pairing's two
        games (`LadderConfig.max_games`); a rated one on a rated ladder, between
        accounts (not guests) of different people (or of nobody) whose pair cap is not
        spent."""
        ladder = self.config.ladder_named(ladder_name)
        if isinstance(ladder, str):
            raise ChallengeError("unknown-ladder", ladder)
        for name in (challenger, opponent):
            session = self.sessions.get(name)
            if session is None:
                raise ChallengeError("bad-challenge", f"bot {name!r} is not connected",
                                     reason="not-connected", bot=name)
            if session.games_played and ladder.game not in session.games_played:
                raise ChallengeError("bad-challenge", f"bot {name!r} does not play "
                                     f"{ladder.game}", reason="other-game", bot=name,
                                     game=ladder.game)
            # the leading host of a cluster counts every host's games (`ladder_games`)
            counted = self.ladder_games if self.ladder_games is not None else {}
            playing = len({*counted.get(name, ()), *self.bot_games.get(name, ())})
            if playing > ladder.max_games - 2:
                raise ChallengeError("bad-challenge", (
                    f"bot {name!r} plays {playing} games already; a pairing needs room for "
                    f"two (at most {ladder.max_games} at once)"), reason="bot-busy", bot=name,
                    count=playing, limit=ladder.max_games)
        if rated and not ladder.rated:
            raise ChallengeError("bad-challenge", f"ladder {ladder.name!r} is unrated: "
                                 "challenge with rated false", reason="unrated-ladder",
                                 ladder=ladder.name)
        if rated and (is_guest(challenger) or is_guest(opponent)):
            raise ChallengeError("bad-challenge", "guests play no rated games: challenge "
                                 "with rated false", reason="guest-rated")
        owner = self._owner_of(challenger)
        if rated and owner is not None and owner == self._owner_of(opponent):
            raise ChallengeError("bad-challenge", (
                f"{challenger} and {opponent} are both bots of {owner}'s, and a person's "
                "bots play no rated games against each other: challenge with rated false"),
                reason="same-owner", owner=owner)
        loop = self.ladders.get(ladder.name)
        if rated and loop is not None and not loop.may_pair(
                challenger, opponent, time.time()):
            raise ChallengeError("bad-challenge", (
                f"{challenger} and {opponent} have been paired "
                f"{ladder.pairings_per_hour} times in the last hour, the ladder's cap "
                "(pairings_per_hour): no more rated games between them for now"),
                reason="pair-cap", count=ladder.pairings_per_hour)

    def _start_challenge(self, challenge: Challenge) -> list[str]:
        """An accepted challenge's games on its ladder's settings (a start drawn for the
        challenge if the ladder varies them) and time control: the pairing (seats
        swapped, each game with its own secret seed), or one game for a person on the
        web, in the seat chosen; rated ones count against the ladder's pair cap and
        change its ratings."""
        ladder = self.config.ladder_named(challenge.ladder)
        if isinstance(ladder, str):
            raise ChallengeError("unknown-ladder", ladder)
        first, second = challenge.challenger, challenge.opponent
        seatings = ([(first, second), (second, first)] if challenge.games == 2
                    else [(first, second) if challenge.seat == 0 else (second, first)])
        control = (self.config.web_time_control if is_guest(first) or is_guest(second)
                   else ladder.time_control)
        pair = "p" + uuid.uuid4().hex[:12]
        started: list[str] = []
        try:
            settings, seeds = self._pairing_start(ladder, len(seatings))
            for players, seed in zip(seatings, seeds, strict=True):
                try:
                    live = self.start_game(ladder.game, settings, players, seed=seed,
                                           time_control=control, ladder=challenge.rated,
                                           pair=pair,
                                           # unrated: no ladder game (its pair cap and
                                           # history are the rated games')
                                           ladder_name=ladder.name if challenge.rated else None)
                except (ArenaError, RuntimeError):
                    if not started:
                        raise
                    log.warning("challenge %s: its second game could not start", challenge.id)
                    break
                started.append(live.id)
        except SettingsError as error:  # the game's own reason: a page says it in its words
            error.params = {"game": ladder.game, **error.params}  # (a raise's dict unchanged)
            raise
        loop = self.ladders.get(ladder.name)
        if challenge.rated and loop is not None:
            loop.paired(first, second, time.time())
        return started

    # -- the service (`arena.service.ArenaService`): what the web asks -----------------

    @property
    def records(self) -> Records:
        return self.storage

    @property
    def counters(self) -> Counters:
        """The budgets' counters (`ServerConfig.shared_limits`; `arena.counters`)."""
        return _started(self._counters)

    @property
    def uploads(self) -> Uploads | None:
        """Uploads and builds of hosted bots (`ServerConfig.hosted`; None: none hosted)."""
        return self._uploads

    async def live_game(self, game_id: str) -> LiveView | None:
        if self.config.role == "gateway":  # the hosts play it: as its moves are stored
            return await self.games.stored_live(game_id)
        return await self.games.stored_view(game_id)

    def live_games_of(self, player: str) -> Collection[str]:
        if self.clients.relay is not None:  # a gateway: its hosts told the player of them
            return self.clients.relay.games_of(player)
        return frozenset(self.games.bot_games.get(player, ()))

    def connected(self, name: str) -> bool:
        relay = self.clients.relay  # a gateway: or to another gateway (docs/cluster.md)
        return name in self.sessions or (relay is not None and relay.connected(name))

    async def launch_game(self, game_name: str, settings: Mapping[str, Any],
                          players: Sequence[str], *, time_control: TimeControl | None = None,
                          pair: str | None = None) -> tuple[str, tuple[str, ...]]:
        relay = self.clients.relay
        if relay is None:
            live = self.start_game(game_name, settings, players, time_control=time_control,
                                   pair=pair)
            return live.id, tuple(live.players)
        guests = [name for name in players if is_guest(name)]  # (its games at once)
        fields = await relay.web("start", {
            "game": game_name, "settings": dict(settings), "players": list(players),
            "time_control": None if time_control is None else time_control.to_json(),
            "pair": pair}, guests[0] if guests else None) or {}
        return str(fields["game_id"]), tuple(str(name) for name in fields["players"])

    async def game_over(self, game_id: str) -> MatchRecord | None:
        live = None if self.config.role == "gateway" else self.games.live.get(game_id)
        if live is not None:
            return await asyncio.shield(self.games.task_of(live))
        while True:  # another process plays it: as stored
            try:
                row = await self.storage.game(game_id)
            except StorageFailure as failure:
                log.warning("game %s could not be looked up: %s", game_id, failure)
            else:
                if row is None or row.status != "running":
                    return None
            await asyncio.sleep(GAME_OVER_POLL)

    async def challenge(self, challenger: str, opponent: str, *, seat: int | None,
                        ladder: str | None = None, rated: bool = False) -> dict[str, Any]:
        ladders = self.config.all_ladders
        named = ladders[0] if ladder is None and ladders else self.config.ladder_named(ladder)
        if isinstance(named, str):
            raise ChallengeError("unknown-ladder", named)
        relay = self.clients.relay
        if relay is not None:  # the leading host keeps the challenges (docs/cluster.md)
            return await relay.web("web_challenge", {
                "challenger": challenger, "opponent": opponent, "seat": seat,
                "ladder": named.name, "rated": rated}, challenger) or {}
        return self.challenges.challenge(
            challenger, opponent, rated=rated, games=2 if seat is None else 1,
            seat=seat or 0, ladder=named.name).status_fields()

    async def challenge_status(self, challenge_id: str) -> dict[str, Any] | None:
        relay = self.clients.relay
        if relay is not None:
            return await relay.web("challenge_status", {"challenge_id": challenge_id})
        found = self.challenges.get(challenge_id)
        if found is not None:
            return found.status_fields()
        if self.challenges.journal is None or not ID_SHAPE.fullmatch(challenge_id):
            return None  # (one process knows every challenge; no id of ours: no read)
        try:  # a cluster's leader: a challenge a former leader ended (docs/cluster.md)
            row = await self.storage.challenge(challenge_id)
        except StorageFailure as failure:
            log.warning("challenge %s not read: %s", challenge_id, failure)
            return None
        return None if row is None or row.ended is None else dict(row.ended)

    def counts(self) -> ServerCounts:
        games, pool = self.games, self.house_bots.pool
        slots = games.hosted_slots
        return ServerCounts(
            # a host's sessions are the bots of every gateway (arena.cluster): none is its own
            connected_bots=0 if self.config.role == "host"
            else sum(1 for session in self.sessions.values() if session.role == "bot"),
            games_in_flight=len(games.live),
            moves=games.moves_ended + sum(live.turn for live in games.live.values()),
            games_finished=games.finished,
            house_bot_jobs=sum(pool.load(worker) for worker in range(pool.size)),
            house_bot_workers=pool.size,
            hosted_slots_used=0 if slots is None else slots.used,
            hosted_slots_peak=0 if slots is None else slots.peak,
            hosted_games_waiting=0 if slots is None else slots.waiting)

    def game_task(self, live: LiveView) -> asyncio.Task[MatchRecord]:
        if not isinstance(live, LiveGame):
            raise TypeError(f"{live!r} is not one of this server's games")
        return self.games.task_of(live)

    def health(self) -> dict[str, Any]:
        """The server's health for ``/healthz`` (`arena.server.health`)."""
        return health_report(
            closing=self._stopping.is_set(),
            failure=self._durability.unhealthy if self._durability is not None else "not started",
            games=self._games, sessions=self.sessions, ladder=bool(self.config.all_ladders),
            recovered=len(self._durability.recovered) if self._durability is not None else 0,
            resumed=len(self._durability.resumed) if self._durability is not None else 0,
            failure_code=self._durability.unhealthy_code if self._durability is not None
            else "not-started")


async def _resume_none(running: Sequence[RunningGame]) -> tuple[list[str], list[str]]:
    """A gateway's start: the games left running are the hosts' to resume."""
    del running
    return [], []


def _started(part: T | None) -> T:
    """A part the server has from `start` on."""
    if part is None:
        raise RuntimeError("start() the server first")
    return part




def subprotocol_response(connection: ServerConnection, request: Any, response: Any) -> Any:
    """websockets' refusal of a handshake that offers none of the server's subprotocols
    (400), worded to name both of them and where they go; any other response as it is."""
    body = bytes(response.body or b"")
    if response.status_code != 400 or b"subprotocol" not in body:
        return None
    offered = [name.strip() for value in request.headers.get_all("Sec-WebSocket-Protocol")
               for name in value.split(",") if name.strip()]
    said = (f"the subprotocols offered ({', '.join(offered)}) are unknown" if offered
            else "no subprotocol was offered")
    worded = connection.respond(400, (
        f"Failed to open a WebSocket connection: {said}; offer "
        f"{' or '.join(SUBPROTOCOLS)} in the Sec-WebSocket-Protocol header "
        "(docs/protocol.md).\n"))
    if "Server" in response.headers:
        worded.headers["Server"] = response.headers["Server"]
    return worded
