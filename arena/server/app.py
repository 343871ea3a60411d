"""The arena server: its lifecycle, and the parts it wires together.

`ArenaServer` starts and stops the pieces, each with one job: the database
(`arena.storage`: SQLite or PostgreSQL, with `Durability`'s promise that no result is
announced unless stored), house bots in worker processes (`arena.server.house`), the
live games (`arena.server.games`, each a sans-I/O `LiveGame` given the time, and the
grace periods of bots away from them, `arena.server.grace`), the clients' sessions and
messages (`arena.server.clients`, with `arena.server.auth`), the `Ladder`, the health
report (`arena.server.health`) and the HTTP side it is given (an `HttpFront`: the web,
`arena.web`, which the composition root `arena.app` hands it), served on the same port
(`arena.server.dispatch`). To the web it is an `arena.service.ArenaService`, the one
interface the web uses; the server never imports the web. What a stranger can make it do is budgeted
(docs/security.md): connections per address, messages per second, the settings of a
game (`arena.limits`), its state's size, what waits for a client that does not read,
the debug lines it stores (`arena.server.upkeep`); and a storage failure stops new
games instead of announcing results it did not store.
Embedding it (without the web: `arena.app.Arena` is the whole arena)::

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
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Self, TypeVar

from websockets.asyncio.server import Server, ServerConnection, serve

from arena.errors import ArenaError, SettingsError
from arena.limits import check_settings
from arena.names import is_guest
from arena.record import MatchRecord
from arena.registry import Registry, default_registry
from arena.sandbox.host import probe_host
from arena.sandbox.slots import HostedSlots
from arena.server.aids import LegalMoves, Notes
from arena.server.auth import Revocations
from arena.server.challenges import Challenge, ChallengeError, Challenges
from arena.server.clients import Clients
from arena.server.config import ServerConfig, TimeControl
from arena.server.connection import ArenaConnection
from arena.server.dispatch import Dispatcher, dispatching, no_http
from arena.server.durability import Durability, StorageUnavailable
from arena.server.games import Games, PlayerUnavailable
from arena.server.health import health_report
from arena.server.hosted import HostedRunner
from arena.server.house import HouseBots
from arena.server.ladder import PAIR_WINDOW, Ladder, ladder_candidates
from arena.server.live import LiveGame
from arena.server.session import Outbox, Session
from arena.server.upkeep import DebugLineUpkeep
from arena.service import ArenaService, HttpFront, LiveView, Records, ServerCounts
from arena.storage import BuildRow, Storage, StorageFailure, open_storage
from arena.uploads import Uploads
from arena.workers import WorkerPool
from protocol import PROTOCOL_VERSION, SUBPROTOCOLS

__all__ = ["ArenaServer", "PlayerUnavailable", "StorageUnavailable"]

log = logging.getLogger("arena.server")

T = TypeVar("T")

FrontFactory = Callable[[ArenaService], HttpFront]
"""Makes the HTTP side of a server, given the server as its service (`arena.app`)."""


class ArenaServer(ArenaService):
    """The arena server (see the module docstring), an `ArenaService`.

    Its storage, live games and clients exist from `start` to `close`: reading them
    before `start` raises `RuntimeError`.

    Args:
        config: its settings.
        registry: its plugins (by default the built-in and installed ones).
        front: makes its HTTP side, given the server (`arena.app` gives the web); without
            one, a plain HTTP request to the port is answered 404.
    """

    def __init__(self, config: ServerConfig, *, registry: Registry | None = None,
                 front: FrontFactory | None = None) -> None:
        self._config = config
        self._registry = registry or default_registry()
        self._front_factory = front
        self.sessions: dict[str, Session] = {}
        """The connected bots by name (kept by `clients`)."""
        self.ladder: Ladder | None = None
        self.front: HttpFront | None = None
        """The HTTP side, served on the same port (`arena.server.dispatch`), from `start` on."""
        self.legal_moves = LegalMoves(config.max_legal, config.max_frame // 2)
        self.notes = Notes(config.log_limits)
        self._storage: Storage | None = None
        self._durability: Durability | None = None
        self._house_bots: HouseBots | None = None
        self._games: Games | None = None
        self._upkeep: DebugLineUpkeep | None = None
        self._clients: Clients | None = None
        self._challenges: Challenges | None = None
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
        self._uploads: Uploads | None = None
        self.hosted: HostedRunner | None = None
        """The hosted bots playing (`arena.server.hosted`)."""
        self.hosted_slots: HostedSlots | None = None
        """Where games with hosted bots wait their turn."""

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Open the database (resuming the games a stop or crash left running), listen,
        start the ladder."""
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
            self._uploads = Uploads(storage, hosted.directory, build_limits=hosted.build,
                                   upload_limits=hosted.upload,
                                   builds_at_once=hosted.builds_at_once,
                                   queue=hosted.build_queue, on_new_version=self._new_version)
            self._uploads.check_reachable()  # UploadError: which directory to open
        games = self._games = Games(
            config, self.registry, self.sessions, storage=storage, durability=durability,
            house_bots=house_bots, legal_moves=self.legal_moves, notes=self.notes,
            stopping=self._stopping, write_ahead=config.write_ahead,
            hosted_slots=self.hosted_slots)
        durability.resume = games.restore_running  # running games resume from their moves
        await durability.recover()
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
            revocations=revocations, legal_moves=self.legal_moves, notes=self.notes,
            challenges=challenges, stopping=self._stopping)
        if self._front_factory is not None:
            self.front = self._front_factory(self)
            await self.front.start()
        web = config.web
        self._ws = await serve(
            self._clients.handle,
            config.host,
            config.port,
            subprotocols=[*SUBPROTOCOLS],  # type: ignore[list-item]
            process_request=self._process_request,
            process_response=subprotocol_response,
            create_connection=dispatching(  # type: ignore[arg-type]
                ArenaConnection, self.front.protocol if self.front is not None else no_http,
                max_head=web.max_head,
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
        """Stop the ladder, suspend the live games (they stay running in storage and
        resume on the next start), close connections (1012, service restart).

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
            if self._challenges is not None:
                self._challenges.close()
            if self.hosted is not None:  # their sandboxes stop with their clients
                await self.hosted.close()
            if self._ws is not None:
                self._ws.server.close()  # stop accepting; connections stay open for now
            for dispatcher in list(self._dispatching):  # no request head yet: drop them
                dispatcher.close()
            if self._games is not None:
                self._games.suspend_all()
                await self._games.wait_suspended(timeout=10)
            # all at once: one by one, ten thousand bots would take ten thousand waits
            await asyncio.gather(*(session.drain_and_close(1012, "server restarting")
                                   for session in list(self.sessions.values())))
            if self.front is not None:  # HTTP requests in progress finish (they use storage)
                await self.front.close()
            if self.uploads is not None:  # builds in progress finish (they use storage)
                await self.uploads.wait()
            if self._ws is not None:
                self._ws.close(code=1012, reason="server restarting")
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
    def config(self) -> ServerConfig:
        return self._config

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
        assert self._ws is not None, "start() the server first"
        return int(self._ws.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"ws://{self.config.host}:{self.port}/"

    def _tell_everybody(self, type: str, /, **fields: Any) -> None:
        for session in list(self.sessions.values()):
            session.send(type, **fields)

    async def _process_request(self, connection: ServerConnection, request: Any) -> Any:
        """A WebSocket handshake (plain HTTP never gets here): the HTTP side's checks of
        a browser's (host, origin), and the guest cookie it carries (`ArenaConnection`)."""
        if self.front is None:
            return None
        handshake = await self.front.check_handshake(connection, request)
        if handshake.refusal is not None:
            return handshake.refusal
        if handshake.guest_token is not None and isinstance(connection, ArenaConnection):
            connection.cookie_token = handshake.guest_token
        return None

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
    # -- challenges --------------------------------------------------------------------

    def _notify_challenge(self, name: str, type: str, fields: dict[str, Any]) -> None:
        """Challenge news for a connected bot that opted in to challenges."""
        session = self.sessions.get(name)
        if session is not None and session.challenges:
            session.send(type, **fields)

    async def _ladder_rating(self, name: str) -> float | None:
        """`name`'s displayed rating on the ladder's game (None: not rated yet)."""
        ladder = self.config.ladder
        row = None if ladder is None else await self.storage.rating(name, ladder.game)
        return None if row is None else round(row.conservative, 3)

    def _check_challenge(self, challenger: str, opponent: str, rated: bool) -> None:
        """Refuse (`ChallengeError`) a challenge the ladder could not play now: both
        bots connected, playing its game, with room for the pairing's two games
        (`LadderConfig.max_games`); a rated one between accounts (not guests) whose
        pair cap is not spent."""
        ladder = self.config.ladder
        if ladder is None:
            raise ChallengeError("bad-challenge", "this server has no ladder to play "
                                 "challenges on")
        for name in (challenger, opponent):
            session = self.sessions.get(name)
            if session is None:
                raise ChallengeError("bad-challenge", f"bot {name!r} is not connected")
            if session.games_played and ladder.game not in session.games_played:
                raise ChallengeError("bad-challenge", f"bot {name!r} does not play "
                                     f"{ladder.game}")
            playing = len(self.bot_games.get(name, ()))
            if playing > ladder.max_games - 2:
                raise ChallengeError("bad-challenge", (
                    f"bot {name!r} plays {playing} games already; a pairing needs room for "
                    f"two (at most {ladder.max_games} at once)"))
        if rated and (is_guest(challenger) or is_guest(opponent)):
            raise ChallengeError("bad-challenge", "guests play no rated games: challenge "
                                 "with rated false")
        if rated and self.ladder is not None and not self.ladder.may_pair(
                challenger, opponent, time.time()):
            raise ChallengeError("bad-challenge", (
                f"{challenger} and {opponent} have been paired "
                f"{ladder.pairings_per_hour} times in the last hour, the ladder's cap "
                "(pairings_per_hour): no more rated games between them for now"))

    def _start_challenge(self, challenge: Challenge) -> list[str]:
        """An accepted challenge's games on the ladder's settings: the pairing (seats
        swapped, each game with its own secret seed), or one game for a person on the
        web, in the seat chosen; rated ones count against the ladder's pair cap."""
        ladder = self.config.ladder
        assert ladder is not None
        first, second = challenge.challenger, challenge.opponent
        seatings = ([(first, second), (second, first)] if challenge.games == 2
                    else [(first, second) if challenge.seat == 0 else (second, first)])
        control = (self.config.web_time_control if is_guest(first) or is_guest(second)
                   else None)
        pair = "p" + uuid.uuid4().hex[:12]
        started: list[str] = []
        for players in seatings:
            try:
                live = self.start_game(ladder.game, ladder.settings, players,
                                       time_control=control, ladder=challenge.rated,
                                       pair=pair)
            except (ArenaError, RuntimeError):
                if not started:
                    raise
                log.warning("challenge %s: its second game could not start", challenge.id)
                break
            started.append(live.id)
        if challenge.rated and self.ladder is not None:
            self.ladder.paired(first, second, time.time())
        return started

    # -- the service (`arena.service.ArenaService`): what the web asks -----------------

    @property
    def records(self) -> Records:
        return self.storage

    @property
    def uploads(self) -> Uploads | None:
        """Uploads and builds of hosted bots (`ServerConfig.hosted`; None: none hosted)."""
        return self._uploads

    async def live_game(self, game_id: str) -> LiveView | None:
        return await self.games.stored_view(game_id)

    def live_games_of(self, player: str) -> Collection[str]:
        return frozenset(self.games.bot_games.get(player, ()))

    def connected(self, name: str) -> bool:
        return name in self.sessions

    def challenge(self, challenger: str, opponent: str, *, seat: int) -> dict[str, Any]:
        return self.challenges.challenge(challenger, opponent, rated=False, games=1,
                                         seat=seat).status_fields()

    def challenge_status(self, challenge_id: str) -> dict[str, Any] | None:
        found = self.challenges.get(challenge_id)
        return None if found is None else found.status_fields()

    def counts(self) -> ServerCounts:
        games, pool = self.games, self.house_bots.pool
        return ServerCounts(
            connected_bots=sum(1 for session in self.sessions.values() if session.role == "bot"),
            games_in_flight=len(games.live),
            moves=games.moves_ended + sum(live.turn for live in games.live.values()),
            games_finished=games.finished,
            house_bot_jobs=sum(pool.load(worker) for worker in range(pool.size)),
            house_bot_workers=pool.size)

    def game_task(self, live: LiveView) -> asyncio.Task[MatchRecord]:
        if not isinstance(live, LiveGame):
            raise TypeError(f"{live!r} is not one of this server's games")
        return self.games.task_of(live)

    def health(self) -> dict[str, Any]:
        """The server's health for ``/healthz`` (`arena.server.health`)."""
        return health_report(
            closing=self._closing,
            failure=self._durability.unhealthy if self._durability is not None else "not started",
            games=self._games, sessions=self.sessions, ladder=self.config.ladder is not None,
            recovered=len(self._durability.recovered) if self._durability is not None else 0,
            resumed=len(self._durability.resumed) if self._durability is not None else 0)


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
