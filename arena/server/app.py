"""The arena server: WebSocket sessions, live games, the ladder and the HTTP API.

`ArenaServer` is the asyncio layer around the pieces: `protocol.ProtocolCore` per
connection (`Session`), `LiveGame` runners, `Storage` in a worker thread, the `Ladder`,
and the HTTP side (`arena.web.app`, aiohttp), served on the same port
(`arena.server.dispatch`). Embedding it::

    server = ArenaServer(ServerConfig(port=0, db="arena.sqlite"))
    await server.start()
    record = await server.play_game("substitution", settings, ["alice", "bob"], seed=1)
    await server.close()
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Self

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from arena.bots import EXEC_PREFIX, prepare_bot
from arena.errors import ArenaError, BotSpecError, SettingsError
from arena.game import Termination
from arena.match import Match
from arena.record import MatchRecord, to_jsonl
from arena.registry import Registry, default_registry
from arena.server.aids import LegalMoves, Notes, Reply
from arena.server.config import ServerConfig, TimeControl
from arena.server.connection import ArenaConnection
from arena.server.dispatch import Dispatcher, dispatching
from arena.server.ladder import Ladder
from arena.server.live import GameHost, HousePlayer, LiveGame, run_game
from arena.server.session import Outbox, Session
from arena.server.storage import AsyncStorage, Storage, hash_token
from arena.web import GUEST_PREFIX
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

__all__ = ["ArenaServer", "PlayerUnavailable"]

log = logging.getLogger("arena.server")

HOUSE_PREFIX = "house:"

CLOSE_UNAUTHORIZED = 4001
CLOSE_VERSION = 4002
CLOSE_HELLO_TIMEOUT = 4003
CLOSE_REPLACED = 4004
CLOSE_ERRORS = 4005


async def _prepare_house(live: LiveGame) -> None:
    """Run the house bots' `prepare` hooks (in a thread) before the game's clock starts;
    a house bot that cannot prepare forfeits."""
    for seat, player in live.house.items():
        if getattr(player.bot, "prepare", None) is None:
            continue  # most bots have nothing to prepare: no thread hop for them
        try:
            await asyncio.to_thread(prepare_bot, player.bot, live.game)
        except Exception as error:  # noqa: BLE001 - a broken house bot loses its game, nothing else
            live.forfeit(seat, Termination.ILLEGAL_MOVE,
                         f"house bot {player.spec} failed to prepare: {error!r}")


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
        self.ladder: Ladder | None = None
        self.recovered: list[str] = []
        self._grace: dict[str, asyncio.TimerHandle] = {}
        self._outbox = Outbox()
        self._tokens: dict[Session, str] = {}
        """The token hash each authenticated session (bot or operator) logged in with."""
        self._revocations: asyncio.Task[None] | None = None
        self._ws: Server | None = None
        self._closing = False
        self._closed = asyncio.Event()
        self._game_tasks: set[asyncio.Task[Any]] = set()
        self._rng = random.Random()
        self.games_finished = 0
        self.web: WebFront | None = None
        """The HTTP side (aiohttp), served on the same port (`arena.server.dispatch`)."""
        self._dispatching: set[Dispatcher] = set()
        self.legal_moves = LegalMoves(config.max_legal)
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
        storage = Storage(self.config.db)
        self.recovered = storage.recover()
        self.storage = AsyncStorage(storage)
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
        try:
            if self._revocations is not None:
                self._revocations.cancel()
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
            for handle in self._grace.values():
                handle.cancel()
            for session in list(self.sessions.values()):
                await session.drain_and_close(1001, "server shutting down")
            if self.web is not None:  # HTTP requests in progress finish (they use storage)
                await self.web.close()
            if self._ws is not None:
                self._ws.close()
                await self._ws.wait_closed()
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

        Raises:
            PlayerUnavailable: a named bot is not connected.
            SettingsError, BotSpecError: bad settings or house bot spec.
        """
        if self._closing or self.storage is None:
            raise RuntimeError("the server is not running")
        game = self.registry.load_game(game_name, settings)
        if len(players) != game.num_players():
            raise ValueError(f"{game_name} needs {game.num_players()} players, got {len(players)}")
        for name in players:
            if name[len(HOUSE_PREFIX):].lstrip().startswith(EXEC_PREFIX):
                raise BotSpecError(f"{name!r}: a server never runs a program a client names")
            if not name.startswith(HOUSE_PREFIX):
                session = self.sessions.get(name)
                if session is None:
                    raise PlayerUnavailable(f"bot {name!r} is not connected")
                if session.games_played and game_name not in session.games_played:
                    raise PlayerUnavailable(f"bot {name!r} does not play {game_name}")
        seed = self._rng.randrange(2**31) if seed is None else seed
        game_id = "g" + uuid.uuid4().hex[:12]
        match: Match = Match(game, players, seed=seed, match_id=game_id)
        house = {
            seat: HousePlayer(name, self.registry.make_bot(game, name[len(HOUSE_PREFIX):]),
                              random.Random(f"{seed}:{game_id}:{seat}"))
            for seat, name in enumerate(players) if name.startswith(HOUSE_PREFIX)
        }
        live = LiveGame(game_id, game, match, time_control or self.config.time_control, self,
                        ladder=ladder, pair=pair, house=house)
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
            await self.storage.call(storage.finish_game, record, rated=live.ladder,
                                    log=log_text)
        except BaseException:
            # not stored, so not announced; the row stays 'running' and the next start
            # records it as aborted
            log.exception("game %s: the result could not be stored", live.id)
            self._forget(live)
            raise
        live.record = record
        live.log = log_text
        self.games_finished += 1
        self._announce_end(live, record)
        return record

    def _announce_end(self, live: LiveGame, record: MatchRecord) -> None:
        outcome = record.outcome
        assert outcome is not None
        fields = {
            "game_id": live.id, "result": outcome.result, "winner": outcome.winner,
            "scores": list(outcome.scores) if outcome.scores is not None else None,
            "termination": outcome.termination.value,
            "reason": outcome.detail or "the game ended", "log_id": live.id, "seed": record.seed,
        }
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
                    if name in self._grace:
                        self._grace.pop(name).cancel()

    # -- GameHost ----------------------------------------------------------------------

    def send_to(self, name: str, type: str, /, **fields: Any) -> None:
        session = self.sessions.get(name)
        if session is not None:
            session.send(type, **fields)

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
        room = ladder.max_games - 2
        names = [
            name for name, session in self.sessions.items()
            if session.role == "bot" and not name.startswith(GUEST_PREFIX)
            and (not session.games_played or ladder.game in session.games_played)
            and len(self.bot_games.get(name, ())) <= room
        ]
        if names or ladder.house_vs_house:
            names += [
                HOUSE_PREFIX + spec for spec in ladder.house
                if len(self.bot_games.get(HOUSE_PREFIX + spec, ())) <= room
            ]
        return names

    def _start_pair(self, first: str, second: str, seed: int) -> None:
        ladder = self.config.ladder
        assert ladder is not None
        pair = "p" + uuid.uuid4().hex[:12]
        for players in ((first, second), (second, first)):
            try:
                self.start_game(ladder.game, ladder.settings, players, seed=seed, ladder=True,
                                pair=pair)
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
        encoding = Encoding.from_subprotocol(ws.subprotocol)
        core = ProtocolCore("server", encoding, max_frame=self.config.max_frame)
        session = Session(ws, core, max_queue=self.config.max_queue,
                          validate=self.config.validate_outgoing, outbox=self._outbox)
        def no_hello() -> None:
            if not session.role:
                session.close(CLOSE_HELLO_TIMEOUT, "no hello in time")

        timer = asyncio.get_running_loop().call_later(self.config.hello_timeout, no_hello)
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

    def _take_frame(self, session: Session, frame: bytes | str) -> None:
        """Act on a frame from a client past its handshake. Every message there is
        handled synchronously, so nothing waits; a bug drops this client only."""
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
            if token:
                account = await self.storage.call(self.storage.storage.authenticate, token)
            elif cookie:  # a browser's guest, by the cookie its handshake carried
                account = await self.storage.call(self.storage.storage.authenticate, cookie)
                if account is not None and not account.name.startswith(GUEST_PREFIX):
                    account = None
                token = cookie
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
        session.games_played = frozenset(hello.get("games") or ())
        session.capabilities = frozenset(hello.get("capabilities") or ())
        if role == "bot" and name is not None:
            old = self.sessions.get(name)
            if old is not None and old is not session:
                old.close(CLOSE_REPLACED, "replaced by a new connection")
            self.sessions[name] = session
            handle = self._grace.pop(name, None)
            if handle is not None:
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
        else:
            to_act = live.match.to_act()
            reply = self.notes.take(live, to_act if to_act in seats else seats[0],
                                    message["text"])
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
        except (ArenaError, ValueError, RuntimeError) as error:
            session.send("error", code="bad-request", message=str(error), fatal=False,
                         request_id=request_id)
            return
        session.send("game_requested", request_id=request_id, game_id=live.id)
        assert live.task is not None

        def done(task: asyncio.Task[MatchRecord]) -> None:
            if task.cancelled() or task.exception() is not None:
                return
            record = task.result()
            outcome = record.outcome
            assert outcome is not None and live.log is not None  # both set before the end
            session.send(
                "game_over", game_id=live.id, result=outcome.result, winner=outcome.winner,
                scores=list(outcome.scores) if outcome.scores is not None else None,
                termination=outcome.termination.value,
                reason=outcome.detail or "the game ended", log_id=live.id, seed=record.seed,
                log=live.log,
            )

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
            grace = self.config.time_control.grace_ms / 1000
            self._grace[name] = asyncio.get_running_loop().call_later(
                grace, self._grace_expired, name)

    def _grace_expired(self, name: str) -> None:
        self._grace.pop(name, None)
        if name in self.sessions:
            return
        for live in self._live_games_of(name):
            live.forfeit_player(name, Termination.DISCONNECT,
                                f"{name} stayed disconnected longer than {live.control.grace_ms} ms")

    def _live_games_of(self, name: str) -> list[LiveGame]:
        """The live games `name` plays in."""
        return [live for game_id in list(self.bot_games.get(name, ()))
                if (live := self.live.get(game_id)) is not None]

    async def _watch_revocations(self) -> None:
        """Drop connected clients whose token was revoked (or replaced) since they logged
        in: their games are forfeited at once and the connection closes with 4001."""
        assert self.storage is not None
        while True:
            await asyncio.sleep(self.config.revocation_interval)
            if not self._tokens:
                continue
            try:
                current = await self.storage.call(
                    self.storage.storage.token_hashes, {s.name for s in self._tokens if s.name})
            except Exception:  # a busy database: try again next time
                log.exception("checking for revoked tokens failed")
                continue
            for session, token_hash in list(self._tokens.items()):
                if session.name is not None and current.get(session.name) != token_hash:
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
        return {
            "status": "closing" if self._closing else "ok",
            "protocol": PROTOCOL_VERSION,
            "games_in_flight": len(self.live),
            "games_finished": self.games_finished,
            "connected_bots": sorted(n for n, s in self.sessions.items() if s.role == "bot"),
            "ladder": self.config.ladder is not None,
            "recovered_games": len(self.recovered),
        }


