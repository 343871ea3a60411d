"""A gateway's side of the bus (``arena serve --role gateway``, docs/cluster.md).

The gateway holds the bots' connections (`arena.server.clients.Clients` does the
handshake, the accounts, the budgets and the framing as in one process) and owns no
game. `GatewayRelay` is the clients' `Relay`: what the hosts send the bots here comes
on one subscription, ``gateway.<id>.out``, made at start (each message names its bot:
routed here by name; an operator's, and a host's of the version before, come on
``bot.<name>.out``, heard through one ``bot.*.out``); a bot that finishes its
handshake is announced on ``bots.presence`` (as routed there), so the hosts send it
what it is owed; its messages
about a game go to ``game.<id>.in`` (published for the games its hosts told it of;
asked for another, so that one nobody plays gets it ``unknown-game``); its leaving is
announced. These changes are numbered; every `ServerConfig.presence_interval` the
gateway publishes a heartbeat (the number of its last change, the count and digest of
its bots, and how late its timer woke if it did: `arena.cluster.follower`), and a
snapshot of its bots only when a host or gateway asks (on ``bots.presence.ask``: one
that starts, or is out of step, on the asker's own subject if it says who it is) and
every `SNAPSHOT_ROUNDS` intervals, so a follower learns who is online, and a gateway
that died is noticed by its silence. Every interval a sweep visits the bots with
something to do (games in flight, or connected or a game ended within `ACTIVE` seconds;
an idle bot costs it nothing): a bot's game quiet for `QUIET` seconds is looked up in
the database (one its host stored as over but died before announcing is announced from
there), and the game ends the database keeps for them are sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import deque
from collections.abc import Callable, Collection, Coroutine, Mapping, Sequence
from typing import Any

import msgspec

from arena.bus import Bus, BusError, BusTimeout, Message, NoResponders, Subscription
from arena.cluster.elsewhere import Elsewhere
from arena.cluster.follower import PresenceFollower, ask_snapshot, conn_digest
from arena.cluster.messages import (
    BOTS_OUT,
    CHALLENGES,
    PLAY,
    PRESENCE,
    PRESENCE_ASK,
    REQUEST_GAME,
    BotPresence,
    FromBot,
    LobbyAnswer,
    LobbyAsk,
    Presence,
    PresenceAsk,
    Spectate,
    ToBot,
    bot_name,
    decode,
    encode,
    game_in,
    game_spectate,
    game_watch,
    gateway_alive,
    gateway_out,
    presence_to,
)
from arena.cluster.sender import Sender
from arena.errors import ArenaError, BotSpecError, SettingsError
from arena.server.challenges import AcceptPolicy
from arena.server.clients import CLOSE_REPLACED
from arena.server.session import Session
from arena.service import ChallengeError, PlayerUnavailable, StorageUnavailable
from arena.storage import GameRow, Storage, StorageFailure
from protocol import Message as ProtocolMessage

__all__ = ["SNAPSHOT_CHUNK", "SNAPSHOT_ROUNDS", "GatewayRelay"]

log = logging.getLogger("arena.cluster")

SNAPSHOT_CHUNK = 100
"""Bots per snapshot message: a hello lists at most 64 ladder names of 64 characters,
so 100 bots' presences fit in `arena.bus.MAX_MESSAGE_BYTES`."""

SNAPSHOT_ROUNDS = 60
"""Intervals between the snapshots a gateway publishes unasked (2 minutes by default):
what puts a follower that asks for none back in step (a host from before the changes'
numbering, during a rolling restart)."""


ASK_TIMEOUT = 2.0
"""Seconds a gateway waits for "no responders" on a message about a game its bot was
not told of (a host that owns the game takes the message and answers the bot itself)."""

START_TIMEOUT = 10.0
"""Seconds a gateway waits for a host to start a game the web asked for (``start``):
the host answers once the game's start is stored."""

MAX_ASKING = 1024
"""Such messages waiting at once on a gateway; more are dropped (and logged)."""

_STARTS = frozenset({"game_start", "game_state", "your_turn"})
"""What a host tells a bot of a game it plays there (the gateway learns the game)."""


CPU_REPORT_SECONDS = 0.1
"""Seconds between a gateway's reports of the CPU time its hosted bots are using on the
CPU-timed turns they think on (``cpu`` on ``game.<id>.in``): the host ends a turn that
has used its allowance within about this much of it."""


DRAIN_SETTLE = 0.5
"""Seconds a stopping gateway waits, once it told the hosts its bots are gone, before it
closes their connections (`GatewayRelay.drain`)."""

QUIET = 5.0
"""Seconds a bot's game may go without a message before the gateway looks it up in the
database: a game its host stored as over just before dying was never announced."""

ACTIVE = 60.0
"""Seconds a bot stays among those a sweep visits after it connected or its last game
ended, with no game in flight (`GatewayRelay._busy`): long enough for a game end lost
on the way as it moved here to be kept `QUIET` seconds and found; an idle bot costs the
sweeps nothing after."""

MAX_IN_PROGRESS = 1000
"""Games in progress a gateway reads for a bot's welcome at most."""

MAX_LOOKUPS = 100
"""Quiet games looked up per snapshot interval at most (the others wait their turn)."""

MAX_PENDING_NAMES = 2000
"""The bots a sweep visits (`ACTIVE`) that it asks the database about for their game
ends kept longer than `QUIET` at most, in turn (at 17 000 busy bots on a gateway, each
is asked about every 9 sweeps): a query's size does not grow with the bots."""

MAX_PENDING_SENT = 1000
"""Game ends kept in the database (`Storage.pending_ends`, one query with what each
``game_over`` says) read per snapshot interval for the bots connected here at most, for
those just connected and again for the others (the rest wait their turn)."""

MAX_HEARD = 100_000
"""Game ends heard here waiting to be dropped from the database at most; beyond, they
are not dropped (the bot may hear them again after a reconnection: docs/protocol.md)."""


class _Bot:
    """A bot connected here: its session, connection id, the games its hosts told it
    of (with when each last said something) and the last ones over."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.conn = uuid.uuid4().hex[:16]
        self.since = time.time()
        self.games: dict[str, float] = {}
        self.over: deque[str] = deque(maxlen=64)
        self.fresh = True
        """Whether its game ends kept in the database are still to be read (at the next
        sweep, whatever their age: those that ended while it was away)."""
        self.until = 0.0
        """Until when (the loop's clock) the sweeps visit it with no game in flight."""


async def _connected(message: Message) -> bytes:
    """The answer to a host's `gateway_alive`: this gateway is connected (and, if it
    answers in time, not starved)."""
    return b""


class GatewayRelay:
    """See the module docstring.

    Args:
        bus: the bus to the hosts.
        gateway: this gateway's name (its host id).
        interval: seconds between presence heartbeats.
        storage: the database, where a game over whose host died before announcing it
            is found (`_sweep`).
        policies: the bots' accept policies, by name.
    """

    def __init__(self, bus: Bus, gateway: str, *, interval: float = 2.0,
                 storage: Storage | None = None,
                 policies: Mapping[str, AcceptPolicy] | None = None) -> None:
        self.bus = bus
        self.policies: Mapping[str, AcceptPolicy] = {} if policies is None else policies
        """The bots' accept policies (the gateway's `Challenges.policies`), announced
        with their presence for the leading host that answers their challenges."""
        self.storage = storage
        """Where the games' results are (None: quiet games are not looked up)."""
        self.gateway = gateway
        self.interval = interval
        self.draining = False
        """Whether the gateway stops (`drain`): its bots are gone for the hosts."""
        self.sender = Sender(bus)
        self._loop = asyncio.get_running_loop()
        """(Looked up once: `asyncio.get_running_loop` asks the system for the process's
        id each time, a system call on every message.)"""
        self.bots: dict[str, _Bot] = {}
        """The bots connected here, by name."""
        self._tasks: list[asyncio.Task[None]] = []
        self._spectating: asyncio.Queue[tuple[Session | None, str, bool] | None] = (
            asyncio.Queue())
        """Spectators coming and going (`spectate`), in order."""
        self._watching: dict[str, tuple[Subscription, dict[Session, int]]] = {}
        """Per game watched here: the subscription to its view, and its spectators here,
        each with the turn its state was at when it came."""
        self._asking: set[asyncio.Task[None]] = set()
        """Messages about games the bots were not told of, waiting for "no responders"."""
        self._subscriptions: list[Subscription] = []
        self.elsewhere = Elsewhere()
        """The bots the other gateways announced (a bot connected to any gateway is
        connected to the arena: `connected`; a program its author connected there takes
        precedence over its hosted one: `taken_elsewhere`)."""
        self.cpu_meter: Callable[[str, str, int], float | None] | None = None
        """The CPU time of a hosted bot's turn, if it runs here (`ArenaServer.hosted_cpu_ms`):
        sent with its move (`FromBot.cpu_ms`)."""
        self.follower = PresenceFollower(interval)
        """The other gateways' presence, followed by its changes."""
        self.epoch = uuid.uuid4().hex[:12]
        """This gateway's run (`Presence.epoch`)."""
        self.seq = 0
        """The number of the last change published."""
        self._announced: dict[str, _Bot] = {}
        """The bots announced online as of change `seq`, by connection."""
        self._digest = 0
        """`Presence.digest` of `_announced`."""
        self._snapshot_to: set[str] = set()
        """Whom the snapshot queued is for (the askers' `PresenceFollower.id`, ``""``:
        every follower); empty while none is queued."""
        self._heard_ends: list[tuple[str, str]] = []
        """The game ends sent to the bots here, ``(bot, game id)``, to drop from the
        database (`Storage.drop_pending_ends`) at the next sweep."""
        self._pending_turn = 0
        """Where the next sweep's `MAX_PENDING_NAMES` bots start among those visited."""
        self._busy: dict[str, _Bot] = {}
        """The bots the sweeps visit (`_stir`): those with games in flight, or that
        connected or saw a game end within `ACTIVE` seconds; the others (idle) cost
        them nothing."""
        self.visits = 0
        """Bots visited by the sweeps so far (each bot once a sweep)."""

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        bus = self.bus
        self._subscriptions = [
            await bus.listen(gateway_out(self.gateway), self._routed),
            await bus.serve(gateway_alive(self.gateway), _connected),
            await bus.listen(BOTS_OUT, self._named_out),
            await bus.subscribe(PRESENCE_ASK, self._asked),
            # both read as the bus reads them, so in the order the other gateways sent
            # them (a snapshot asked for, on this follower's subject, with their changes)
            await bus.listen(PRESENCE, self._other_gateway),
            await bus.listen(presence_to(self.follower.id), self._other_gateway)]
        self._tasks = [loop.create_task(self._heartbeats(), name="gateway heartbeats"),
                       loop.create_task(self._run_spectators(), name="gateway spectators")]

    def report_cpu(self, thinking: Callable[[], list[tuple[str, str, int, float]]]) -> None:
        """Report to the games' hosts, every `CPU_REPORT_SECONDS`, the CPU time of the
        hosted bots run here on the turns they think on (`ArenaServer.hosted_thinking`):
        a ``cpu`` `FromBot` with the turn, so the host's clock sees a program that burns
        its allowance without moving as one process does."""
        self._tasks.append(asyncio.get_running_loop().create_task(
            self._report_cpu(thinking), name="gateway cpu reports"))

    async def _report_cpu(self, thinking: Callable[[], list[tuple[str, str, int, float]]]
                          ) -> None:
        while True:
            await asyncio.sleep(CPU_REPORT_SECONDS)
            for name, game_id, turn, cpu_ms in thinking():
                bot = self.bots.get(name)
                if bot is not None and game_id in bot.games:
                    self.sender.send(game_in(game_id), encode(FromBot(
                        name, bot.conn, "cpu", {"game_id": game_id, "turn": turn}, cpu_ms)))

    async def drain(self) -> None:
        """Before the clients are closed (SIGTERM): tell the hosts at once that every bot
        here is gone, and give them `DRAIN_SETTLE` seconds to hear it, so that what they
        said before still reaches the bots, and a game that ends after is kept for its
        bots' return (`Games.take_unheard`) rather than sent to a closing connection. No
        snapshot announces them again."""
        self.draining = True
        self._tasks[0].cancel()  # the heartbeats
        conns = tuple(bot.conn for bot in self.bots.values() if bot.session.role == "bot")
        for start in range(0, len(conns), SNAPSHOT_CHUNK * 10):
            self._change(gone=conns[start:start + SNAPSHOT_CHUNK * 10])
        if conns:
            await asyncio.sleep(DRAIN_SETTLE)

    async def close(self) -> None:
        """Stop (after the clients closed: their leaving announced, what the sender
        holds published by its close)."""
        for task in [*self._tasks, *self._asking]:
            task.cancel()
        for subscription in self._subscriptions:
            await subscription.close()
        for game_id in list(self._watching):
            await self._drop_watch(game_id)
        await self.sender.close()
        if self.storage is not None:  # what the bots heard here is not sent them again
            try:
                await asyncio.wait_for(self._drop_heard(), 5)
            except (TimeoutError, StorageFailure) as failure:
                log.warning("the game ends heard here were not all dropped from the "
                            "database (the bots may hear them again): %r", failure)

    # -- the clients' Relay ------------------------------------------------------------

    async def running_games(self, name: str) -> list[str]:
        """The games `name` plays, as stored (``welcome.in_progress``): the gateway follows
        them from now on, so that one over before the bot's host could tell it (its host,
        or its former gateway, died) is found in the database (`_sweep`)."""
        if self.storage is None:
            return []
        rows = await self.storage.games(bot=name, status="running", limit=MAX_IN_PROGRESS)
        return [row.id for row in rows]

    def online(self, session: Session, games: Sequence[str] = ()) -> None:
        name = session.name
        if name is None:
            return
        bot = self.bots.get(name)
        if bot is None or bot.session is not session:
            if bot is not None:  # replaced by a new connection: the old one is gone
                self._gone(bot)
            bot = self.bots[name] = _Bot(session)
            now = self._loop.time()
            bot.games.update(dict.fromkeys(games, now))
            self._stir(bot, now)  # its game ends kept while it was away: read once
        if session.role == "bot" and not self.draining:  # an operator: no presence
            self._change(online=(bot,))

    def offline(self, session: Session) -> None:
        name = session.name
        bot = self.bots.get(name or "")
        if bot is not None and bot.session is session:
            del self.bots[bot.session.name or ""]
            self._gone(bot)

    def _gone(self, bot: _Bot) -> None:
        if bot.session.role == "bot":
            self._change(gone=(bot.conn,))

    def forward(self, session: Session, message: ProtocolMessage) -> None:
        """A game its host told the bot of: published to it. Another: asked, so that a
        game nobody plays gets the bot a clear error (`_request`)."""
        name = session.name or ""
        bot = self.bots.get(name)
        if bot is None or bot.session is not session:
            return
        game_id = message["game_id"]
        cpu_ms = (self.cpu_meter(name, game_id, message["turn"])
                  if self.cpu_meter is not None and session.hosted and message.type == "move"
                  else None)
        data = encode(FromBot(name, bot.conn, message.type, dict(message.body), cpu_ms))
        if game_id in bot.games:
            bot.games[game_id] = self._loop.time()
            self.sender.send(game_in(game_id), data)
        elif len(self._asking) < MAX_ASKING:
            self._spawn(self._request(bot, message, data))
        else:
            log.warning("dropped %s's %s about game %s: %d such messages wait already",
                        name, message.type, game_id, MAX_ASKING)

    async def _request(self, bot: _Bot, message: ProtocolMessage, data: bytes) -> None:
        """Send a message about a game the bot was not told of as a request: "no
        responders" (no host plays the game) answers the bot ``unknown-game``, as one
        process does; a host that plays it acts on it and answers the bot itself (a
        ``not-your-game`` error, say), and the request times out unanswered."""
        game_id = message["game_id"]
        try:
            await self.bus.request(game_in(game_id), data, timeout=ASK_TIMEOUT)
        except NoResponders:
            echo = ({"turn": message["turn"], "prefix": message["steps"]}
                    if message.type == "legal" else {})
            bot.session.send("error", code="unknown-game", fatal=False, game_id=game_id,
                             message=f"no such live game: {game_id!r}", **echo)
        except BusTimeout:
            return
        except BusError as error:
            log.warning("%s's %s about game %s not relayed: %s", bot.session.name,
                        message.type, game_id, error)

    def spectate(self, session: Session, game_id: str, watch: bool) -> None:
        self._spectating.put_nowait((session, game_id, watch))

    def request_game(self, session: Session, message: ProtocolMessage) -> None:
        """An operator's ``request_game``: to one of the hosts (`REQUEST_GAME`), which
        answers on the operator's ``bot.<name>.out`` (``game_requested``, then
        ``game_over``)."""
        bot = self.bots.get(session.name or "")
        if bot is None or bot.session is not session:
            return
        self._spawn(self._request_game(bot, message))

    async def _request_game(self, bot: _Bot, message: ProtocolMessage) -> None:
        error = await self._ask_hosts(REQUEST_GAME, encode(FromBot(
            bot.session.name or "", bot.conn, message.type, dict(message.body))))
        if error is not None:
            bot.session.send("error", code="bad-request", fatal=False,
                             request_id=message["request_id"],
                             message=f"no game host answers now ({error}); try again")

    def lobby(self, session: Session, message: ProtocolMessage) -> None:
        """A bot's ``challenge``, ``accept`` or ``decline``: to the leading host, which
        keeps the challenges (`CHALLENGES`) and answers through this gateway."""
        bot = self.bots.get(session.name or "")
        if bot is None or bot.session is not session:
            return
        if len(self._asking) >= MAX_ASKING:
            log.warning("dropped %s's %s: %d questions to the hosts wait already",
                        session.name, message.type, MAX_ASKING)
            return
        self._spawn(self._lobby(bot, message))

    async def _lobby(self, bot: _Bot, message: ProtocolMessage) -> None:
        named = self._named(message.body)
        error = await self._ask_hosts(CHALLENGES, encode(
            LobbyAsk(message.type, dict(message.body), self._presence(bot), named)))
        if error is not None:
            echo = ({"request_id": message["request_id"]} if "request_id" in message.body
                    else {})
            code = "bad-challenge" if message.type == "challenge" else "unknown-challenge"
            bot.session.send("error", code=code, fatal=False, **echo, message=(
                f"no game host keeps the challenges now ({_no_host(error)}); try again"))

    def _spawn(self, question: Coroutine[Any, Any, None]) -> None:
        """Ask the hosts in a task of its own, kept (`_asking`) until it is answered."""
        task = asyncio.get_running_loop().create_task(question)
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    async def _ask_hosts(self, subject: str, data: bytes) -> BusError | None:
        """Ask the hosts on `subject` for a bot: the error if no host answers, None if
        one did (it answers the bot through this gateway's subscriptions, made at
        start)."""
        try:
            await self.bus.request(subject, data, timeout=ASK_TIMEOUT)
        except BusError as error:
            return error
        return None

    async def web(self, kind: str, body: dict[str, Any],
                  account: str | None = None) -> dict[str, Any] | None:
        """The web's ``challenge``, ``challenge_status`` (to the leading host) or
        ``start`` (to one host, which answers once the game is stored: `HostSide._play`),
        with the presence of `account` if it is connected here (a guest: its games at
        once): the answer's fields, or the error the host raised, raised here.

        Raises:
            ChallengeError, PlayerUnavailable, SettingsError, BotSpecError, ArenaError:
                as one process raises them.
            StorageUnavailable: no host answers now.
        """
        bot = self.bots.get(account or "")
        presence = None if bot is None else self._presence(bot)
        named = self._named(body)
        starts = kind in ("play", "start")
        try:
            data = await self.bus.request(
                PLAY if starts else CHALLENGES, encode(LobbyAsk(kind, body, presence, named)),
                timeout=START_TIMEOUT if starts else ASK_TIMEOUT)
        except BusError as error:
            if kind != "web_challenge":
                raise StorageUnavailable(
                    f"no game host answers now ({_no_host(error)}); try again") from None
            raise ChallengeError("bad-challenge", "no game host keeps the challenges now "
                                 f"({_no_host(error)}); try again", reason="no-host") from None
        answer = decode(LobbyAnswer, data)
        if answer.error:
            raise _error_of(answer)
        game_id = (answer.fields or {}).get("game_id")
        if bot is not None and isinstance(game_id, str):  # its games at once (GUEST_GAMES)
            now = self._loop.time()
            bot.games.setdefault(game_id, now)
            self._stir(bot, now)
        return answer.fields

    def games_of(self, name: str) -> Collection[str]:
        """The games the hosts told the bot `name` connected here of (running)."""
        bot = self.bots.get(name)
        return () if bot is None else frozenset(bot.games)

    # -- spectators --------------------------------------------------------------------

    async def _run_spectators(self) -> None:
        """Spectators come and go in order, one at a time (a host's answer awaited)."""
        while (item := await self._spectating.get()) is not None:
            session, game_id, watch = item
            try:
                if watch and session is not None:
                    await self._watch(session, game_id)
                else:
                    await self._unwatch(session, game_id)
            except Exception:  # one spectator's trouble stops no other's
                log.exception("spectating game %s failed", game_id)

    async def _watch(self, session: Session, game_id: str) -> None:
        """A client wants to watch `game_id`: the gateway listens to the game's
        spectators' view (once for all its clients), asks the game's host for its state
        and sends it; no host plays it: ``unknown-game``, as one process says."""
        if session.closed or game_id in session.spectating:
            return
        watching = self._watching.get(game_id)
        if watching is None:
            subscription = await self.bus.subscribe(
                game_watch(game_id), lambda message: self._watched(game_id, message))
            watching = self._watching[game_id] = (subscription, {})
        try:
            answer = await self.bus.request(game_spectate(game_id), encode(
                Spectate(self.gateway, True)), timeout=ASK_TIMEOUT)
        except (NoResponders, BusTimeout):
            answer = b""
        if not answer:
            if not watching[1]:
                await self._drop_watch(game_id)
            session.send("error", code="unknown-game", fatal=False, game_id=game_id,
                         message=f"no such live game: {game_id!r}")
            return
        state = decode(ToBot, answer).fields
        if session.closed:
            return
        watching[1][session] = int(state.get("turn", 0))
        session.spectating.add(game_id)
        session.send("game_state", **state)

    async def _unwatch(self, session: Session | None, game_id: str) -> None:
        """A client stops watching (None: the game is over); the gateway stops listening
        to the game after its last."""
        watching = self._watching.get(game_id)
        if session is None:
            if watching is not None and not watching[1]:
                await self._drop_watch(game_id)
            return
        session.spectating.discard(game_id)
        if watching is None or watching[1].pop(session, None) is None or watching[1]:
            return
        await self._drop_watch(game_id)
        with contextlib.suppress(BusError):
            await self.bus.request(game_spectate(game_id), encode(
                Spectate(self.gateway, False)), timeout=ASK_TIMEOUT)

    async def _drop_watch(self, game_id: str) -> None:
        watching = self._watching.pop(game_id, None)
        if watching is not None:
            await watching[0].close()

    async def _watched(self, game_id: str, message: Message) -> None:
        """What a game tells its spectators: to this gateway's (a move its state
        already held when a spectator came is not sent to it again)."""
        watching = self._watching.get(game_id)
        if watching is None:
            return
        out = decode(ToBot, message.data)
        turn = out.fields.get("turn")
        for session, since in list(watching[1].items()):
            if not isinstance(turn, int) or out.type != "moved" or turn >= since:
                session.send(out.type, **out.fields)
        if out.type == "game_over":
            for session in watching[1]:
                session.spectating.discard(game_id)
            watching[1].clear()
            self._spectating.put_nowait((None, game_id, False))

    # -- the bus -----------------------------------------------------------------------

    def _named(self, body: Mapping[str, Any]) -> tuple[BotPresence, ...]:
        """The presence of the bot a question names (a challenge's ``opponent``) if it
        is connected here: sent along (`LobbyAsk.named`)."""
        opponent = self.bots.get(str(body.get("opponent", "")))
        return () if opponent is None else (self._presence(opponent),)

    def _presence(self, bot: _Bot) -> BotPresence:
        session = bot.session
        return BotPresence(
            name=session.name or "", conn=bot.conn, gateway=self.gateway, since=bot.since,
            owner=session.owner,
            games=tuple(sorted(session.games_played)), ladders=tuple(sorted(session.ladders)),
            capabilities=tuple(sorted(session.capabilities)), seeking=session.seeking,
            seeking_on=dict(session.seeking_on), challenges=session.challenges,
            accept=None if (policy := self.policies.get(session.name or "")) is None
            else policy.to_json(),
            hosted=session.hosted, wall_timed=session.wall_timed, routed=True)

    def _routed(self, message: Message) -> None:
        """A host's message on this gateway's subject: to the bot it names, if it is
        connected here (as the bus reads it: `Bus.listen`). One for a bot that left here
        for another gateway (its host sent it before it heard of the move) is forwarded
        there once, as the bot's own subject reached it there."""
        out = decode(ToBot, message.data)
        bot = self.bots.get(out.bot)
        if bot is not None and not bot.session.closed:
            self._to_bot(bot, out)
        elif not out.forwarded and (gateway := self.elsewhere.gateway_of(out.bot)) is not None:
            self.sender.send(gateway_out(gateway), encode(msgspec.structs.replace(
                out, forwarded=True)))

    def _named_out(self, message: Message) -> None:
        """A host's message on ``bot.<name>.out`` (to an operator; from a host of the
        version before): to that bot, if it is connected here."""
        bot = self.bots.get(bot_name(message.subject.split(".")[1]))
        if bot is not None:
            self._to_bot(bot, decode(ToBot, message.data))

    def _to_bot(self, bot: _Bot, out: ToBot) -> None:
        """A host's message for a bot connected here: framed and sent."""
        session = bot.session
        if session.closed:
            return
        game_id = out.fields.get("game_id")
        if not isinstance(game_id, str):
            pass  # no game's message
        elif out.type == "game_over":
            if game_id in bot.over:
                return  # announced already, from the database (`_sweep`)
            bot.games.pop(game_id, None)
            bot.over.append(game_id)
            self._heard_end(bot, game_id)
            self._stir(bot, self._loop.time())
        elif game_id in bot.games:
            bot.games[game_id] = self._loop.time()
        elif out.type in _STARTS:
            bot.games[game_id] = now = self._loop.time()
            self._stir(bot, now)
        if session.rate is not None:
            for _ in range(out.credit):  # what the host asked of the bot is budgeted
                session.rate.credit()
        session.send(out.type, **out.fields)

    def _change(self, online: tuple[_Bot, ...] = (), gone: tuple[str, ...] = ()) -> None:
        """Announce `online` bots and `gone` connections, in order with the rest (a
        step of the sender: numbered as it is published)."""
        self.sender.call(lambda: self._publish_change(online, gone))

    async def _publish_change(self, online: tuple[_Bot, ...], gone: tuple[str, ...]) -> None:
        announced = self._announced
        for conn in gone:
            if announced.pop(conn, None) is not None:
                self._digest ^= conn_digest(conn)
        for bot in online:
            if bot.conn not in announced:
                self._digest ^= conn_digest(bot.conn)
            announced[bot.conn] = bot
        self.seq += 1  # and published with no wait between: a heartbeat comes after it
        data = encode(Presence(self.gateway, tuple(self._presence(bot) for bot in online),
                               gone, epoch=self.epoch, seq=self.seq))
        try:
            await self.bus.publish(PRESENCE, data)
        except (BusError, ValueError) as error:  # the followers see a number skipped
            log.warning("a change of presence was not published: %s", error)

    def snapshot(self, to: str = "") -> None:
        """Publish every bot announced, `SNAPSHOT_CHUNK` to a message (each well under
        the bus's message size), in order with the changes (a step of the sender: a
        follower takes it as of the last change before it), for the follower `to` alone
        (on its `presence_to`), or every follower (``""``: on ``bots.presence``); one
        asked for while another waits is that one, for each of their askers."""
        if not self._snapshot_to:
            self.sender.call(self._publish_snapshot)
        self._snapshot_to.add(to)

    async def _publish_snapshot(self) -> None:
        askers, self._snapshot_to = self._snapshot_to, set()
        if self.draining:
            return
        subjects = [PRESENCE] if "" in askers else [presence_to(to) for to in sorted(askers)]
        bots = [self._presence(bot) for bot in self._announced.values()]
        for start in range(0, max(len(bots), 1), SNAPSHOT_CHUNK):
            data = encode(Presence(self.gateway, tuple(bots[start:start + SNAPSHOT_CHUNK]),
                                   snapshot=True, epoch=self.epoch, seq=self.seq,
                                   count=len(bots)))
            for subject in subjects:
                try:
                    await self.bus.publish(subject, data)
                except (BusError, ValueError) as error:
                    log.warning("the snapshot was not published on %s: %s", subject, error)
                    return

    def heartbeat(self, late: float = 0.0) -> bytes:
        """This gateway's heartbeat: the number of its last change published, the count
        and digest of the bots announced as of it (the same size whatever the bots), and
        `late`, how late its timer woke (seconds), if over half an interval."""
        return encode(Presence(self.gateway, epoch=self.epoch, seq=self.seq,
                               count=len(self._announced), digest=self._digest,
                               late=round(late, 1) if late > self.interval / 2 else 0.0))

    def _other_gateway(self, message: Message) -> None:
        """Another gateway's bots, for `connected`. A bot connected to another gateway
        and here too: the older connection is closed (4004, as one process closes a
        bot's older connection)."""
        news = decode(Presence, message.data)
        if news.gateway == self.gateway:
            return
        heard = self.follower.hear(news, self._loop.time())
        for conn in heard.gone:
            self.elsewhere.gone(news.gateway, conn)
        for presence in heard.online:
            self.elsewhere.online(news.gateway, presence.conn, presence.name, presence.hosted)
        if heard.ask:
            ask_snapshot(self.sender, news.gateway, heard, self.follower.id)
        if news.snapshot:
            return
        for presence in heard.online:
            bot = self.bots.get(presence.name)
            if bot is not None and (bot.since, bot.conn) < (presence.since, presence.conn):
                bot.session.close(CLOSE_REPLACED, "replaced by a new connection")

    async def _asked(self, message: Message) -> None:
        """A snapshot asked for: of every gateway (empty: for every follower), or of this
        one (for its asker, if it says who it is)."""
        to = ""
        if message.data:
            try:
                asked = decode(PresenceAsk, message.data)
            except msgspec.DecodeError:
                return
            if asked.gateway != self.gateway:
                return
            to = asked.to
        self.snapshot(to)

    def connected(self, name: str) -> bool:
        """Whether the bot `name` is connected to another gateway (as its presence says)."""
        return self.elsewhere.connected(name)

    def taken_elsewhere(self, name: str) -> bool:
        """Whether a program of `name`'s author is connected to another gateway (its
        hosted program, run here, waits: `arena.cluster.elsewhere`)."""
        return self.elsewhere.own_program(name)

    async def _heartbeats(self) -> None:
        """Every interval: the heartbeat, published at once (not behind what the sender
        holds), a snapshot every `SNAPSHOT_ROUNDS`, and the quiet games looked up beside
        it (`_sweep`, one at a time). Under load (2 000 bots, `bench/bench_rolling.py`)
        the lookups waited for the database and the sender for the bus, the snapshots
        (the heartbeats then) came later than `SILENT_ROUNDS` intervals, and the hosts
        took every bot of a live gateway for gone, over and over: the heartbeats wait
        for nothing now."""
        loop = asyncio.get_running_loop()
        sweeping: asyncio.Task[None] | None = None
        rounds = 0
        try:
            while True:
                due = loop.time() + self.interval
                await asyncio.sleep(self.interval)
                try:  # how late the timer woke: the followers wait as much longer
                    await self.bus.publish(PRESENCE, self.heartbeat(loop.time() - due))
                except BusError as error:
                    log.warning("the heartbeat was not published: %s", error)
                rounds += 1
                if rounds % SNAPSHOT_ROUNDS == 0:
                    self.snapshot()
                now = loop.time()  # a gateway silent for three intervals is gone, its bots too
                for gateway in self.follower.silent(now):
                    self.elsewhere.silent(gateway)
                if self.storage is not None and (sweeping is None or sweeping.done()):
                    sweeping = loop.create_task(self._sweep_logged(now), name="gateway sweep")
        finally:
            if sweeping is not None:
                sweeping.cancel()

    async def _sweep_logged(self, now: float) -> None:
        try:
            await self._sweep(now)
        except StorageFailure as failure:
            log.warning("the quiet games could not be looked up: %s", failure)

    async def _sweep(self, now: float) -> None:
        """Drop the game ends the bots heard here from the database, send them those it
        still keeps (`_send_pending`), and look up the bots' games quiet for `QUIET`
        seconds: one stored as over (its host died between storing it and announcing
        it) is announced to the bot from the database, with the fields its host would
        have sent."""
        assert self.storage is not None
        await self._drop_heard()
        busy = self._visited(now)
        await self._send_pending(busy)
        quiet = [(bot, game_id) for bot in busy
                 for game_id, heard in bot.games.items() if now - heard > QUIET]
        for bot, game_id in quiet[:MAX_LOOKUPS]:
            row = await self.storage.game(game_id)
            if game_id not in bot.games:
                continue  # over meanwhile
            if row is None or row.status == "running" or row.result is None:
                bot.games[game_id] = now  # still played (or taken over): look again later
                continue
            log.warning("game %s was over but not announced to %s (its host died?): "
                        "announced from the database", game_id, bot.session.name)
            self._announce(bot, row)

    def _stir(self, bot: _Bot, now: float) -> None:
        """`bot` connected, or learnt or ended a game: the sweeps visit it while it has
        games in flight, and `ACTIVE` seconds after."""
        bot.until = now + ACTIVE
        self._busy[bot.session.name or ""] = bot

    def _visited(self, now: float) -> list[_Bot]:
        """The bots this sweep visits (`_busy`); those gone, or idle since `ACTIVE`
        seconds, leave the list (a game learnt or a new connection brings one back)."""
        busy = []
        for name, bot in list(self._busy.items()):
            if self.bots.get(name) is not bot or not (bot.games or bot.fresh
                                                      or now < bot.until):
                del self._busy[name]
            else:
                busy.append(bot)
        self.visits += len(busy)
        return busy

    async def _send_pending(self, busy: list[_Bot]) -> None:
        """Send the bots the sweep visits the game ends the database keeps for them
        (`Storage.pending_ends`: kept as each result is stored, dropped once a gateway
        sent it): for a bot that just connected, all of them (those that ended while it
        was away, though the host that kept them stopped); for the others
        (`MAX_PENDING_NAMES` of them a sweep, in turn), those kept `QUIET` seconds ago
        or more (lost on the way: a gateway stopping as its host sent one, one sent to
        its former gateway as it moved here, a bus connection made again). A game end
        the bot heard on this connection is only dropped."""
        storage = self.storage
        assert storage is not None
        bots = {bot.session.name or "": bot for bot in busy if bot.session.role == "bot"}
        fresh = {name for name, bot in bots.items() if bot.fresh}
        for name in fresh:
            bots[name].fresh = False
        others = [name for name in bots if name not in fresh]
        if len(others) > MAX_PENDING_NAMES:  # in turn
            start = self._pending_turn % len(others)
            self._pending_turn = start + MAX_PENDING_NAMES
            turn = others[start:start + MAX_PENDING_NAMES]
            others = turn + others[:MAX_PENDING_NAMES - len(turn)]
        ends = [] if not fresh else await storage.pending_ends(fresh, limit=MAX_PENDING_SENT)
        if others:
            ends += await storage.pending_ends(others, before=time.time() - QUIET,
                                               limit=MAX_PENDING_SENT)
        heard: list[tuple[str, str]] = []
        sent = {True: 0, False: 0}  # to a bot just connected, to another
        for name, row in ends:
            bot = self.bots.get(name)
            if bot is None or bot is not bots[name] or bot.session.closed:
                continue  # gone: sent at its next connection
            if row.id in bot.over:  # heard on this connection
                heard.append((name, row.id))
            elif row.status != "running" and row.result is not None:  # (kept only so)
                self._announce(bot, row)
                sent[name in fresh] += 1
        await storage.drop_pending_ends(heard)
        if sent[True] or sent[False]:
            log.warning("game ends sent from the database: %d to bots just connected "
                        "(over while they were away), %d to others (kept %.0f s or more: "
                        "lost on the way, late, or past a sweep's %d)",
                        sent[True], sent[False], QUIET, MAX_PENDING_SENT)

    def _announce(self, bot: _Bot, row: GameRow) -> None:
        """Send `bot` the ``game_over`` of the stored game `row`, with the fields its host
        sends (`Games.game_over_fields`)."""
        bot.games.pop(row.id, None)
        bot.over.append(row.id)
        bot.session.send(
            "game_over", game_id=row.id, result=row.result, winner=row.winner,
            scores=None if row.scores is None else list(row.scores),
            termination=row.termination, reason=row.reason or "the game ended",
            log_id=row.id, seed=row.seed)
        self._heard_end(bot, row.id)

    def _heard_end(self, bot: _Bot, game_id: str) -> None:
        """`bot` was sent the end of `game_id`: dropped from the database at the next
        sweep (`MAX_HEARD` waiting at most)."""
        if self.storage is not None and bot.session.role == "bot" and (
                len(self._heard_ends) < MAX_HEARD):
            self._heard_ends.append((bot.session.name or "", game_id))

    async def _drop_heard(self) -> None:
        """Drop the game ends heard here from the database (those that fail to go wait
        for the next sweep)."""
        assert self.storage is not None
        heard, self._heard_ends = self._heard_ends, []
        try:
            await self.storage.drop_pending_ends(heard)
        except StorageFailure:
            self._heard_ends[:0] = heard[:MAX_HEARD - len(self._heard_ends)]
            raise


def _no_host(error: BusError) -> str:
    return "none answers" if isinstance(error, NoResponders | BusTimeout) else str(error)


_ERRORS: dict[str, type[ArenaError]] = {
    kind.__name__: kind for kind in (PlayerUnavailable, StorageUnavailable, SettingsError,
                                     BotSpecError)}


def _error_of(answer: LobbyAnswer) -> ArenaError:
    """The error a host's lobby raised, as one process raises it."""
    if answer.error == "ChallengeError":
        return ChallengeError.relayed(answer.code, answer.message, answer.params)
    return _ERRORS.get(answer.error, ArenaError)(answer.message)
