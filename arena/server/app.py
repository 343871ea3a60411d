"""The arena server: WebSocket sessions, live games, the ladder and the HTTP API.

`ArenaServer` is the asyncio layer around the pieces: `protocol.ProtocolCore` per
connection (`Session`), `LiveGame` runners, `Storage` in a worker thread, house bots in
worker processes (`arena.server.house`), the `Ladder`, and the HTTP side
(`arena.web.app`, aiohttp), served on the same port (`arena.server.dispatch`). What a
stranger can make it do is budgeted (docs/security.md): connections per address,
messages per second, the settings of a game (`arena.limits`), its state's size, what
waits for a client that does not read; and a storage failure stops new games instead
of announcing results it did not store. Embedding it::

    server = ArenaServer(ServerConfig(port=0, db="arena.sqlite"))
    await server.start()
    record = await server.play_game("substitution", settings, ["alice", "bob"], seed=1)
    await server.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Self

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from arena.bots import EXEC_PREFIX
from arena.errors import ArenaError, BotSpecError, SettingsError
from arena.game import Termination
from arena.limits import Tier, check_settings
from arena.match import Match
from arena.record import MatchRecord, to_jsonl
from arena.registry import Registry, default_registry
from arena.seeds import new_seed, seed_commitment, seed_to_text
from arena.server.aids import LegalMoves, Notes, Reply
from arena.server.config import ServerConfig, TimeControl
from arena.server.connection import ArenaConnection
from arena.server.dispatch import Dispatcher, dispatching
from arena.server.durability import STORAGE_UNAVAILABLE, Durability, StorageUnavailable
from arena.server.house import HouseBots
from arena.server.ladder import Ladder
from arena.server.limits import AddressCounter, MessageRate
from arena.server.live import GameHost, HousePlayer, LiveGame, run_game
from arena.server.names import HOUSE_PREFIX, is_guest, is_house
from arena.server.session import Outbox, Session
from arena.server.storage import AsyncStorage, Storage, StorageFailure, hash_token
from arena.server.workers import JobFailed, WorkerPool
from arena.web.app import WebFront
from protocol import (
    CAPABILITIES,
    PROTOCOL_VERSION,
    SUBPROTOCOLS,
    AuthenticationError,
    Encoding,
    Message,
    ProtocolCore,
    ProtocolError,
    UnexpectedMessage,
    VersionError,
)

__all__ = ["ArenaServer", "PlayerUnavailable", "StorageUnavailable"]

log = logging.getLogger("arena.server")

CLOSE_UNAUTHORIZED = 4001
CLOSE_VERSION = 4002
CLOSE_HELLO_TIMEOUT = 4003
CLOSE_REPLACED = 4004
CLOSE_ERRORS = 4005
CLOSE_RATE = 4006
CLOSE_TRY_LATER = 1013


async def _prepare_house(live: LiveGame) -> None:
    """Build and prepare the house bots in a worker before the game's clock starts; a
    house bot that cannot prepare forfeits."""
    assert live.house_bots is not None
    for seat, player in live.house.items():
        try:
            await live.house_bots.prepare(player.key)
        except JobFailed as failure:
            live.forfeit(seat, Termination.ILLEGAL_MOVE,
                         f"house bot {player.spec} failed to prepare: {failure}")


class PlayerUnavailable(ArenaError):
    """A game was requested for a bot that is not connected (or plays another game)."""


class ArenaServer(GameHost):
    """The arena server (see the module docstring)."""

    def __init__(self, config: ServerConfig, *, registry: Registry | None = None) -> None:
        self.config = config
        self.registry = registry or default_registry()
        self.sessions: dict[str, Session] = {}
        self.live: dict[str, LiveGame] = {}
        self.bot_games: defaultdict[str, set[str]] = defaultdict(set)
        self.storage: AsyncStorage | None = None
        self.durability: Durability | None = None
        self.ladder: Ladder | None = None
        self.house_bots: HouseBots | None = None
        self._pool: WorkerPool | None = None
        self._addresses = AddressCounter(config.max_connections_per_address)
        self._grace: dict[str, list[asyncio.TimerHandle]] = {}
        """Per disconnected bot, a forfeit timer per game grace period it plays under."""
        self._outbox = Outbox()
        self._tokens: dict[Session, str] = {}
        """The token hash each authenticated session (bot or operator) logged in with."""
        self._revocations: asyncio.Task[None] | None = None
        self._storage_watch: asyncio.Task[None] | None = None
        self._ws: Server | None = None
        self._closing = False
        self._stopping = asyncio.Event()
        """Set when `close` begins (`_closed` when it is done)."""
        self._closed = asyncio.Event()
        self._game_tasks: set[asyncio.Task[Any]] = set()
        self.games_finished = 0
        self.web: WebFront | None = None
        """The HTTP side (aiohttp), served on the same port (`arena.server.dispatch`)."""
        self._dispatching: set[Dispatcher] = set()
        self.legal_moves = LegalMoves(config.max_legal, config.max_frame // 2)
        self.notes = Notes(config.log_limits)

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Open the database (aborting games a crash left running), listen, start the ladder."""
        if self._ws is not None:
            raise RuntimeError("the server is already started")
        ladder = self.config.ladder
        if ladder is not None:  # fail early on bad settings, and on a ladder that cannot pair
            rules = self.registry.load_game(ladder.game, ladder.settings)
            if rules.num_players() != 2:
                raise SettingsError(
                    f"the ladder pairs two bots, but {ladder.game} with these settings is a "
                    f"{rules.num_players()}-player game: give settings for two players")
            check_settings(rules, "standard", self.config.settings_limits)
        self.storage = AsyncStorage(Storage(self.config.db))
        self.durability = Durability(self.storage, self._stopping, self._tell_everybody)
        await self.durability.recover()
        loop = asyncio.get_running_loop()
        self._storage_watch = loop.create_task(
            self.storage.watch(self.config.storage_probe_interval), name="storage watch")
        self._pool = WorkerPool(self.config.workers)
        self.house_bots = HouseBots(self._pool, self.registry, self.config.house_prepare_timeout)
        self.web = WebFront(self)
        await self.web.start()
        web = self.config.web
        self._ws = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            subprotocols=[*SUBPROTOCOLS],  # type: ignore[list-item]
            process_request=self._process_request,
            create_connection=dispatching(  # type: ignore[arg-type]
                ArenaConnection, self.web.protocol, max_head=web.max_head,
                head_timeout=web.head_timeout, pending=self._dispatching),
            max_size=self.config.max_ws_frame,
            compression=None,
            ping_interval=self.config.ping_interval,
            ping_timeout=self.config.ping_timeout,
            close_timeout=self.config.close_timeout,
            server_header=f"arena/{PROTOCOL_VERSION}",
        )
        if self.config.ladder is not None:
            ladder = self.config.ladder
            self.ladder = Ladder(ladder, self._ladder_candidates, self._start_pair)
            self.ladder.start()
        self._revocations = asyncio.get_running_loop().create_task(self._watch_revocations())
        log.info("arena server listening on %s:%s", self.config.host, self.port)

    @property
    def recovered(self) -> list[str]:
        """Ids of the games a crash had left running, recorded as aborted at start."""
        return self.durability.recovered if self.durability is not None else []

    def _tell_everybody(self, type: str, /, **fields: Any) -> None:
        for session in list(self.sessions.values()):
            session.send(type, **fields)

    @property
    def port(self) -> int:
        assert self._ws is not None, "start() the server first"
        return int(self._ws.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"ws://{self.config.host}:{self.port}/"

    async def serve_forever(self) -> None:
        await self._closed.wait()

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
            if self._revocations is not None:
                self._revocations.cancel()
            if self._storage_watch is not None:
                self._storage_watch.cancel()
            if self.ladder is not None:
                await self.ladder.stop()
            if self._ws is not None:
                self._ws.server.close()  # stop accepting; connections stay open for now
            for dispatcher in list(self._dispatching):  # no request head yet: drop them
                dispatcher.close()
            for live in list(self.live.values()):
                live.abort("the server shut down")
            if self._game_tasks:
                await asyncio.wait(self._game_tasks, timeout=10)
            for handles in self._grace.values():
                for handle in handles:
                    handle.cancel()
            # all at once: one by one, ten thousand bots would take ten thousand waits
            await asyncio.gather(*(session.drain_and_close(1001, "server shutting down")
                                   for session in list(self.sessions.values())))
            if self.web is not None:  # HTTP requests in progress finish (they use storage)
                await self.web.close()
            if self._ws is not None:
                self._ws.close()
                await self._ws.wait_closed()
            if self._pool is not None:
                await asyncio.to_thread(self._pool.close)
            if self.storage is not None:
                self.storage.close()
        finally:
            self._closed.set()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

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
        seed, committed to in ``game_start`` and revealed in ``game_over``.

        Raises:
            PlayerUnavailable: a named bot is not connected.
            StorageUnavailable: the database cannot store games now.
            SettingsError, BotSpecError: bad settings (or beyond the limits) or a bad
                house bot spec.
        """
        if self._closing or self.durability is None or self.house_bots is None:
            raise RuntimeError("the server is not running")
        self.durability.check()
        game = self.registry.load_game(game_name, settings)
        tier: Tier = "guest" if any(is_guest(name) for name in players) else "standard"
        check_settings(game, tier, self.config.guest_settings_limits if tier == "guest"
                       else self.config.settings_limits)
        if len(players) != game.num_players():
            raise ValueError(f"{game_name} needs {game.num_players()} players, got {len(players)}")
        house: dict[int, HousePlayer] = {}
        for seat, name in enumerate(players):
            if is_house(name):
                spec = name[len(HOUSE_PREFIX):]
                if spec.lstrip().startswith(EXEC_PREFIX):
                    raise BotSpecError(f"{name!r}: a server never runs a program a client names")
                specs = self.registry.parse_bots(game_name, spec)
                if len(specs) != 1:
                    raise BotSpecError(f"{name!r} names {len(specs)} bots, not one")
                house[seat] = HousePlayer(spec, self.house_bots.key(game, str(specs[0])))
                continue
            session = self.sessions.get(name)
            if session is None:
                raise PlayerUnavailable(f"bot {name!r} is not connected")
            if session.games_played and game_name not in session.games_played:
                raise PlayerUnavailable(f"bot {name!r} does not play {game_name}")
        seed = new_seed() if seed is None else seed
        game_id = "g" + uuid.uuid4().hex[:12]
        match: Match = Match(game, players, seed=seed, match_id=game_id,
                             seed_commitment=seed_commitment(game_id, seed))
        live = LiveGame(game_id, game, match, time_control or self.config.time_control, self,
                        ladder=ladder, pair=pair, house=house, house_bots=self.house_bots,
                        max_state_bytes=self.config.max_state_bytes)
        self.live[game_id] = live
        for name in set(players):
            self.bot_games[name].add(game_id)
        task = asyncio.get_running_loop().create_task(self._play(live), name=f"game {game_id}")
        live.task = task
        self._game_tasks.add(task)
        task.add_done_callback(self._game_tasks.discard)
        return live

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
        assert live.task is not None
        return await asyncio.shield(live.task)

    async def _play(self, live: LiveGame) -> MatchRecord:
        assert self.storage is not None
        storage = self.storage.storage
        match = live.match
        try:
            await self.storage.call(storage.start_game, match.record(), ladder=live.ladder,
                                    pair=live.pair)
        except StorageFailure as failure:
            # not stored, so not started: nobody was told of it yet
            self._forget(live)
            raise StorageUnavailable(str(failure)) from None
        try:
            if live.house:
                await _prepare_house(live)
            await run_game(live)
        except Exception as error:  # never lose a game to a bug: record it as aborted
            log.exception("game %s failed", live.id)
            if match.outcome is None:
                match.abort(f"server error: {error!r}")
        except asyncio.CancelledError:
            if match.outcome is None:
                match.abort("the server shut down")
        if match.outcome is None:
            match.abort("the server shut down")
        record = match.record()
        log_text = to_jsonl(record)
        try:
            # committed (with the rating update) before anybody hears of the result
            assert self.durability is not None
            await self.durability.store_result(
                record, rated=live.ladder, log=log_text,
                players=[functools.partial(self.send_to, name) for name in set(live.players)])
        except BaseException:
            # not stored, so not announced; the row stays 'running' and the next start
            # records it as aborted
            log.error("game %s: the result could not be stored; it is not announced", live.id)
            self._forget(live)
            raise
        live.record = record
        live.log = log_text
        self.games_finished += 1
        self._announce_end(live, record)
        return record

    def _game_over_fields(self, live: LiveGame, record: MatchRecord) -> dict[str, Any]:
        outcome = record.outcome
        assert outcome is not None
        return {
            "game_id": live.id, "result": outcome.result, "winner": outcome.winner,
            "scores": list(outcome.scores) if outcome.scores is not None else None,
            "termination": outcome.termination.value,
            "reason": outcome.detail or "the game ended", "log_id": live.id,
            "seed": None if record.seed is None else seed_to_text(record.seed),
        }

    def _announce_end(self, live: LiveGame, record: MatchRecord) -> None:
        fields = self._game_over_fields(live, record)
        for name in set(live.players):
            self.send_to(name, "game_over", **fields)
        self.send_spectators(live, "game_over", **fields)
        self._forget(live)

    def _forget(self, live: LiveGame) -> None:
        self.legal_moves.forget(live.id)
        self.notes.forget(live.id)
        for session in live.spectators:
            session.spectating.discard(live.id)
        self.live.pop(live.id, None)
        for name in set(live.players):
            games = self.bot_games.get(name)
            if games is not None:
                games.discard(live.id)
                if not games:
                    del self.bot_games[name]
                    for handle in self._grace.pop(name, ()):
                        handle.cancel()

    # -- GameHost ----------------------------------------------------------------------

    def send_to(self, name: str, type: str, /, **fields: Any) -> bool:
        session = self.sessions.get(name)
        if session is None:
            return True  # away: it hears everything again when it is back
        if type == "your_turn" and session.rate is not None:
            session.rate.credit()  # a turn asks for a move: that message is budgeted
        return session.send(type, **fields)

    def uses(self, name: str, capability: str) -> bool:
        session = self.sessions.get(name)
        return session is not None and capability in session.capabilities

    def turn_extras(self, live: LiveGame, seat: int) -> dict[str, Any]:
        if self.uses(live.players[seat], "legal-moves"):
            return self.legal_moves.turn_fields(live)
        return {}

    def send_spectators(self, live: LiveGame, type: str, /, **fields: Any) -> None:
        if live.spectators:
            message = (Message.make if self.config.validate_outgoing else Message.unchecked)(
                type, **fields)
            for session in list(live.spectators):
                session.send_message(message)

    # -- ladder ------------------------------------------------------------------------

    def _ladder_candidates(self) -> list[str]:
        ladder = self.config.ladder
        assert ladder is not None
        if self.durability is None or self.durability.unhealthy is not None:
            return []  # no game can start now
        room = ladder.max_games - 2
        names = [
            name for name, session in self.sessions.items()
            if session.role == "bot" and not is_guest(name)
            and (not session.games_played or ladder.game in session.games_played)
            and len(self.bot_games.get(name, ())) <= room
        ]
        if names or ladder.house_vs_house:
            names += [
                HOUSE_PREFIX + spec for spec in ladder.house
                if len(self.bot_games.get(HOUSE_PREFIX + spec, ())) <= room
            ]
        return names

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

    # -- connections -------------------------------------------------------------------

    async def _process_request(self, connection: ServerConnection, request: Any) -> Any:
        """A WebSocket handshake (plain HTTP never gets here): the browser checks."""
        assert self.web is not None
        return await self.web.websocket_request(connection, request)

    async def _handle(self, ws: ServerConnection) -> None:
        """A connection's task: the handshake, and any frame the fast path (`_on_frame`)
        leaves to it (fragmented messages, frames queued behind a busy one)."""
        address = str(ws.remote_address[0]) if ws.remote_address else "?"
        if not self._addresses.admit(address):
            await ws.close(CLOSE_TRY_LATER, f"too many connections from {address} (at most "
                                            f"{self._addresses.limit})")
            return
        try:
            await self._serve_connection(ws)
        finally:
            self._addresses.release(address)

    async def _serve_connection(self, ws: ServerConnection) -> None:
        config = self.config
        loop = asyncio.get_running_loop()
        encoding = Encoding.from_subprotocol(ws.subprotocol)
        core = ProtocolCore("server", encoding, max_frame=config.max_frame,
                            max_send=config.max_frame)
        rate = (MessageRate(config.message_rate, config.message_burst, loop.time())
                if config.message_rate > 0 else None)
        session = Session(ws, core, max_queue_bytes=config.max_queue_bytes,
                          validate=config.validate_outgoing, outbox=self._outbox, rate=rate)

        def no_hello() -> None:
            if not session.role:
                session.close(CLOSE_HELLO_TIMEOUT, "no hello in time")

        timer = loop.call_later(config.hello_timeout, no_hello)
        try:
            async for frame in ws:
                session.busy = True  # frames arriving meanwhile queue behind this one
                try:
                    if not await self._handle_frame(session, frame):
                        return
                finally:
                    session.busy = False
                if session.role and isinstance(ws, ArenaConnection) and ws.on_frame is None:
                    ws.on_frame = functools.partial(self._on_frame, session)
        except ConnectionClosed:
            pass
        finally:
            timer.cancel()
            if isinstance(ws, ArenaConnection):
                ws.on_frame = None
            self._disconnected(session)
            await session.finished()

    async def _handle_frame(self, session: Session, frame: bytes | str) -> bool:
        """Act on one frame in the connection's task; False when the connection must end."""
        if session.role:  # past the handshake nothing waits: the same code as the fast path
            self._take_frame(session, frame)
            return not session.closed
        if not self._within_rate(session):
            return False
        core = session.core
        core.receive_data(frame)
        for event in core.events_received():
            if isinstance(event, ProtocolError):
                if event.fatal:
                    session.flush()
                    await session.drain_and_close(CLOSE_ERRORS, event.code)
                    return False
                continue
            if not await self._handshake(session, event):
                return False
        session.flush()  # errors the core queued itself, and the answers
        return True

    def _on_frame(self, session: Session, frame: bytes | str) -> bool:
        """The fast path: a frame from a client past its handshake, judged in the very
        callback that read it (no task switch). False: not handled here (an older
        frame is still being handled), the connection's task takes it."""
        if session.busy:
            return False
        if not session.closed:
            self._take_frame(session, frame)
        return True

    def _within_rate(self, session: Session) -> bool:
        """Charge a frame to the client's message budget; over it, the client gets a
        fatal ``rate-limited`` error and the connection closes (4006)."""
        rate = session.rate
        if rate is None or rate.take(asyncio.get_running_loop().time()):
            return True
        log.warning("closing %r: more than %g messages a second", session, rate.rate)
        session.send("error", code="rate-limited", fatal=True,
                     message=f"more than {rate.rate:g} messages a second (bursts of "
                             f"{rate.burst}) beyond what the server asked for; closing")
        session.hang_up(CLOSE_RATE, "message rate limit")
        return False

    def _take_frame(self, session: Session, frame: bytes | str) -> None:
        """Act on a frame from a client past its handshake. Every message there is
        handled synchronously, so nothing waits; a bug drops this client only."""
        if not self._within_rate(session):
            return
        outbox = self._outbox
        core = session.core
        try:
            core.receive_data(frame)
            outbox.holding = True
            try:
                for event in core.events_received():
                    if isinstance(event, ProtocolError):
                        if event.fatal:
                            session.flush()
                            session.close(CLOSE_ERRORS, event.code)
                            return
                        continue
                    self._act(session, event)
            finally:
                outbox.holding = False
            session.flush()  # errors the core queued itself, and the answers
            outbox.flush()  # what the frame caused for other clients
        except Exception:  # must not break websockets' reading: drop this client
            log.exception("handling a frame from %r failed", session)
            session.close(1011, "internal error")

    async def _handshake(self, session: Session, message: Message) -> bool:
        """A message before the handshake is done; False when the connection must end."""
        kind = message.type
        if kind == "ping":
            session.send("pong", id=message["id"])
        elif kind == "hello":
            return await self._hello(session, message)
        elif kind not in ("pong", "error"):
            self._error(session, UnexpectedMessage(f"send 'hello' first, not {kind!r}"))
        return True

    def _act(self, session: Session, message: Message) -> None:
        """Act on one message from a client past its handshake (never waits)."""
        kind = message.type
        if kind == "move":
            self._move(session, message)
        elif kind == "ping":
            session.send("pong", id=message["id"])
        elif kind in ("pong", "error"):
            return
        elif kind == "hello":
            self._error(session, UnexpectedMessage("the handshake is already done"))
        elif kind == "resign":
            live = self._own_game(session, message["game_id"])
            if live is not None:
                live.forfeit_player(session.name or "", Termination.RESIGNATION,
                                    f"{session.name} resigned")
        elif kind == "spectate":
            live = self.live.get(message["game_id"])
            if live is None:
                self._game_error(session, message["game_id"], "unknown-game", "no such live game")
            else:
                live.spectators.add(session)
                session.spectating.add(live.id)
                session.send("game_state", **live.state_message())
        elif kind == "unspectate":
            live = self.live.get(message["game_id"])
            if live is not None:
                live.spectators.discard(session)
            session.spectating.discard(message["game_id"])
        elif kind == "request_game":
            self._request_game(session, message)
        elif kind in ("legal", "log"):
            self._aid(session, message)

    def _error(self, session: Session, error: ProtocolError, game_id: str | None = None) -> None:
        session.core.send_error(error, game_id=game_id)
        session.flush()

    def _game_error(self, session: Session, game_id: str, code: str, text: str) -> None:
        session.send("error", code=code, message=f"{text}: {game_id!r}", fatal=False,
                     game_id=game_id)

    async def _hello(self, session: Session, hello: Message) -> bool:
        if hello["protocol"] != PROTOCOL_VERSION:
            self._error(session, VersionError(
                f"protocol version {hello['protocol']} is not supported; "
                f"this server speaks version {PROTOCOL_VERSION}"))
            await session.drain_and_close(CLOSE_VERSION, "unsupported protocol version")
            return False
        role = hello["role"]
        name: str | None = None
        if role in ("bot", "operator"):
            token = hello.get("token")
            cookie = getattr(session.ws, "cookie_token", None) if role == "bot" else None
            assert self.storage is not None
            account = None
            if token or cookie:  # a browser's guest sends its token in a cookie
                try:
                    account = await self.storage.call(self.storage.storage.authenticate,
                                                      token or cookie)
                except StorageFailure as failure:
                    session.send("error", code=STORAGE_UNAVAILABLE, fatal=True,
                                 message=f"cannot check the token now ({failure}); try later")
                    await session.drain_and_close(CLOSE_TRY_LATER, "storage unavailable")
                    return False
                if not token and account is not None and not is_guest(account.name):
                    account = None  # a cookie only ever carries a guest's token
                token = token or cookie
            if account is None or (role == "operator" and not account.operator):
                self._error(session, AuthenticationError(
                    f"a {role} needs a 'token' in its hello (from 'arena bots add NAME')"
                    if not token else "unknown or revoked token" if account is None
                    else f"{account.name} is not an operator account"))
                await session.drain_and_close(CLOSE_UNAUTHORIZED, "unauthorized")
                return False
            if hello.get("bot") not in (None, account.name):
                self._error(session, AuthenticationError(
                    f"the token belongs to {account.name!r}, not {hello.get('bot')!r}"))
                await session.drain_and_close(CLOSE_UNAUTHORIZED, "unauthorized")
                return False
            name = account.name
            self._tokens[session] = hash_token(token)
        elif role != "spectator":
            self._error(session, UnexpectedMessage(
                f"unknown role {role!r} (roles: bot, spectator, operator)"))
            return True
        if self._closing:
            await session.drain_and_close(1001, "server shutting down")
            return False
        session.role = role
        session.name = name
        if role == "operator":
            session.rate = None  # trusted: a tournament runner asks for games in bursts
        session.games_played = frozenset(hello.get("games") or ())
        session.capabilities = frozenset(hello.get("capabilities") or ())
        if role == "bot" and name is not None:
            old = self.sessions.get(name)
            if old is not None and old is not session:
                old.close(CLOSE_REPLACED, "replaced by a new connection")
            self.sessions[name] = session
            for handle in self._grace.pop(name, ()):
                handle.cancel()
        games = sorted(self.bot_games.get(name, ())) if role == "bot" and name else []
        ladder = self.config.ladder
        session.send(
            "welcome", protocol=PROTOCOL_VERSION, server=f"{self.config.name} (protocol {PROTOCOL_VERSION})",
            role=role, bot=name, capabilities=list(CAPABILITIES), games=games, in_progress=games,
            ladder=None if ladder is None else {"game": ladder.game,
                                                "settings": dict(ladder.settings)},
            limits={"max_frame": self.config.max_frame,
                    "ping_interval": self.config.ping_interval or 0,
                    "max_legal": self.config.max_legal, **self.config.log_limits.to_json()},
        )
        if role == "bot":
            self._check_games(session)
        now = asyncio.get_running_loop().time()
        for game_id in games:  # resume: the full state again
            live = self.live[game_id]
            for seat in live.seats_of(name or ""):
                session.send("game_start", **live.start_message(seat))
                session.send("game_state", **live.state_message())
                if live.match.to_act() == seat:
                    session.send("your_turn", **live.turn_message(seat, now))
        return True

    def _check_games(self, session: Session) -> None:
        """Tell a bot whose hello names games it will never get (unknown ones, or none
        the ladder plays), instead of leaving it idle in silence."""
        named = session.games_played
        unknown = sorted(named - set(self.registry.games))
        if unknown:
            session.send("error", code="unknown-game-name", fatal=False, message=(
                f"hello.games names unknown games {unknown} (games: "
                f"{', '.join(sorted(self.registry.games))})"))
        ladder = self.config.ladder
        if named and ladder is not None and ladder.game not in named:
            session.send("error", code="no-ladder-game", fatal=False, message=(
                f"the ladder plays {ladder.game!r} and hello.games lists only "
                f"{sorted(named)}: you will get no ladder games (list {ladder.game!r} or "
                "leave 'games' out to play any game)"))

    def _own_game(self, session: Session, game_id: str) -> LiveGame | None:
        live = self.live.get(game_id)
        if live is None:
            self._game_error(session, game_id, "unknown-game", "no such live game")
            return None
        if session.role != "bot" or session.name not in live.players:
            self._game_error(session, game_id, "not-your-game", "you do not play in this game")
            return None
        return live

    def _aid(self, session: Session, message: Message) -> None:
        """A ``legal`` request or a ``log`` line (`arena.server.aids`)."""
        live = self._own_game(session, message["game_id"])
        if live is None:
            return
        seats = live.seats_of(session.name or "")
        reply: Reply | None
        if message.type == "legal":
            reply = self.legal_moves.answer(live, seats, message["turn"], message["steps"])
            budgeted = reply[0] == "legal_steps" and (
                self.legal_moves.answered(live) <= self.config.legal_requests_per_turn)
        else:
            to_act = live.match.to_act()
            kept = len(live.match.notes)
            reply = self.notes.take(live, to_act if to_act in seats else seats[0],
                                    message["text"])
            budgeted = len(live.match.notes) > kept
        if budgeted and session.rate is not None:
            # what a turn invites (building the move, a kept debug line) costs no rate
            # budget: they have limits of their own
            session.rate.credit()
        if reply is not None:
            session.send(reply[0], **reply[1])

    def _move(self, session: Session, message: Message) -> None:
        live = self._own_game(session, message["game_id"])
        if live is None:
            return
        seats = live.seats_of(session.name or "")
        to_act = live.match.to_act()
        seat = to_act if to_act in seats else seats[0]
        live.submit(seat, message["turn"], message["move"])

    def _request_game(self, session: Session, message: Message) -> None:
        request_id = message["request_id"]
        if session.role != "operator":
            self._error(session, UnexpectedMessage("only operators may request games"))
            return
        try:
            control = self.config.time_control
            if "time_control" in message.body:
                control = TimeControl.from_json({**control.to_json(), **message["time_control"]})
            live = self.start_game(message["game"], message["settings"], message["players"],
                                   seed=message["seed"], time_control=control)
        except StorageUnavailable as error:
            session.send("error", code=STORAGE_UNAVAILABLE, message=str(error), fatal=False,
                         request_id=request_id)
            return
        except (ArenaError, ValueError, RuntimeError) as error:
            session.send("error", code="bad-request", message=str(error), fatal=False,
                         request_id=request_id)
            return
        session.send("game_requested", request_id=request_id, game_id=live.id)
        assert live.task is not None

        def done(task: asyncio.Task[MatchRecord]) -> None:
            if task.cancelled():
                return
            if task.exception() is not None:  # never started, or the server closed first
                session.send("error", code=STORAGE_UNAVAILABLE, fatal=False, game_id=live.id,
                             request_id=request_id,
                             message=f"game {live.id} could not be stored: {task.exception()}")
                return
            record = task.result()
            assert live.log is not None  # set before the end
            fields = self._game_over_fields(live, record)
            # the log rides along unless it would make the frame too long: then the
            # operator reads it from GET /api/games/{id}
            if len(live.log) * 4 + 4096 <= self.config.max_frame or (
                    len(live.log.encode()) + 4096 <= self.config.max_frame):
                fields["log"] = live.log
            session.send("game_over", **fields)

        live.task.add_done_callback(done)

    def _disconnected(self, session: Session) -> None:
        self._tokens.pop(session, None)
        for game_id in session.spectating:
            live = self.live.get(game_id)
            if live is not None:
                live.spectators.discard(session)
        name = session.name
        if session.role != "bot" or name is None or self.sessions.get(name) is not session:
            return
        del self.sessions[name]
        if self.bot_games.get(name) and not self._closing:
            # each game's own grace period: one timer per distinct one
            loop = asyncio.get_running_loop()
            graces = {live.control.grace_ms for live in self._live_games_of(name)}
            self._grace[name] = [loop.call_later(grace / 1000, self._grace_expired, name, grace)
                                 for grace in sorted(graces)]

    def _grace_expired(self, name: str, grace_ms: int) -> None:
        """`name` has been away for `grace_ms`: it forfeits the games with that grace."""
        if name in self.sessions:
            return
        for live in self._live_games_of(name):
            if live.control.grace_ms == grace_ms:
                live.forfeit_player(name, Termination.DISCONNECT,
                                    f"{name} stayed disconnected longer than {grace_ms} ms")

    def _live_games_of(self, name: str) -> list[LiveGame]:
        """The live games `name` plays in."""
        return [live for game_id in list(self.bot_games.get(name, ()))
                if (live := self.live.get(game_id)) is not None]

    async def _watch_revocations(self) -> None:
        """Drop connected clients whose token was revoked, replaced or expired since
        they logged in: their games are forfeited at once and the connection closes
        with 4001. Expired guest accounts are deleted every `guest_purge_interval`."""
        assert self.storage is not None
        loop = asyncio.get_running_loop()
        next_purge = loop.time() + self.config.guest_purge_interval
        while True:
            await asyncio.sleep(self.config.revocation_interval)
            if self.storage.failure is not None:
                continue  # nothing to read now; the storage watch says when
            if loop.time() >= next_purge:
                next_purge = loop.time() + self.config.guest_purge_interval
                with contextlib.suppress(StorageFailure):
                    await self.storage.call(self.storage.storage.purge_expired)
            await self.check_revocations()

    async def check_revocations(self) -> None:
        """One check of `_watch_revocations`. Only the sessions logged in before the
        query are judged: one that logs in meanwhile is not in its answer, and must
        not be taken for revoked."""
        assert self.storage is not None
        if not self._tokens:
            return
        logged_in = dict(self._tokens)
        try:
            current = await self.storage.call(
                self.storage.storage.token_hashes, {s.name for s in logged_in if s.name})
        except Exception:  # a busy database: try again next time
            log.warning("checking for revoked tokens failed", exc_info=True)
            return
        for session, token_hash in logged_in.items():
            if (session.name is not None and self._tokens.get(session) == token_hash
                    and current.get(session.name) != token_hash):
                self._revoke(session)

    def _revoke(self, session: Session) -> None:
        name = session.name
        log.info("dropping %s: its token was revoked", name)
        self._tokens.pop(session, None)
        if session.role == "bot" and name is not None and self.sessions.get(name) is session:
            for live in self._live_games_of(name):
                live.forfeit_player(name, Termination.DISCONNECT, f"{name}'s token was revoked")
        self._error(session, AuthenticationError("the token was revoked"))
        session.close(CLOSE_UNAUTHORIZED, "token revoked")

    # -- views for the HTTP API --------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """The server's health for ``/healthz``: ``status`` is ``ok``, ``closing`` or
        ``unhealthy`` (the storage fails: ``reason`` says why); only ``ok`` is healthy."""
        failure = self.durability.unhealthy if self.durability is not None else "not started"
        status = "closing" if self._closing else "unhealthy" if failure is not None else "ok"
        return {
            "status": status,
            "reason": failure if status == "unhealthy" else None,
            "protocol": PROTOCOL_VERSION,
            "games_in_flight": len(self.live),
            "games_finished": self.games_finished,
            "connected_bots": sorted(n for n, s in self.sessions.items() if s.role == "bot"),
            "ladder": self.config.ladder is not None,
            "recovered_games": len(self.recovered),
        }


