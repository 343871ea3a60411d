"""The arena server: its lifecycle, and the parts it wires together.

`ArenaServer` starts and stops the pieces, each with one job: the database
(`arena.storage`: SQLite or PostgreSQL, with `Durability`'s promise that no result is
announced unless stored), house bots in worker processes (`arena.server.house`), the
live games (`arena.server.games`, each a sans-I/O `LiveGame` given the time, and the
grace periods of bots away from them, `arena.server.grace`), the clients' sessions and
messages (`arena.server.clients`, with `arena.server.auth`), the `Ladder`, the health
report (`arena.server.health`) and the HTTP side (`arena.web.app`, aiohttp), served on
the same port (`arena.server.dispatch`). What a stranger can make it do is budgeted
(docs/security.md): connections per address, messages per second, the settings of a
game (`arena.limits`), its state's size, what waits for a client that does not read,
the debug lines it stores (`arena.server.upkeep`); and a storage failure stops new
games instead of announcing results it did not store.
Embedding it::

    server = ArenaServer(ServerConfig(port=0, db="arena.sqlite"))
    await server.start()
    record = await server.play_game("substitution", settings, ["alice", "bob"], seed=1)
    await server.close()
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self, TypeVar

from websockets.asyncio.server import Server, ServerConnection, serve

from arena.errors import ArenaError, SettingsError
from arena.limits import check_settings
from arena.record import MatchRecord
from arena.registry import Registry, default_registry
from arena.sandbox.host import probe_host
from arena.sandbox.slots import HostedSlots
from arena.server.aids import LegalMoves, Notes
from arena.server.auth import Revocations
from arena.server.clients import Clients
from arena.server.config import ServerConfig, TimeControl
from arena.server.connection import ArenaConnection
from arena.server.dispatch import Dispatcher, dispatching
from arena.server.durability import Durability, StorageUnavailable
from arena.server.games import Games, PlayerUnavailable
from arena.server.health import health_report
from arena.server.hosted import HostedRunner
from arena.server.house import HouseBots
from arena.server.ladder import PAIR_WINDOW, Ladder, ladder_candidates
from arena.server.live import LiveGame
from arena.server.session import Outbox, Session
from arena.server.upkeep import DebugLineUpkeep
from arena.server.workers import WorkerPool
from arena.storage import BuildRow, Storage, StorageFailure, open_storage
from arena.uploads import Uploads
from arena.web.app import WebFront
from protocol import PROTOCOL_VERSION, SUBPROTOCOLS

__all__ = ["ArenaServer", "PlayerUnavailable", "StorageUnavailable"]

log = logging.getLogger("arena.server")

T = TypeVar("T")


class ArenaServer:
    """The arena server (see the module docstring).

    Its storage, live games and clients exist from `start` to `close`: reading them
    before `start` raises `RuntimeError`.
    """

    def __init__(self, config: ServerConfig, *, registry: Registry | None = None) -> None:
        self.config = config
        self.registry = registry or default_registry()
        self.sessions: dict[str, Session] = {}
        """The connected bots by name (kept by `clients`)."""
        self.ladder: Ladder | None = None
        self.web: WebFront | None = None
        """The HTTP side (aiohttp), served on the same port (`arena.server.dispatch`)."""
        self.legal_moves = LegalMoves(config.max_legal, config.max_frame // 2)
        self.notes = Notes(config.log_limits)
        self._storage: Storage | None = None
        self._durability: Durability | None = None
        self._house_bots: HouseBots | None = None
        self._games: Games | None = None
        self._upkeep: DebugLineUpkeep | None = None
        self._clients: Clients | None = None
        self._pool: WorkerPool | None = None
        self._outbox = Outbox()
        self._tasks: list[asyncio.Task[None]] = []
        """The watches of the storage and of revoked tokens."""
        self._ws: Server | None = None
        self._closing = False
        self._stopping = asyncio.Event()
        """Set when `close` begins (`_closed` when it is done)."""
        self._closed = asyncio.Event()
        self._dispatching: set[Dispatcher] = set()
        self.uploads: Uploads | None = None
        """Uploads and builds of hosted bots (`ServerConfig.hosted`; None: none hosted)."""
        self.hosted: HostedRunner | None = None
        """The hosted bots playing (`arena.server.hosted`)."""
        self.hosted_slots: HostedSlots | None = None
        """Where games with hosted bots wait their turn."""

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Open the database (aborting games a crash left running), listen, start the ladder."""
        if self._ws is not None:
            raise RuntimeError("the server is already started")
        config = self.config
        if config.ladder is not None:  # fail early on bad settings, and on a ladder that cannot pair
            rules = self.registry.load_game(config.ladder.game, config.ladder.settings)
            if rules.num_players() != 2:
                raise SettingsError(
                    f"the ladder pairs two bots, but {config.ladder.game} with these settings "
                    f"is a {rules.num_players()}-player game: give settings for two players")
            check_settings(rules, "standard", config.settings_limits)
        storage = self._storage = await open_storage(config.db)
        durability = self._durability = Durability(storage, self._stopping, self._tell_everybody)
        await durability.recover()
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
        if hosted.directory is not None:
            probe_host()  # SandboxUnavailable says what is missing
            self.hosted_slots = HostedSlots(hosted.slots)
            self.uploads = Uploads(storage, hosted.directory, build_limits=hosted.build,
                                   upload_limits=hosted.upload,
                                   builds_at_once=hosted.builds_at_once,
                                   queue=hosted.build_queue, on_new_version=self._new_version)
            self.uploads.check_reachable()  # UploadError: which directory to open
        games = self._games = Games(
            config, self.registry, self.sessions, storage=storage, durability=durability,
            house_bots=house_bots, legal_moves=self.legal_moves, notes=self.notes,
            stopping=self._stopping, hosted_slots=self.hosted_slots)
        revocations = Revocations(storage, interval=config.revocation_interval,
                                  purge_interval=config.guest_purge_interval,
                                  drop=lambda session: self.clients.drop(session))
        self._clients = Clients(
            config, self.registry, self.sessions, self._outbox, storage=storage, games=games,
            revocations=revocations, legal_moves=self.legal_moves, notes=self.notes,
            stopping=self._stopping)
        self.web = WebFront(self)
        await self.web.start()
        web = config.web
        self._ws = await serve(
            self._clients.handle,
            config.host,
            config.port,
            subprotocols=[*SUBPROTOCOLS],  # type: ignore[list-item]
            process_request=self._process_request,
            process_response=subprotocol_response,
            create_connection=dispatching(  # type: ignore[arg-type]
                ArenaConnection, self.web.protocol, max_head=web.max_head,
                head_timeout=web.head_timeout, pending=self._dispatching),
            max_size=config.max_ws_frame,
            compression=None,
            ping_interval=config.ping_interval,
            ping_timeout=config.ping_timeout,
            close_timeout=config.close_timeout,
            server_header=f"arena/{PROTOCOL_VERSION}",
        )
        if self.uploads is not None:
            await self.uploads.recover()
            self.hosted = HostedRunner(self.uploads, self.url, self.clients.hosted_tokens,
                                       refresh_interval=hosted.refresh_interval,
                                       taken=self._taken_by_its_author)
            self._tasks.append(loop.create_task(self.hosted.watch(), name="hosted bots"))
        if config.ladder is not None:
            self.ladder = Ladder(config.ladder, self._ladder_candidates, self._start_pair,
                                 await self._recent_pairings())
            self.ladder.start()
        self._tasks.append(loop.create_task(revocations.watch(), name="revocation watch"))
        log.info("arena server listening on %s:%s", config.host, self.port)

    async def close(self) -> None:
        """Stop the ladder, abort and record live games, close connections (1001).

        Safe to call twice, and concurrently: later calls wait for the first.
        """
        if self._closing:
            await self._closed.wait()
            return
        self._closing = True
        self._stopping.set()
        try:
            for task in self._tasks:
                task.cancel()
            if self.ladder is not None:
                await self.ladder.stop()
            if self.hosted is not None:  # their sandboxes stop with their clients
                await self.hosted.close()
            if self._ws is not None:
                self._ws.server.close()  # stop accepting; connections stay open for now
            for dispatcher in list(self._dispatching):  # no request head yet: drop them
                dispatcher.close()
            if self._games is not None:
                self._games.abort_all("the server shut down")
                if self._games.tasks:
                    await asyncio.wait(self._games.tasks, timeout=10)
            # all at once: one by one, ten thousand bots would take ten thousand waits
            await asyncio.gather(*(session.drain_and_close(1001, "server shutting down")
                                   for session in list(self.sessions.values())))
            if self.web is not None:  # HTTP requests in progress finish (they use storage)
                await self.web.close()
            if self.uploads is not None:  # builds in progress finish (they use storage)
                await self.uploads.wait()
            if self._ws is not None:
                self._ws.close()
                await self._ws.wait_closed()
            if self._pool is not None:
                await asyncio.to_thread(self._pool.close)
            if self._storage is not None:
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
        """Ids of the games a crash had left running, recorded as aborted at start."""
        return self.durability.recovered

    @property
    def port(self) -> int:
        assert self._ws is not None, "start() the server first"
        return int(self._ws.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"ws://{self.config.host}:{self.port}/"

    def _tell_everybody(self, type: str, /, **fields: Any) -> None:
        for session in list(self.sessions.values()):
            session.send(type, **fields)

    async def _process_request(self, connection: ServerConnection, request: Any) -> Any:
        """A WebSocket handshake (plain HTTP never gets here): the browser checks."""
        assert self.web is not None
        return await self.web.websocket_request(connection, request)

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
        if self._closing or self._games is None:
            raise RuntimeError("the server is not running")
        return self._games.start(game_name, settings, players, seed=seed,
                                 time_control=time_control, ladder=ladder, pair=pair)

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

    def _ladder_candidates(self) -> list[str]:
        ladder = self.config.ladder
        assert ladder is not None
        if self._durability is None or self._durability.unhealthy is not None:
            return []  # no game can start now
        return ladder_candidates(ladder, self.sessions, self.bot_games)

    async def _recent_pairings(self) -> list[tuple[float, str, str]]:
        """The ladder's pairings of the last hour, from the database (the pair limit
        survives a restart); none if the database cannot be read now."""
        storage = self.storage
        try:
            return await storage.ladder_pairings(time.time() - PAIR_WINDOW)
        except StorageFailure:
            log.warning("the ladder's recent pairings cannot be read: its pair limit "
                        "starts from none")
            return []

    def _start_pair(self, first: str, second: str) -> None:
        """The two games of a ladder pairing, seats swapped; each with its own secret
        seed (a shared one would tell each bot the other game's dice)."""
        ladder = self.config.ladder
        assert ladder is not None
        pair = "p" + uuid.uuid4().hex[:12]
        for players in ((first, second), (second, first)):
            try:
                self.start_game(ladder.game, ladder.settings, players, ladder=True, pair=pair)
            except (ArenaError, RuntimeError) as error:
                log.warning("ladder pairing %s failed: %s", players, error)

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
        return session is not None and not session.hosted

    # -- views for the HTTP API --------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """The server's health for ``/healthz`` (`arena.server.health`)."""
        return health_report(
            closing=self._closing,
            failure=self._durability.unhealthy if self._durability is not None else "not started",
            games=self._games, sessions=self.sessions, ladder=self.config.ladder is not None,
            recovered=len(self._durability.recovered) if self._durability is not None else 0)


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
