"""The Python client SDK: write a bot as a function or a class, then `run` it.

A function bot takes a `Turn` and returns a move string::

    def first_legal(turn: Turn) -> str:
        return turn.legal_moves(limit=1)[0]

    run("ws://127.0.0.1:8765/", token, first_legal)

A class bot subclasses `ArenaBot` and may also hear about game starts, rejections
and results; `move` may be a coroutine. Every `your_turn` carries the full state, so a
bot needs no memory. The client reconnects after a dropped connection and the server
resends the games in progress (`game_start` and `your_turn` again).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from arena.bots import prepare_bot
from arena.game import Game
from arena.legal import legal_fields
from arena.registry import default_registry
from arena.seeds import check_commitment, parse_seed
from clients.challenges import ChallengeNotice, Waiters, policy_json
from protocol import (
    PROTOCOL_VERSION,
    AuthenticationError,
    Encoding,
    Message,
    ProtocolCore,
    ProtocolError,
    RemoteError,
)
from protocol.errors import error_from_code
from protocol.transport import FastClientConnection, can_write_now, write_now

__all__ = ["ArenaBot", "ArenaClient", "AuthenticationError", "BotFailure", "BuiltinBot",
           "CannotConnect", "GameInfo", "GameResult", "Rejected", "Turn", "run"]

log = logging.getLogger("arena.client")

# Close codes after which reconnecting cannot help.
AWAY_KEPT = 64
"""Games that ended while the bot was away, kept for their late ``game_over``."""

KEEPALIVE = 20.0
"""Seconds between the client's own keepalive pings, sent only to a server that
announces none (``welcome.limits.ping_interval`` 0 or missing); a pong not back within
as long again drops the connection (and the client reconnects)."""

SILENT_INTERVALS = 2
"""A server that announces keepalive pings and then sends nothing (not even a ping) for
this many of its intervals is taken for gone: the connection is dropped and made again.
The client sends no ping of its own to such a server: one ping per connection, the
server's, not one from each side."""

_FINAL_CLOSE_CODES = {4001: "unauthorized", 4002: "unsupported protocol version",
                      4004: "replaced by a newer connection"}


class BotFailure(RuntimeError):
    """Raised by a bot that cannot go on (its process died); the client stops with it.

    Other exceptions from a bot are logged and cost only the move (it will lose on
    time); this one ends `ArenaClient.run`, which raises it.
    """


class CannotConnect(ConnectionError):
    """`ArenaClient.run` gave up: no connection within its `connect_retries` attempts or
    its `connect_timeout` (the message says how long it tried and the last error)."""


@dataclass(frozen=True)
class GameInfo:
    """A game the bot plays (from ``game_start``)."""

    game_id: str
    game: str
    settings: dict[str, Any]
    seat: int
    players: tuple[str, ...]
    opponent: str
    time_control: dict[str, Any]
    chance_name: str = "chance"
    ladder: bool = False
    seed_commitment: str | None = None
    """The server's commitment to the game's dice seed (`arena.seeds`)."""

    @classmethod
    def from_message(cls, message: Message) -> GameInfo:
        body = message.body
        return cls(body["game_id"], body["game"], body["settings"], body["seat"],
                   tuple(body["players"]), body["opponent"], body["time_control"],
                   body["chance_name"], body["ladder"], body.get("seed_commitment"))

    @cached_property
    def rules(self) -> Game[Any, Any]:
        """The game's rules from the local registry (for games this install knows).

        Raises:
            SettingsError: this install has no such game, or refuses its settings.
        """
        return default_registry().load_game(self.game, self.settings)


@dataclass(frozen=True)
class Turn:
    """It is the bot's move: the whole state and the clock (from ``your_turn``)."""

    info: GameInfo
    turn: int
    move_number: int
    chance: Any
    state: dict[str, Any]
    clock: dict[str, Any]
    clocks: list[Any]
    retries_left: int
    last_move: dict[str, Any] | None = None
    """The move just made by the other side (``turn``, ``seat``, ``move``, ``chance``),
    when the client asked for compact turns and it came with this turn."""
    legal: dict[str, Any] = field(default_factory=dict)
    """With the ``legal-moves`` capability: the server's ``legal``, ``legal_count`` and
    ``legal_steps`` fields (`legal_fields`)."""

    @property
    def game_id(self) -> str:
        return self.info.game_id

    def rules_state(self) -> Any:
        """The state as the local rules' state object.

        Raises:
            SettingsError: the game is unknown here (`GameInfo.rules`).
            ValueError: the state does not read as the local rules' state.
        """
        return self.info.rules.state_from_json(self.state)

    def legal_fields(self) -> dict[str, Any]:
        """``legal``, ``legal_count`` and ``legal_steps`` as the server sent them, or as
        the local rules give them (`arena.legal.legal_fields`) when it sent none."""
        if self.legal:
            return dict(self.legal)
        try:
            return legal_fields(self.info.rules, self.rules_state())
        except (NotImplementedError, KeyError, ValueError):
            return {}

    def legal_moves(self, limit: int = 50) -> list[str]:
        """Legal move strings, where the game can list them (the server's list, if it
        sent one).

        Args:
            limit: at most this many.

        Returns:
            The move strings, in the game's order.

        Raises:
            NotImplementedError: the game does not list its moves and the server sent
                no list (build the move in steps: `ArenaClient.legal`).
        """
        listed = self.legal.get("legal")
        if listed is not None:
            return list(listed[:limit])
        return list(self.info.rules.legal_moves(self.rules_state(), limit).moves)


@dataclass(frozen=True)
class Rejected:
    """A move the referee refused (``move_rejected``); `retries_left` -1 means forfeit."""

    turn: int
    move: str
    code: str
    message: str
    step: int | None
    retries_left: int


@dataclass(frozen=True)
class GameResult:
    """A finished game (``game_over``)."""

    game_id: str
    result: str
    winner: int | None
    scores: list[Any] | None
    termination: str
    reason: str
    seed: int | None
    seat: int | None = None
    seed_verified: bool | None = None
    """Whether the revealed seed matches the commitment of ``game_start`` (None: the
    client saw no commitment, or no seed was revealed)."""

    @property
    def won(self) -> bool:
        return self.seat is not None and self.winner == self.seat


class ArenaBot:
    """Base class for bots: override `move`; the other hooks are optional.

    `arena_client` is the `ArenaClient` playing the bot (set when the client is made), for
    the requests a bot may make: `ArenaClient.log`, `ArenaClient.legal`.
    """

    arena_client: ArenaClient | None = None

    def start(self, game: GameInfo) -> None:
        """A game starts (also called again when a game is resumed after reconnecting).

        The place to load tables: it runs before the game's first `move`, but the
        first turn's clock is already running (see `BuiltinBot.start`).
        """

    def move(self, turn: Turn) -> str | Awaitable[str]:
        """Choose the move of `turn` (the one method a bot must have).

        Args:
            turn: the state, the chance outcome it moves after, its clock.

        Returns:
            The move string, or an awaitable of it (a bot that thinks asynchronously);
            the clock runs until it is sent.
        """
        raise NotImplementedError

    def resumed(self, game: GameInfo, state: dict[str, Any]) -> None:
        """After a reconnect: the full state of a game in progress (``game_state``)."""

    def rejected(self, turn: Turn, rejection: Rejected) -> None:
        """The last move was refused; with retries left, a new `Turn` follows (`move`)."""

    def end(self, game: GameInfo | None, result: GameResult) -> None:
        """A game is over (the result is already stored on the server)."""

    def challenged(self, notice: ChallengeNotice) -> bool | None:
        """A bot challenges this one (clients made with ``challenges=True``): True
        accepts, False declines, None leaves the answer for later
        (`ArenaClient.accept`, `ArenaClient.decline`; unanswered, it expires)."""
        return None


class _FunctionBot(ArenaBot):
    def __init__(self, function: Callable[[Turn], str | Awaitable[str]]) -> None:
        self.function = function

    def move(self, turn: Turn) -> str | Awaitable[str]:
        return self.function(turn)


class BuiltinBot(ArenaBot):
    """A bot from the registry (``random``, ``sim-perfect`` ...) playing as a client.

    With `threaded`, each move is computed in a worker thread so that a slow search
    does not hold up the connection (keepalive pings, other games).
    """

    def __init__(self, spec: str, *, threaded: bool = False) -> None:
        self.spec = spec
        self.threaded = threaded
        self._bots: dict[str, tuple[Any, random.Random]] = {}
        self._ready: dict[str, asyncio.Future[None]] = {}

    def start(self, game: GameInfo) -> None:
        """Make the game's bot and run its ``prepare`` hook (`arena.bots.Bot`).

        The server sends the first ``your_turn`` right after ``game_start``, so the
        preparation counts against the first move's time limit (``first_move_ms``, 5 s
        by default); bots with big tables keep them in a disk cache, so that it is quick
        after the first time. Threaded, it runs in a worker thread and the first move
        waits for it; otherwise it runs here, before the first turn is read.
        """
        if game.game_id in self._bots:
            return
        bot = default_registry().make_bot(game.rules, self.spec)
        self._bots[game.game_id] = (bot, random.Random(f"{game.game_id}:{game.seat}"))
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self.threaded and loop is not None:
            self._ready[game.game_id] = loop.run_in_executor(None, self._prepare, bot, game)
        else:
            self._prepare(bot, game)

    def _prepare(self, bot: Any, game: GameInfo) -> None:
        try:
            prepare_bot(bot, game.rules)
        except Exception:  # the bot may still manage its moves: they will tell
            log.exception("preparing %s for %s failed", self.spec, game.game_id)

    def move(self, turn: Turn) -> str | Awaitable[str]:
        if self.threaded:
            return self._choose_in_thread(turn)
        return self._choose(turn)

    async def _choose_in_thread(self, turn: Turn) -> str:
        ready = self._ready.get(turn.game_id)
        if ready is not None:
            await ready
        return await asyncio.to_thread(self._choose, turn)

    def _choose(self, turn: Turn) -> str:
        self.start(turn.info)
        bot, rng = self._bots[turn.game_id]
        rules = turn.info.rules
        move = bot.choose_move(rules, turn.rules_state(), rng)
        return move if isinstance(move, str) else rules.format_move(move)

    def end(self, game: GameInfo | None, result: GameResult) -> None:
        self._bots.pop(result.game_id, None)
        self._ready.pop(result.game_id, None)


@dataclass
class ArenaClient:
    """A bot's connection to an arena server, reconnecting until stopped.

    Args:
        url: the server's WebSocket URL (``ws://host:port/``), or several separated by
            commas: servers of one arena (docs/cluster.md). When one refuses or dies,
            the client tries the next, in turn, and resumes its games there as after a
            restart. `url` is then the one in use.
        urls: more servers to try after those of `url`.
        token: the bot's token (``arena bots add NAME``).
        bot: an `ArenaBot` or a function ``Turn -> move string``.
        games: the games the bot plays (empty: any).
        encoding: msgpack (default) or JSON frames.
        reconnect: reconnect after a dropped connection.
        stop_after: stop after this many finished games.
        compact: ask for ``compact-turns``: the opponent's move arrives inside the
            bot's next `Turn` (`Turn.last_move`) instead of as an ``opponent_moved``
            message (one frame less per move; `on_message` then sees fewer messages).
        legal_moves: ask for ``legal-moves``: every `Turn` carries the server's legal
            moves (`Turn.legal`); `legal` asks about a partial move.
        reconnect_delay, max_reconnect_delay: the wait before the first retry, doubled
            after each failure up to the maximum (seconds).
        connect_retries: give up (`CannotConnect`) after this many failed attempts in a
            row (None: never).
        connect_timeout: give up (`CannotConnect`) after trying this long without a
            connection (seconds; None: never). Both count from the last connection.
        ladders: the names of the server's ladders the bot plays on (``welcome.ladders``;
            empty: every ladder of its games).
        challenges: list the ``challenges`` capability: the bot is asked about each
            challenge (`ArenaBot.challenged`) unless `accept` says otherwise.
        accept: the accept policy sent in ``hello``: ``{"mode": "ask" | "auto" |
            "decline", "min_rating": ..., "max_rating": ...}`` (None: the server's
            default, ``ask`` with `challenges`, else ``decline``).
        seek: whether the ladder pairs the bot from the start (`seek`, `pause`).
    """

    url: str
    token: str
    bot: ArenaBot | Callable[[Turn], Any]
    name: str | None = None
    games: Sequence[str] = ()
    encoding: Encoding = Encoding.MSGPACK
    reconnect: bool = True
    stop_after: int | None = None
    compact: bool = True
    legal_moves: bool = False
    reconnect_delay: float = 0.1
    max_reconnect_delay: float = 5.0
    open_timeout: float = 10.0
    connect_retries: int | None = None
    connect_timeout: float | None = None
    results: list[GameResult] = field(default_factory=list)
    errors: list[ProtocolError] = field(default_factory=list)
    """Errors the server reported, and frames from the server that broke the schema."""
    bad_frames: list[ProtocolError] = field(default_factory=list)
    """Frames from the server that could not be read or broke the schema."""
    connections: int = 0
    on_message: Callable[[Message], None] | None = None
    ladders: Sequence[str] = ()
    challenges: bool = False
    accept: dict[str, Any] | None = None
    seek: bool = True
    urls: Sequence[str] = ()

    def __post_init__(self) -> None:
        self._urls = list(dict.fromkeys(
            part.strip() for text in (self.url, *self.urls) for part in text.split(",")
            if part.strip()))
        if not self._urls:
            raise ValueError("give the server's URL (ws://host:port/)")
        self.url = self._urls[0]
        self._bot: ArenaBot = self.bot if isinstance(self.bot, ArenaBot) else _FunctionBot(self.bot)
        self._bot.arena_client = self
        self._questions: dict[tuple[str, int, str], list[asyncio.Future[Message]]] = {}
        self._games: dict[str, GameInfo] = {}
        self._away: dict[str, GameInfo] = {}
        """Games a reconnection's ``welcome`` no longer lists (they ended while the bot
        was away: their ``game_over`` may follow), the last `AWAY_KEPT`."""
        self._ended: dict[str, None] = {}
        """The last `AWAY_KEPT` games whose ``game_over`` the bot heard: a second one
        (a cluster may send it again after a reconnection, with the same result:
        docs/protocol.md) is ignored."""
        self._ws: ClientConnection | None = None
        self._silence: asyncio.TimerHandle | None = None
        """The check of a pinging server's silence (`_keepalive`), while connected."""
        self._core: ProtocolCore | None = None
        self._stopping = False
        self._failure: BotFailure | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._busy = False  # the read loop is handling a frame: later ones queue behind it
        self._send_lock = asyncio.Lock()  # the async write path keeps frames in order
        self._last_turns: dict[str, Message] = {}
        self._waiters = Waiters()
        self._requests = 0
        self.welcome: Message | None = None
        self._ladder_seeking: dict[str, bool] = {}
        """On a server of several ladders, the ``seek`` or ``pause`` last answered for
        each ladder (the hello's `seek` is for every ladder)."""
        self.connected = asyncio.Event()

    async def run(self) -> None:
        """Play until stopped, `stop_after` games are over, or reconnecting cannot help.

        Results go to `results` as games end; a dropped connection is reconnected
        (with `reconnect`), doubling the delay up to `max_reconnect_delay`.

        Raises:
            AuthenticationError, RemoteError: the server refused the bot for good.
            BotFailure: the bot cannot go on (its process died).
        """
        delay = self.reconnect_delay
        loop = asyncio.get_running_loop()
        failures, since = 0, loop.time()  # failed attempts since the last connection
        while not self._stopping:
            connections = self.connections
            try:
                await self._session()
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
                if code in _FINAL_CLOSE_CODES:
                    fatal = next((e for e in reversed(self.errors) if e.fatal), None)
                    raise fatal or RemoteError(str(code), _FINAL_CLOSE_CODES[code], fatal=True) from None
                log.info("connection closed (%s); reconnecting", closed)
            except (OSError, InvalidHandshake, TimeoutError) as error:
                failures += 1
                waited = loop.time() - since
                if self._gives_up(failures, waited + delay):
                    raise CannotConnect(
                        f"cannot connect to {', '.join(self._urls)}: {failures} attempt(s) in "
                        f"{waited:.1f} s "
                        f"failed; the last: {error or type(error).__name__}") from None
                # the first failure is news (is the server up?); the retries are not
                (log.warning if failures == 1 else log.info)(
                    "cannot connect to %s (%s); retrying in %.1f s", self.url, error, delay)
                self._next_url()
            finally:
                self.connected.clear()
            if self.connections != connections:  # it was connected: start counting again
                failures, since, delay = 0, loop.time(), self.reconnect_delay
            if self._stopping or not self.reconnect:
                break
            await asyncio.sleep(delay)
            delay = min(self.max_reconnect_delay, delay * 2)
        if self._failure is not None:
            raise self._failure

    def _next_url(self) -> None:
        """Try the next of the servers given, after one refused or did not answer."""
        if len(self._urls) > 1:
            self.url = self._urls[(self._urls.index(self.url) + 1) % len(self._urls)]
            log.info("trying %s next", self.url)

    def _gives_up(self, failures: int, waited: float) -> bool:
        """Whether to stop retrying after `failures` failed attempts, the next retry
        coming `waited` seconds after the last connection."""
        if self.connect_retries is not None and failures > self.connect_retries:
            return True
        return self.connect_timeout is not None and waited > self.connect_timeout

    async def stop(self) -> None:
        """Close the connection and stop reconnecting (safe to call twice)."""
        self._stopping = True
        if self._ws is not None:
            await self._ws.close()

    async def drop(self) -> None:
        """Close the connection without stopping (tests: simulate a network drop)."""
        if self._ws is not None:
            self._ws.transport.abort()

    async def _session(self) -> None:
        async with connect(self.url, subprotocols=[self.encoding.subprotocol],  # type: ignore[list-item]
                           compression=None, open_timeout=self.open_timeout,
                           max_size=8 * 1024 * 1024, ping_interval=None,  # see _keepalive
                           create_connection=FastClientConnection) as ws:
            self._ws = ws
            self._core = ProtocolCore("client", self.encoding, max_frame=8 * 1024 * 1024)
            self.connections += 1
            hello: dict[str, Any] = {"protocol": PROTOCOL_VERSION, "role": "bot", "token": self.token,
                                     "games": list(self.games), "client": "arena-python-sdk"}
            if self.name:
                hello["bot"] = self.name
            if self.ladders:
                hello["ladders"] = list(self.ladders)
            capabilities = (["compact-turns"] if self.compact else []) + (
                ["legal-moves"] if self.legal_moves else []) + (
                ["challenges"] if self.challenges else [])
            if capabilities:
                hello["capabilities"] = capabilities
            if self.accept is not None:
                hello["accept"] = self.accept
            if not self.seek:
                hello["seek"] = False
            await self.send(Message.make("hello", **hello))
            if isinstance(ws, FastClientConnection):
                ws.on_frame = self._on_frame  # most frames: handled as they are read
            try:
                async for frame in ws:  # the rest: fragmented, or queued behind a busy one
                    self._busy = True
                    try:
                        self._receive(frame)
                        await self._flush()
                    finally:
                        self._busy = False
                    if self._stopping:
                        await ws.close()
            finally:
                if isinstance(ws, FastClientConnection):
                    ws.on_frame = None
                if self._silence is not None:
                    self._silence.cancel()
                    self._silence = None

    def _on_frame(self, frame: bytes | str) -> bool:
        """The fast path: a frame handled in the callback that read it (no task switch);
        a move the bot answers at once goes out in the same callback."""
        if self._busy:
            return False
        ws = self._ws
        try:
            self._receive(frame)
            if self._send_lock.locked() or ws is None or not can_write_now(ws):
                self._spawn(self._flush_quietly())  # behind the frames already waiting
            elif self._core is not None and (frames := self._core.data_to_send()):
                write_now(ws, frames)
            if self._stopping and ws is not None:
                self._spawn(ws.close())
        except Exception:  # a bug must not break websockets' reading: reconnect instead
            log.exception("handling a frame from the server failed")
            if ws is not None:
                ws.transport.abort()
        return True

    def _keepalive(self, welcome: Message) -> None:
        """One keepalive ping per connection, not one from each side: a server that
        pings (``welcome.limits.ping_interval``) is relied on, and its silence for
        `SILENT_INTERVALS` of its intervals drops the connection (it is made again); a
        server that does not is pinged every `KEEPALIVE` seconds."""
        ws = self._ws
        if (not isinstance(ws, FastClientConnection) or ws.keepalive_task is not None
                or self._silence is not None):
            return  # (a second welcome on one connection changes nothing)
        limits = welcome.get("limits") or {}
        interval = limits.get("ping_interval") or 0
        if interval <= 0:
            ws.ping_interval = ws.ping_timeout = KEEPALIVE
            ws.start_keepalive()
            return
        loop, limit = ws.loop, SILENT_INTERVALS * interval

        def check() -> None:
            silent = loop.time() - ws.received_at
            if silent < limit:
                self._silence = loop.call_later(limit - silent, check)
                return
            self._silence = None
            log.warning("the server sent nothing for %.0f s (it said it pings every %s s): "
                        "reconnecting", silent, interval)
            ws.transport.abort()

        self._silence = loop.call_later(limit, check)

    def _receive(self, frame: bytes | str) -> None:
        """Decode one frame and act on its messages."""
        assert self._core is not None
        self._core.receive_data(frame)
        for event in self._core.events_received():
            if isinstance(event, ProtocolError):
                self.errors.append(event)
                self.bad_frames.append(event)
                log.warning("bad frame from server: %s", event)
                continue
            self._handle(event)

    async def send(self, message: Message) -> None:
        """Send one message now.

        Raises:
            ConnectionError: not connected.
            ConnectionClosed: the connection closed while sending.
        """
        if self._ws is None or self._core is None:
            raise ConnectionError("not connected")
        self._core.send(message)
        await self._flush()

    async def _flush_quietly(self) -> None:
        """`_flush` from a task of its own: a closed connection is the read loop's news."""
        with contextlib.suppress(ConnectionClosed, ConnectionError):
            await self._flush()

    async def _flush(self) -> None:
        async with self._send_lock:
            if self._ws is None or self._core is None:
                return
            frames = self._core.data_to_send()
            if not frames:
                return
            if can_write_now(self._ws):
                write_now(self._ws, frames)
                return
            for frame in frames:
                await self._ws.send(frame)  # waits for flow control; raises if closed

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _handle(self, message: Message) -> None:
        if self.on_message is not None:
            self.on_message(message)
        kind = message.type
        if kind == "welcome":
            self.welcome = message
            self._keepalive(message)
            if self._ladder_seeking and self._core is not None:
                # a server of several ladders: each ladder's seek or pause again
                for ladder, seeking in self._ladder_seeking.items():
                    self._core.send(Message.make("seek" if seeking else "pause", ladder=ladder))
                self._spawn(self._flush_quietly())
            for game_id in set(self._games) - set(message["games"]):
                # over while the bot was away: the server may send its game_over now
                self._away[game_id] = self._games.pop(game_id)
                self._last_turns.pop(game_id, None)
                while len(self._away) > AWAY_KEPT:
                    del self._away[next(iter(self._away))]
            self.connected.set()
        elif kind == "game_state" and message["game_id"] in self._games:
            self._bot.resumed(self._games[message["game_id"]], dict(message.body))
        elif kind == "game_start":
            info = GameInfo.from_message(message)
            self._games[info.game_id] = info
            self._bot.start(info)
        elif kind == "your_turn":
            playing = self._games.get(message["game_id"])
            if playing is not None:
                self._last_turns[playing.game_id] = message
                self._start_move(_turn(playing, message))
        elif kind == "move_rejected":
            playing = self._games.get(message["game_id"])
            last = self._last_turns.get(message["game_id"])
            if playing is not None and last is not None and last["turn"] == message["turn"]:
                body = message.body
                rejection = Rejected(body["turn"], body["move"], body["code"], body["message"],
                                     body["step"], body["retries_left"])
                # with retries left the server sends a new your_turn, which asks again
                try:
                    self._bot.rejected(_turn(playing, last, rejection.retries_left), rejection)
                except Exception:  # a bot's bug costs its hook, not the connection
                    log.exception("the bot's rejected() failed on %s", playing.game_id)
        elif kind == "legal_steps" or (kind == "error" and message.get("game_id") is not None
                                       and self._answers(message)):
            self._answers(message, resolve=True)
        elif kind in ("challenge_status", "seeking", "policy") or (
                kind == "error" and self._waiters.resolve(message)):
            if kind == "seeking":
                several = self.welcome is not None and len(self.welcome.get("ladders") or ()) > 1
                if several:  # kept per ladder, sent again after a reconnect
                    self._ladder_seeking[message["ladder"]] = message["seeking"]
                else:
                    self.seek = message["seeking"]
            if kind != "error":
                self._waiters.resolve(message)
        elif kind == "challenge":
            self._challenged(ChallengeNotice.from_message(message))
        elif kind == "game_over" and message["game_id"] in self._ended:
            pass  # heard already (sent again after a reconnection: the same result)
        elif kind == "game_over":
            self._ended[message["game_id"]] = None
            while len(self._ended) > AWAY_KEPT:
                del self._ended[next(iter(self._ended))]
            ended = (self._games.pop(message["game_id"], None)
                     or self._away.pop(message["game_id"], None))
            self._last_turns.pop(message["game_id"], None)
            body = message.body
            seed = parse_seed(body["seed"])
            commitment = ended.seed_commitment if ended else None
            verified = (None if seed is None or not commitment
                        else check_commitment(body["game_id"], seed, commitment))
            if verified is False:
                log.error("game %s: the revealed seed does not match the commitment",
                          body["game_id"])
            result = GameResult(body["game_id"], body["result"], body["winner"], body["scores"],
                                body["termination"], body["reason"], seed,
                                ended.seat if ended else None, verified)
            self.results.append(result)
            self._bot.end(ended, result)
            if self.stop_after is not None and len(self.results) >= self.stop_after:
                self._stopping = True
        elif kind == "error":
            self.errors.append(error_from_code(message["code"], message["message"],
                                               fatal=message["fatal"]))
            if not message["fatal"]:  # a fatal one ends `run`, which raises it: said once
                game = message.get("game_id")
                log.warning("the server says%s: %s: %s", f" (game {game})" if game else "",
                            message["code"], message["message"])
        elif kind == "ping" and self._core is not None:
            self._core.send(Message.make("pong", id=message["id"]))

    def _start_move(self, turn: Turn) -> None:
        """Ask the bot; a plain answer is queued in the core and sent by the read loop
        (no task per move), an awaitable one is awaited in its own task."""
        try:
            move = self._bot.move(turn)
        except BotFailure as failure:
            log.debug("the bot failed for good: %s", failure)  # run() raises it
            self._failure = failure
            self._stopping = True
            return
        except Exception:
            log.exception("the bot failed on %s turn %d", turn.game_id, turn.turn)
            return
        if not isinstance(move, (str, tuple)) and inspect.isawaitable(move):
            self._spawn(self._finish_move(turn, move))
        elif self._core is not None:
            # valid by construction (the turn's own game id and number, a string), so
            # not checked again: this runs for every move the bot makes
            self._core.send(Message.unchecked("move", game_id=turn.game_id, turn=turn.turn,
                                              move=str(move)))

    async def _finish_move(self, turn: Turn, pending: Awaitable[str]) -> None:
        try:
            move = await pending
        except BotFailure as failure:
            log.debug("the bot failed for good: %s", failure)  # run() raises it
            self._failure = failure
            await self.stop()
            return
        except Exception:
            log.exception("the bot failed on %s turn %d", turn.game_id, turn.turn)
            return
        with contextlib.suppress(ConnectionClosed, ConnectionError):
            await self.send(Message.make("move", game_id=turn.game_id, turn=turn.turn, move=str(move)))

    def _challenged(self, notice: ChallengeNotice) -> None:
        """Ask the bot about a challenge; a True or False answer goes out at once."""
        try:
            verdict = self._bot.challenged(notice)
        except Exception:
            log.exception("the bot's challenged() failed on %s", notice.challenge_id)
            return
        if verdict is not None and self._core is not None:
            self._core.send(Message.make("accept" if verdict else "decline",
                                         challenge_id=notice.challenge_id))

    # -- challenges and seeking -------------------------------------------------------------

    async def challenge(self, opponent: str, *, rated: bool = False, ladder: str | None = None,
                        timeout: float = 120.0) -> Message:
        """Challenge `opponent` to a pairing on the ladder's settings and wait for the
        end of it: the last ``challenge_status`` (``accepted`` with its ``game_ids``,
        ``declined``, ``expired``, ``cancelled`` or ``failed``, with a ``reason``).

        Raises:
            ChallengeRefused: the server refused it (``challenge-limit``, ``bad-challenge``...).
            TimeoutError: no end within `timeout` seconds.
            ConnectionError: not connected.
        """
        self._requests += 1
        request_id = f"r{self._requests}"
        fields: dict[str, Any] = {"opponent": opponent, "rated": rated, "request_id": request_id}
        if ladder is not None:
            fields["ladder"] = ladder
        return await self._ask(("challenge", request_id), Message.make("challenge", **fields),
                               timeout)

    async def accept_challenge(self, challenge_id: str) -> None:
        """Accept a challenge the bot left unanswered (`ArenaBot.challenged` said None)."""
        await self.send(Message.make("accept", challenge_id=challenge_id))

    async def decline_challenge(self, challenge_id: str, reason: str | None = None) -> None:
        """Decline a challenge; `reason` is told to the challenger."""
        fields = {"challenge_id": challenge_id} | ({"reason": reason} if reason else {})
        await self.send(Message.make("decline", **fields))

    async def set_policy(self, mode: str, *, min_rating: float | None = None,
                         max_rating: float | None = None, timeout: float = 10.0) -> Message:
        """Change the bot's accept policy; returns the server's ``policy`` answer."""
        self.accept = policy_json(mode, min_rating, max_rating)
        return await self._ask(("policy",), Message.make("policy", accept=self.accept), timeout)

    async def seek_games(self, *, ladder: str | None = None, timeout: float = 10.0) -> Message:
        """Join the ladder's pairing (kept after a reconnect); returns ``seeking``."""
        fields = {} if ladder is None else {"ladder": ladder}
        return await self._ask(("seeking",), Message.make("seek", **fields), timeout)

    async def pause_games(self, *, ladder: str | None = None, timeout: float = 10.0) -> Message:
        """Leave the ladder's pairing without disconnecting (games in flight go on;
        kept after a reconnect); returns ``seeking``."""
        fields = {} if ladder is None else {"ladder": ladder}
        return await self._ask(("seeking",), Message.make("pause", **fields), timeout)

    async def _ask(self, key: tuple[str, ...], message: Message, timeout: float) -> Message:
        future = self._waiters.wait(key)
        try:
            await self.send(message)
            async with asyncio.timeout(timeout):
                return await future
        finally:
            self._waiters.forget(key)

    # -- requests a bot may make ------------------------------------------------------------

    async def log(self, game_id: str, text: str) -> None:
        """Send a debug line about one of the bot's games (stored with the game's log,
        within the server's ``limits``); dropped quietly when not connected.

        Args:
            game_id: the game the line is about.
            text: the line.
        """
        with contextlib.suppress(ConnectionClosed, ConnectionError):
            await self.send(Message.make("log", game_id=game_id, text=text))

    async def legal(self, game_id: str, turn: int, steps: str, *, timeout: float = 10.0
                    ) -> Message:
        """Ask the server for the legal next steps after the partial move `steps` (games
        whose moves are built in steps).

        Args:
            game_id: the game.
            turn: the turn being played (`Turn.turn`).
            steps: the steps so far, as the game's move string (empty at the start).
            timeout: seconds to wait for the answer.

        Returns:
            The ``legal_steps`` answer, or the ``error`` the server sent.

        Raises:
            TimeoutError: no answer within `timeout`.
            ConnectionError: not connected.
        """
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        key = (game_id, turn, steps)
        self._questions.setdefault(key, []).append(future)
        try:
            await self.send(Message.make("legal", game_id=game_id, turn=turn, steps=steps))
            async with asyncio.timeout(timeout):
                return await future
        finally:
            waiting = self._questions.get(key, [])
            if future in waiting:
                waiting.remove(future)
            if not waiting:
                self._questions.pop(key, None)

    def _answers(self, message: Message, *, resolve: bool = False) -> bool:
        """Whether `message` answers a pending `legal` question (and, with `resolve`,
        hand it to the oldest one). Errors name the game only: they answer the oldest
        question about that game."""
        if message.type == "legal_steps":
            keys = [(message["game_id"], message["turn"], message["prefix"])]
        else:
            keys = [key for key in self._questions if key[0] == message["game_id"]]
        for key in keys:
            waiting = self._questions.get(key)
            if waiting:
                if resolve:
                    future = waiting.pop(0)
                    if not future.done():
                        future.set_result(message)
                return True
        return False


def _turn(info: GameInfo, message: Message, retries_left: int | None = None) -> Turn:
    """A `Turn` from a ``your_turn`` message."""
    body = message.body
    legal = {key: body[key] for key in ("legal", "legal_count", "legal_steps") if key in body}
    return Turn(info, body["turn"], body["move_number"], body["chance"], body["state"],
                body["clock"], body["clocks"],
                body["retries_left"] if retries_left is None else retries_left,
                body.get("last_move"), legal)


def run(url: str, token: str, bot: ArenaBot | Callable[[Turn], Any], **options: Any) -> list[GameResult]:
    """Connect and play until stopped (Ctrl-C) or `stop_after` games (blocking).

    Args:
        url: the server's WebSocket URL.
        token: the bot's token.
        bot: an `ArenaBot`, or a function ``Turn -> move string``.
        options: any other `ArenaClient` field (``games``, ``stop_after``, ...).

    Returns:
        The results of the games played.

    Raises:
        AuthenticationError, RemoteError: the server refused the bot for good.
        BotFailure: the bot cannot go on (its process died).
    """
    client = ArenaClient(url, token, bot, **options)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(client.run())
    return client.results

