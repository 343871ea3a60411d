"""The server's side of each WebSocket client: its frames, its hello, its messages.

`Clients.handle` is a connection's task: it admits the connection (a budget per
address), makes its `Session` and reads its frames. A frame is charged to the client's
message rate, decoded by the session's protocol core and acted on: before the
handshake in the connection's task (the ``hello`` may wait for the accounts,
`arena.server.auth`), after it synchronously, in the very callback that read the
frame (`_on_frame`: no task switch). A ``move`` goes to its game, and what the game
returns is delivered at once (`arena.server.games`); ``legal`` and ``log`` go to the
aids (`arena.server.aids`); ``request_game`` (operators) starts a game and answers with
its ``game_over``. A bot that leaves starts its games' grace periods
(`arena.server.grace`); one whose token is revoked is dropped (`drop`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Collection, Sequence
from typing import Any, Protocol

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from arena.bot_logs import utc_day
from arena.counters import Counters
from arena.errors import ArenaError
from arena.game import Termination
from arena.record import MatchRecord
from arena.registry import Registry
from arena.server.aids import LegalMoves, Notes, Reply
from arena.server.auth import Revocations, authenticate
from arena.server.challenges import AcceptPolicy, ChallengeError, Challenges
from arena.server.config import LadderConfig, ServerConfig, TimeControl
from arena.server.connection import ArenaConnection
from arena.server.durability import STORAGE_UNAVAILABLE, StorageUnavailable
from arena.server.games import Games
from arena.server.limits import AddressCounter, TokenBucket
from arena.server.live import LiveGame
from arena.server.session import Outbox, Session
from arena.storage import Storage, StorageFailure
from protocol import (
    CAPABILITIES,
    OPT_IN_CAPABILITIES,
    PROTOCOL_VERSION,
    AuthenticationError,
    Encoding,
    Message,
    ProtocolCore,
    ProtocolError,
    SchemaError,
    UnexpectedMessage,
    VersionError,
)

__all__ = ["CLOSE_UNAUTHORIZED", "GAME_MESSAGES", "Clients", "Relay"]

log = logging.getLogger("arena.server")

CLOSE_UNAUTHORIZED = 4001
CLOSE_VERSION = 4002
CLOSE_HELLO_TIMEOUT = 4003
CLOSE_REPLACED = 4004
CLOSE_ERRORS = 4005

MAX_HELLO_LADDERS = 64
"""Most ladder names a ``hello.ladders`` may list, each of at most `MAX_LADDER_NAME`
characters (a server's ladder names are no longer: `arena.cli.config_file`)."""
MAX_LADDER_NAME = 64
CLOSE_RATE = 4006
CLOSE_TRY_LATER = 1013


GAME_MESSAGES = frozenset({"move", "legal", "log", "resign"})
"""A bot's messages about one of its games: a gateway relays them to the game's host."""


class Relay(Protocol):
    """Where a gateway's bots and their game messages go (docs/cluster.md: the hosts,
    over the bus; `arena.cluster.gateway`). Without one (``--role all``) the games are
    this process's own."""

    async def running_games(self, name: str) -> list[str]:
        """The games the bot `name` plays now (its ``welcome.in_progress``).

        Raises:
            StorageFailure: they cannot be read now.
        """

    def online(self, session: Session, games: Sequence[str] = ()) -> None:
        """A bot finished its handshake (`games`: its games in progress then), or changed
        what the ladder reads (``seek``, ``pause``)."""

    def offline(self, session: Session) -> None:
        """A bot's connection ended."""

    def forward(self, session: Session, message: Message) -> None:
        """A bot's `GAME_MESSAGES` message, for its game's host."""

    def spectate(self, session: Session, game_id: str, watch: bool) -> None:
        """A client begins (`watch`) or stops watching a game its host plays."""

    def request_game(self, session: Session, message: Message) -> None:
        """An operator's ``request_game``, for one of the hosts to play."""

    def lobby(self, session: Session, message: Message) -> None:
        """A bot's ``challenge``, ``accept`` or ``decline``, for the host that keeps the
        challenges."""

    async def web(self, kind: str, body: dict[str, Any],
                  account: str | None = None) -> dict[str, Any] | None:
        """The web's ``challenge``, ``challenge_status``, ``play`` or ``start``, asked of the hosts
        for `account` (connected here): the answer's fields (raises what one process
        raises)."""

    def games_of(self, name: str) -> Collection[str]:
        """The running games of the bot `name` connected here."""

    def connected(self, name: str) -> bool:
        """Whether the bot `name` is connected to another gateway."""


class Clients:
    """See the module docstring.

    Args:
        config, registry: the server's settings, games and bots.
        sessions: the connected bots by name (kept here, read by the rest).
        outbox: flushes the sessions' frames together (`arena.server.session`).
        storage: the accounts (for the hellos).
        counters: where the connections per address are counted (`arena.counters`:
            this process's, or every process's of the arena).
        games: the live games (and the grace periods of bots away from them).
        revocations: the logged-in sessions' tokens.
        legal_moves, notes: the aids to bots.
        challenges: the open challenges and the bots' accept policies.
        stopping: set when the server begins to close.
    """

    def __init__(self, config: ServerConfig, registry: Registry, sessions: dict[str, Session],
                 outbox: Outbox, *, storage: Storage, games: Games, counters: Counters,
                 revocations: Revocations, legal_moves: LegalMoves, notes: Notes,
                 challenges: Challenges, stopping: asyncio.Event) -> None:
        self.config = config
        self.registry = registry
        self.sessions = sessions
        self.storage = storage
        self.games = games
        self.revocations = revocations
        self.legal_moves = legal_moves
        self.notes = notes
        self.challenges = challenges
        self._watching: set[asyncio.Task[bool]] = set()
        """New spectators waiting for their game's moves to be stored (`Games.watch`)."""
        self.addresses = AddressCounter(config.max_connections_per_address, counters)
        self.hosted_tokens: dict[str, str] = {}
        """The tokens of the server's hosted bots -> their names (`arena.server.hosted`)."""
        self._outbox = outbox
        self._stopping = stopping
        self._loop = asyncio.get_running_loop()
        """(Looked up once: `asyncio.get_running_loop` asks the system for the process's
        id each time, a system call on every frame.)"""
        self.relay: Relay | None = None
        """A gateway's relay to the hosts (None: the games are this process's)."""

    # -- connections -------------------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        """A connection's task: the handshake, and any frame the fast path (`_on_frame`)
        leaves to it (fragmented messages, frames queued behind a busy one)."""
        address = str(ws.remote_address[0]) if ws.remote_address else "?"
        if not await self.addresses.admit(address):
            await ws.close(CLOSE_TRY_LATER, f"too many connections from {address} (at most "
                                            f"{self.addresses.limit})")
            return
        try:
            await self._serve_connection(ws)
        finally:
            await self.addresses.release(address)

    async def _serve_connection(self, ws: ServerConnection) -> None:
        config = self.config
        loop = asyncio.get_running_loop()
        encoding = Encoding.from_subprotocol(ws.subprotocol)
        core = ProtocolCore("server", encoding, max_frame=config.max_frame,
                            max_send=config.max_frame)
        rate = (TokenBucket(config.message_rate, config.message_burst, loop.time())
                if config.message_rate > 0 else None)
        session = Session(ws, core, max_queue_bytes=config.max_queue_bytes,
                          validate=config.validate_outgoing, outbox=self._outbox, rate=rate)

        def no_hello() -> None:
            if session.role:
                return
            if session.greeted:  # a hello that came in time and waits for its token's
                # lookup (a loaded gateway's database: 8 337 bots closed so in a 2 000-bot
                # rolling restart, each reconnecting at once) is answered, not closed;
                # looked at again a timeout later, in case it was refused
                timers.append(loop.call_later(config.hello_timeout, no_hello))
                return
            session.close(CLOSE_HELLO_TIMEOUT, "no hello in time")

        timers = [loop.call_later(config.hello_timeout, no_hello)]
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
            timers[-1].cancel()
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
        if rate is None or rate.take(self._loop.time()):
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

    def _disconnected(self, session: Session) -> None:
        self.revocations.discard(session)
        for game_id in list(session.spectating):
            if self.relay is not None:
                self.relay.spectate(session, game_id, False)
            live = self.games.live.get(game_id)
            if live is not None:
                live.spectators.discard(session)
        name = session.name
        if self.relay is not None and session.role == "operator":
            self.relay.offline(session)
        if session.role != "bot" or name is None or self.sessions.get(name) is not session:
            return
        del self.sessions[name]
        self.challenges.left(name)
        self.games.client_changed(name, None)  # its grace periods start
        if self.relay is not None:
            self.relay.offline(session)

    def drop(self, session: Session) -> None:
        """Drop a client whose token no longer holds: its games are forfeited at once
        and the connection closes with 4001."""
        name = session.name
        if session.role == "bot" and name is not None and self.sessions.get(name) is session:
            for live in self.games.of(name):
                self.games.forfeit_player(live, name, Termination.DISCONNECT,
                                          f"{name}'s token was revoked")
        self._error(session, AuthenticationError("the token was revoked"))
        session.close(CLOSE_UNAUTHORIZED, "token revoked")

    # -- the handshake -----------------------------------------------------------------

    async def _handshake(self, session: Session, message: Message) -> bool:
        """A message before the handshake is done; False when the connection must end."""
        kind = message.type
        if kind == "ping":
            session.send("pong", id=message["id"])
        elif kind == "hello":
            session.greeted = True
            try:
                return await self._hello(session, message)
            finally:
                session.greeted = False  # answered: welcomed (its role set), or refused
        elif kind not in ("pong", "error"):
            self._error(session, UnexpectedMessage(f"send 'hello' first, not {kind!r}"))
        return True

    async def _hello(self, session: Session, hello: Message) -> bool:
        if hello["protocol"] != PROTOCOL_VERSION:
            self._error(session, VersionError(
                f"protocol version {hello['protocol']} is not supported; "
                f"this server speaks version {PROTOCOL_VERSION}"))
            await session.drain_and_close(CLOSE_VERSION, "unsupported protocol version")
            return False
        ladders = hello.get("ladders") or ()
        if len(ladders) > MAX_HELLO_LADDERS or any(len(n) > MAX_LADDER_NAME for n in ladders):
            self._error(session, SchemaError(
                f"hello.ladders lists at most {MAX_HELLO_LADDERS} ladder names of at most "
                f"{MAX_LADDER_NAME} characters each; send a shorter hello"))
            return True
        role = hello["role"]
        name: str | None = None
        owner: str | None = None
        relayed: list[str] = []  # a gateway's bot's games in progress (on its hosts)
        if role in ("bot", "operator"):
            try:
                login = await authenticate(self.storage, hello,
                                           getattr(session.ws, "cookie_token", None),
                                           self.hosted_tokens)
                if role == "bot":
                    await self._load_log_bytes(login.name)
                if role == "bot" and self.relay is not None:  # (a connection with no
                    # answer but 1011 when the database failed here)
                    relayed = await self.relay.running_games(login.name)
            except StorageFailure as failure:
                session.send("error", code=STORAGE_UNAVAILABLE, fatal=True,
                             message=f"cannot check the token now ({failure}); try later")
                await session.drain_and_close(CLOSE_TRY_LATER, "storage unavailable")
                return False
            except AuthenticationError as error:
                self._error(session, error)
                await session.drain_and_close(CLOSE_UNAUTHORIZED, "unauthorized")
                return False
            name, owner = login.name, login.owner
            session.hosted = login.hosted
            session.wall_timed = login.wall_timed
            if not login.hosted:
                self.revocations.add(session, login.token)
        elif role != "spectator":
            self._error(session, UnexpectedMessage(
                f"unknown role {role!r} (roles: bot, spectator, operator)"))
            return True
        if self._stopping.is_set():
            await session.drain_and_close(1012, "server restarting")
            return False
        session.role = role
        session.name = name
        session.owner = owner
        if role == "operator":
            session.rate = None  # trusted: a tournament runner asks for games in bursts
        session.games_played = frozenset(hello.get("games") or ())
        session.ladders = frozenset(hello.get("ladders") or ())
        session.capabilities = frozenset(hello.get("capabilities") or ())
        opted_in = [c for c in OPT_IN_CAPABILITIES if c in session.capabilities]
        policy, bad_policy = _policy(hello.get("accept"))
        if role == "bot" and name is not None:
            session.seeking = hello.get("seek", True)
            session.challenges = "challenges" in opted_in or "accept" in hello.body
            old = self.sessions.get(name)
            if old is not None and old is not session:
                old.close(CLOSE_REPLACED, "replaced by a new connection")
            self.sessions[name] = session
            self.challenges.connected(name, policy)
            self.games.client_changed(name, session)
        games = (sorted(relayed) if self.relay is not None
                 else sorted(self.games.bot_games.get(name, ())) if role == "bot" and name
                 else [])
        ladders = self.config.all_ladders
        first = ladders[0] if ladders else None
        # `ladders` only when there are some: a welcome without ladders stays as it was
        listed = {"ladders": [ladder.describe() for ladder in ladders]} if ladders else {}
        session.send(
            "welcome", protocol=PROTOCOL_VERSION,
            server=f"{self.config.name} (protocol {PROTOCOL_VERSION})",
            role=role, bot=name, capabilities=[*CAPABILITIES, *opted_in], games=games,
            in_progress=games,
            ladder=None if first is None else {
                "game": first.game,
                "settings": {} if first.generator is not None else dict(first.settings)},
            **listed, limits=self._limits(challenges="challenges" in opted_in),
        )
        self._check_capabilities(session, hello.get("capabilities") or ())
        if bad_policy is not None and role == "bot":
            session.send("error", code="bad-policy", fatal=False, message=(
                f"hello.accept: {bad_policy}; the policy stays "
                f"{self.challenges.policies[name or ''].mode!r}"))
        if role == "bot":
            self._check_games(session)
        if role == "bot" and name is not None and self.relay is None:
            for fields in self.games.take_unheard(name):  # over while it was away
                session.send("game_over", **fields)
        if self.relay is not None:
            if role in ("bot", "operator"):  # its hosts send its games' states, its answers
                self.relay.online(session, games)
            return True
        for game_id in games:  # resume: the full state again
            self.games.resume(self.games.live[game_id], name or "")
        return True

    def _limits(self, *, challenges: bool = False) -> dict[str, Any]:
        """``welcome.limits``: every bound a client can run into, announced (those of
        challenges to the bots that opted in to them)."""
        config = self.config
        return {"max_frame": config.max_frame,
                "ping_interval": _whole(config.ping_interval or 0),
                "max_legal": config.max_legal, **config.log_limits.to_json(),
                "legal_requests_per_turn": config.legal_requests_per_turn,
                "message_rate": _whole(config.message_rate),
                "message_burst": config.message_burst,
                **(config.challenges.to_json() if challenges else {})}

    def _check_capabilities(self, session: Session, listed: Sequence[str]) -> None:
        """Tell a client that lists a capability the server does not know (a misspelling
        would otherwise be ignored in silence)."""
        unknown = sorted(set(listed) - {*CAPABILITIES, *OPT_IN_CAPABILITIES})
        if unknown:  # worded as before the opt-in ones came: the golden transcripts
            session.send("error", code="unknown-capability", fatal=False, message=(
                f"hello.capabilities names unknown capabilities {unknown}; ignored (known: "
                f"{', '.join(CAPABILITIES)})"))

    async def _load_log_bytes(self, name: str) -> None:
        """Start `name`'s count of debug-line bytes for today from what the database
        holds (a restart forgets the counts; the stored games do not)."""
        day = utc_day(time.time())
        stored = await self.storage.log_bytes(name, day)
        self.notes.load(name, day, stored)

    def _check_games(self, session: Session) -> None:
        """Tell a bot whose hello names games it will never get (unknown ones, or none
        the ladder plays), instead of leaving it idle in silence."""
        named = session.games_played
        unknown = sorted(named - set(self.registry.games))
        if unknown:
            session.send("error", code="unknown-game-name", fatal=False, message=(
                f"hello.games names unknown games {unknown} (games: "
                f"{', '.join(sorted(self.registry.games))})"))
        ladders = self.config.all_ladders
        known = {ladder.name for ladder in ladders}
        unknown_ladders = sorted(session.ladders - known)
        if unknown_ladders:
            session.send("error", code="unknown-ladder", fatal=False, message=(
                f"hello.ladders names ladders {unknown_ladders} this server does not run "
                f"(ladders: {', '.join(sorted(known)) or 'none'})"))
        entered = [ladder for ladder in ladders
                   if not session.ladders or ladder.name in session.ladders]
        if named and entered and not any(ladder.game in named for ladder in entered):
            plays = sorted({ladder.game for ladder in entered})
            said = repr(plays[0]) if len(plays) == 1 else f"{plays}"
            session.send("error", code="no-ladder-game", fatal=False, message=(
                f"the ladder plays {said} and hello.games lists only "
                f"{sorted(named)}: you will get no ladder games (list {said} or "
                "leave 'games' out to play any game)"))

    # -- messages past the handshake ---------------------------------------------------

    def request_game(self, session: Session, message: Message) -> None:
        """An operator's ``request_game`` relayed by a gateway (`arena.cluster.host`),
        started here and answered as one read from the operator's socket here."""
        self._request_game(session, message)

    def act(self, session: Session, message: Message) -> None:
        """Act on a bot's message relayed by a gateway (`arena.cluster.host`) as on one
        read from its socket here."""
        self._act(session, message)

    def _act(self, session: Session, message: Message) -> None:
        """Act on one message from a client past its handshake (never waits)."""
        kind = message.type
        if self.relay is not None and kind in GAME_MESSAGES and session.role == "bot":
            self.relay.forward(session, message)
        elif kind == "move":
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
                self.games.forfeit_player(live, session.name or "", Termination.RESIGNATION,
                                          f"{session.name} resigned")
        elif kind in ("spectate", "unspectate") and self.relay is not None:
            self.relay.spectate(session, message["game_id"], kind == "spectate")
        elif kind == "spectate":
            if message["game_id"] not in self.games.live:
                self._game_error(session, message["game_id"], "unknown-game", "no such live game")
            else:  # its state once its moves are stored (`Games.watch`)
                task = asyncio.get_running_loop().create_task(
                    self.games.watch(message["game_id"], session))
                self._watching.add(task)
                task.add_done_callback(self._watching.discard)
        elif kind == "unspectate":
            live = self.games.live.get(message["game_id"])
            if live is not None:
                live.spectators.discard(session)
            session.spectating.discard(message["game_id"])
        elif kind == "request_game" and self.relay is not None and session.role == "operator":
            self.relay.request_game(session, message)
        elif kind == "request_game":
            self._request_game(session, message)
        elif kind in ("legal", "log"):
            self._aid(session, message)
        elif kind in _CHALLENGE_MESSAGES:
            self._challenge_message(session, message)

    def _challenge_message(self, session: Session, message: Message) -> None:
        """``challenge``, ``accept``, ``decline``, ``policy``, ``seek``, ``pause``
        (`arena.server.challenges`); a refusal is a non-fatal error with its code."""
        name = session.name
        kind = message.type
        if session.role != "bot" or name is None:
            self._error(session, UnexpectedMessage(f"only bots may send {kind!r}"))
            return
        echo = {"request_id": message["request_id"]} if "request_id" in message.body else {}
        ladder: LadderConfig | None = None
        if kind in ("challenge", "seek", "pause"):
            named = self.config.ladder_named(message.get("ladder"))
            if isinstance(named, str):
                session.send("error", code="unknown-ladder", fatal=False, **echo,
                             message=named)
                return
            ladder = named
        if self.relay is not None and kind in ("challenge", "accept", "decline"):
            self.relay.lobby(session, message)  # the challenges are the hosts' (their leader's)
            return
        try:
            if kind == "challenge":
                theirs = sorted({"challenge_id", "rating", "expires_ms"} & message.body.keys())
                if theirs:
                    raise ChallengeError("bad-challenge", f"{', '.join(theirs)}: the "
                                         "server's to give in its notices; leave it out")
                assert ladder is not None  # refused above otherwise
                self.challenges.challenge(name, message["opponent"], rated=message["rated"],
                                          request_id=message.get("request_id"),
                                          ladder=ladder.name)
            elif kind in ("accept", "decline"):
                self.challenges.answer(name, message["challenge_id"], accept=kind == "accept",
                                       reason=message.get("reason"))
            elif kind == "policy":
                policy, bad = _policy(message["accept"])
                if policy is None:
                    raise ChallengeError("bad-policy", f"policy.accept: {bad}")
                self.challenges.policies[name] = policy
                session.challenges = True
                session.send("policy", accept=policy.to_json())
                if self.relay is not None:  # for the host that answers its challenges
                    self.relay.online(session)
            else:  # seek, pause
                assert ladder is not None  # refused above otherwise
                session.seeking_on[ladder.name] = kind == "seek"
                session.send("seeking", ladder=ladder.name, seeking=session.seeks(ladder.name))
                if self.relay is not None:
                    self.relay.online(session)
        except ChallengeError as error:
            session.send("error", code=error.code, message=str(error), fatal=False, **echo)

    def _error(self, session: Session, error: ProtocolError, game_id: str | None = None) -> None:
        session.core.send_error(error, game_id=game_id)
        session.flush()

    def _game_error(self, session: Session, game_id: str, code: str, text: str,
                    **echo: Any) -> None:
        session.send("error", code=code, message=f"{text}: {game_id!r}", fatal=False,
                     game_id=game_id, **echo)

    def _own_game(self, session: Session, game_id: str, **echo: Any) -> LiveGame | None:
        """The live game `game_id` if the session's bot plays in it; else an error
        (with `echo`'s fields) and None."""
        live = self.games.live.get(game_id)
        if live is None:
            self._game_error(session, game_id, "unknown-game", "no such live game", **echo)
            return None
        if session.role != "bot" or session.name not in live.players:
            self._game_error(session, game_id, "not-your-game", "you do not play in this game",
                             **echo)
            return None
        return live

    def _aid(self, session: Session, message: Message) -> None:
        """A ``legal`` request or a ``log`` line (`arena.server.aids`); an error answering
        a ``legal`` request echoes its ``turn`` and ``prefix``, as ``legal_steps`` does."""
        echo = ({"turn": message["turn"], "prefix": message["steps"]}
                if message.type == "legal" else {})
        live = self._own_game(session, message["game_id"], **echo)
        if live is None:
            return
        seats = live.seats_of(session.name or "")
        reply: Reply | None
        budgeted: bool
        if message.type == "legal":
            reply = self.legal_moves.answer(live, seats, message["turn"], message["steps"])
            budgeted = reply[0] == "legal_steps" and (
                self.legal_moves.answered(live) <= self.config.legal_requests_per_turn)
        else:
            to_act = live.match.to_act()
            budgeted, reply = self.notes.take(live, to_act if to_act in seats else seats[0],
                                              message["text"], time.time())
        if budgeted and session.rate is not None:
            # what a turn invites (building the move, debug lines within their counts)
            # costs no rate budget: they have limits of their own
            session.rate.credit()
        if reply is not None:
            session.send(reply[0], **(reply[1] if reply[0] != "error" else {**reply[1], **echo}))

    def _move(self, session: Session, message: Message) -> None:
        live = self._own_game(session, message["game_id"])
        if live is None:
            return
        seats = live.seats_of(session.name or "")
        to_act = live.match.to_act()
        seat = to_act if to_act in seats else seats[0]
        self.games.submit(live, seat, message["turn"], message["move"])

    def _request_game(self, session: Session, message: Message) -> None:
        request_id = message["request_id"]
        if session.role != "operator":
            self._error(session, UnexpectedMessage("only operators may request games"))
            return
        try:
            control = self.config.time_control
            if "time_control" in message.body:
                control = TimeControl.from_json({**control.to_json(), **message["time_control"]})
            live = self.games.start(message["game"], message["settings"], message["players"],
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
            fields = self.games.game_over_fields(live, record)
            # the log rides along unless it would make the frame too long: then the
            # operator reads it from GET /api/games/{id}
            if len(live.log) * 4 + 4096 <= self.config.max_frame or (
                    len(live.log.encode()) + 4096 <= self.config.max_frame):
                fields["log"] = live.log
            session.send("game_over", **fields)

        self.games.task_of(live).add_done_callback(done)


_CHALLENGE_MESSAGES = frozenset({"challenge", "accept", "decline", "policy", "seek", "pause"})


def _policy(data: Any) -> tuple[AcceptPolicy | None, str | None]:
    """An accept policy from ``hello.accept`` or ``policy.accept``: (policy, None), or
    (None, what is wrong); (None, None) when absent."""
    if data is None:
        return None, None
    try:
        return AcceptPolicy.from_json(data), None
    except ValueError as error:
        return None, str(error)


def _whole(value: float) -> float | int:
    """A number of seconds as an integer when it is whole (``20``, not ``20.0``): a
    client in a typed language may decode the field as an integer."""
    return int(value) if float(value).is_integer() else value
