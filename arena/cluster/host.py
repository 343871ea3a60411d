"""A host's side of the bus (``arena serve --role host``, docs/cluster.md).

The host owns live games (`arena.server.games.Games`, unchanged): the bots it plays
are `RemoteSession`s, made from the gateways' ``bots.presence`` news, whose `send`
publishes on ``gateway.<id>.out`` for the gateway holding the bot (the bot named in
the message; ``bot.<name>.out`` for an operator, or a gateway of the version before). What the bots say
about a game comes on ``game.<id>.in`` and is acted on by the same code as in one
process (`Clients.act`: the move, ``legal``, ``log``, ``resign``); a host subscribes
to ``game.<id>.in`` while the game is live there (before it is announced: through its
`Sender`), so only the owner hears a game's messages, and serves its spectators
(``game.<id>.spectate``, ``game.<id>.watch``). A bot that appears (or comes back) is
sent its games' ``game_start`` and ``game_state`` (`Games.resume`, the restart's path);
one whose gateway falls silent for three heartbeat intervals (nothing of it heard: its
presence, its bots' moves; more if its heartbeats said they came late) is taken for
gone (its grace periods start). The ladders pair on one host at a time, the leader
(`arena.storage.leader`, a PostgreSQL advisory lock: another host leads within about a
second of its death); its pairings go to the durable queue ``starts``, which every host
consumes, so the games spread over the hosts. A host that stops (SIGTERM) suspends
its games, stores them, ends their leases and says so on ``hosts.handover``: the live
hosts claim them at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from typing import Any

import msgspec

from arena.buckets import TokenBucket
from arena.bus import Bus, BusError, BusTimeout, Message, Subscription
from arena.clock import TimeControl
from arena.cluster.follower import DEAD_ROUNDS, PresenceFollower, ask_snapshot
from arena.cluster.messages import (
    CHALLENGES,
    HANDOVER,
    PLAY,
    PRESENCE,
    PRESENCE_ASK,
    REQUEST_GAME,
    STARTS,
    BotPresence,
    FromBot,
    Handover,
    LobbyAnswer,
    LobbyAsk,
    Presence,
    Spectate,
    StartPairing,
    ToBot,
    bot_out,
    decode,
    encode,
    game_in,
    game_spectate,
    game_watch,
    gateway_alive,
    gateway_out,
    presence_to,
)
from arena.cluster.sender import MAX_PUT_WINDOW, Sender, Window
from arena.cluster.slots import RemoteSlots
from arena.errors import ArenaError
from arena.server import ArenaServer
from arena.server.app import Pairing
from arena.server.challenges import HOUR, AcceptPolicy, Challenge, Challenges
from arena.server.clients import GAME_MESSAGES
from arena.server.session import Session
from arena.service import ChallengeError
from arena.storage import PendingChallenge, Storage, StorageFailure
from arena.storage.leader import Leader
from protocol import Message as ProtocolMessage

__all__ = ["HostSide", "RemoteSession", "WatchSession"]

log = logging.getLogger("arena.cluster")

START_ACK_WAIT = 10.0
"""Seconds a host may take to start a pairing it took from the queue before another
host is given it (the host died)."""

MAX_COUNTED = 100_000
"""Running games the leader reads to count the games in flight, at most."""

GIVE_UP_SECONDS = 5.0
"""How long a host that stops leading tries to store its pending challenges' ends
(those not stored by then are left to the next leader, their bots untold)."""

MAX_ENDED = 4096
"""Games that ended on this host remembered, so that a count of the games in flight
read before their end does not count them."""


_FROM_BOT = GAME_MESSAGES | {"cpu"}
"""What a host acts on from ``game.<id>.in``: a bot's messages about a game, and its
gateway's CPU reports."""


class _Credits(TokenBucket):
    """A remote bot's message budget as a host's code sees it: the tokens it gives back
    (`credit`) travel with the next message to the bot's gateway, which keeps the
    budget (`ToBot.credit`)."""

    __slots__ = ("owed",)

    def __init__(self) -> None:
        super().__init__(0.0, 0, 0.0)
        self.owed = 0

    def credit(self) -> None:
        self.owed += 1


class RemoteSession(Session):
    """A bot connected to a gateway, as a host's `Games` and `Ladder` see it: what they
    read of a `Session`, and a `send` that publishes to the bot's gateway. It has no
    socket (the base class's writer is not made), nothing to flush or close, and a
    message budget whose credits go to the gateway that keeps it (`_Credits`)."""

    def __init__(self, presence: BotPresence, sender: Sender) -> None:
        # no Session.__init__: there is no connection here
        self.ws = None
        self.role = "bot"
        self.rate = self.credits = _Credits()
        self.operator = False
        self.spectating: set[str] = set()
        self.closed = False
        self.busy = False
        self._sender = sender
        self.update(presence)

    def update(self, presence: BotPresence) -> None:
        """What the gateway says of the bot now (its hello, ``seek``, ``pause``)."""
        self.presence = presence
        self.name = presence.name
        self.owner = presence.owner
        self.games_played = frozenset(presence.games)
        self.ladders = frozenset(presence.ladders)
        self.capabilities = frozenset(presence.capabilities)
        self.seeking = presence.seeking
        self.seeking_on = dict(presence.seeking_on)
        self.challenges = presence.challenges
        self.hosted = presence.hosted
        self.wall_timed = presence.wall_timed
        if presence.routed:  # its gateway's one subscription, routing by name
            self._subject, self._bot = gateway_out(presence.gateway), presence.name
        else:  # an operator, or a gateway of the version before: the bot's own subject
            self._subject, self._bot = bot_out(presence.name), ""

    def __repr__(self) -> str:
        return f"<RemoteSession {self.name} on {self.presence.gateway}>"

    def send(self, type: str, /, **fields: Any) -> bool:
        credit, self.credits.owed = self.credits.owed, 0
        self._sender.send(self._subject, encode(ToBot(type, fields, credit, self._bot)))
        return True

    def send_message(self, message: ProtocolMessage) -> bool:
        return self.send(message.type, **message.body)

    def flush(self) -> None:
        return

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True

    def hang_up(self, code: int, reason: str) -> None:
        self.closed = True

    async def drain_and_close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True

    async def finished(self) -> None:
        self.closed = True


class WatchSession(RemoteSession):
    """The spectators of one game on every gateway, as the game's `LiveGame.spectators`
    holds them: what the game tells its spectators is published once on
    ``game.<id>.watch`` (each gateway frames it for its own)."""

    def __init__(self, game_id: str, sender: Sender) -> None:
        super().__init__(BotPresence(name=f"watchers of {game_id}", conn="", gateway=""),
                         sender)
        self.role = "spectator"
        self.name = None
        self.gateways: set[str] = set()
        """The gateways with spectators of the game."""
        self._subject = game_watch(game_id)

    def __repr__(self) -> str:
        return f"<WatchSession {self._subject} for {len(self.gateways)} gateway(s)>"


class _ChallengeJournal:
    """The challenges of the leading host, stored for the next leader (its
    `Challenges.journal`): each pending one under this host's name (the keeper), its end
    (kept `HOUR` for ``GET /api/challenges/ID``), and each challenge an account sent (its
    hourly budget), written in order by one task, never waited for by a message (a
    database that fails loses the write, logged: the challenge goes on here). What it
    stored an hour ago is forgotten once a minute (`Storage.forget_challenges`)."""

    def __init__(self, storage: Storage, challenges: Challenges, keeper: str) -> None:
        self.storage = storage
        self.challenges = challenges
        self.keeper = keeper
        self._queue: asyncio.Queue[Callable[[], Awaitable[None]] | None] = asyncio.Queue()
        self._stored: set[str] = set()
        """The pending challenges whose rows this host stored (or took over)."""
        self._forget_at = 0.0
        self._task = asyncio.get_running_loop().create_task(self._run(),
                                                            name="challenge journal")

    def kept(self, rows: Iterable[PendingChallenge]) -> None:
        """Rows taken over (`Storage.take_challenges`): stored under this host's name."""
        self._stored.update(row.id for row in rows)

    def changed(self, challenge: Challenge) -> None:
        if challenge.status == "pending":
            row = replace(self.challenges.stored(challenge), keeper=self.keeper)
            self._queue.put_nowait(lambda: self._put(row))
        else:
            fields, at = challenge.status_fields(), time.time()

            async def end() -> None:
                await self._store_end(challenge.id, fields, at)
            self._queue.put_nowait(end)

    def charged(self, name: str, at: float) -> None:
        self._queue.put_nowait(lambda: self.storage.charge_challenge(name, at))

    async def written(self, challenge: Challenge) -> bool:
        """Store `challenge`'s end (after what waits) while its row is this host's, and
        say whether its bots may be told (`Challenges.give_up`): yes if it was never
        stored (no other host can take it over) or its end is stored now; no if the
        database failed, or another host took it over already."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        async def end() -> None:
            ended = await self._store_end(challenge.id, challenge.status_fields(), time.time())
            if not done.done():  # (not waited for any more: told by nobody)
                done.set_result(ended)
        self._queue.put_nowait(end)
        return await done

    async def _put(self, row: PendingChallenge) -> None:
        await self.storage.put_challenge(row)
        self._stored.add(row.id)

    async def _store_end(self, challenge_id: str, fields: dict[str, Any], at: float) -> bool:
        if challenge_id not in self._stored:
            return True
        try:
            ended = await self.storage.end_challenge(challenge_id, self.keeper, fields, at)
        except StorageFailure as failure:
            log.warning("the end of challenge %s not stored: %s", challenge_id, failure)
            return False
        self._stored.discard(challenge_id)
        return ended

    async def _run(self) -> None:
        while (write := await self._queue.get()) is not None:
            now = time.time()
            try:
                if now >= self._forget_at:
                    self._forget_at = now + 60.0
                    await self.storage.forget_challenges(now - HOUR)
                await write()
            except StorageFailure as failure:
                log.warning("a challenge's change not stored: %s", failure)

    async def close(self, timeout: float = 5.0) -> None:
        """Write what waits (for at most `timeout` seconds), then stop."""
        self._queue.put_nowait(None)
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        self._task.cancel()


class HostSide:
    """See the module docstring.

    Args:
        server: the host's server (started: its games are resumed already).
        bus: the bus to the gateways.
        interval: the gateways' heartbeat interval (`ServerConfig.presence_interval`).
        leader: contends for the ladders' pairing (None: this host never pairs).
    """

    def __init__(self, server: ArenaServer, bus: Bus, *, interval: float,
                 leader: Leader | None) -> None:
        self.server = server
        self.bus = bus
        self.interval = interval
        self.leader = leader
        self.sender = Sender(bus)
        self._loop = asyncio.get_running_loop()
        """(Looked up once: `asyncio.get_running_loop` asks the system for the process's
        id each time, and a bot's every message reads the clock here.)"""
        self._puts = Window(grow_to=MAX_PUT_WINDOW)
        """The pairings put on the durable queue, `PUT_WINDOW` at once (up to
        `MAX_PUT_WINDOW` when they wait for a slot): each waits for the broker to keep
        it (a round trip), off the path of what the games publish."""
        self.follower = PresenceFollower(interval)
        """The gateways' presence, followed by its changes (`arena.cluster.follower`)."""
        self._subscriptions: list[Subscription] = []
        self._starts: Subscription | None = None
        """The consumer of the queue ``starts``."""
        self._games: dict[str, list[Subscription]] = {}
        """The subscriptions of each game live here: ``game.<id>.in`` and
        ``game.<id>.spectate``."""
        self._conns: dict[str, str] = {}
        """The bots' connections (`BotPresence.conn`) -> their names."""
        self._queued: dict[str, tuple[tuple[str, str], float]] = {}
        """The pairings this host put on the queue and not yet seen stored, with when."""
        self._watchers: dict[str, WatchSession] = {}
        """Each game's spectators on the gateways (only while it has some)."""
        self._tasks: list[asyncio.Task[None]] = []
        self._ended: dict[str, None] = {}
        """The last `MAX_ENDED` games that ended here (the leader's counts of games in
        flight, read from the database, may be older than their end)."""
        self.leading = False
        """Whether this host leads now: pairs the ladders, keeps the challenges."""
        self._giving_up: asyncio.Task[None] | None = None
        """The challenges kept while this host led, ended as it stopped leading."""
        self.stale_pairings = 0
        """Pairings forgotten before they were put on the queue (`_put`)."""
        self._cpu: tuple[str, int, float] | None = None
        """The game, turn and CPU time (ms) of the hosted bot's move being acted on (its
        gateway measured it: `FromBot.cpu_ms`)."""
        self._thinking: dict[str, tuple[int, float]] = {}
        """Per game live here whose hosted mover thinks, the turn and the CPU time (ms)
        its gateway last reported (``cpu`` messages)."""
        self._journal = _ChallengeJournal(server.storage, server.challenges, server.host)
        """Stores the pending challenges while this host leads."""
        self.slots = RemoteSlots(bus, server.host, interval=interval)
        """The hosted slots this host's games hold: the gateway keeping the count
        gives them (`arena.cluster.slots`)."""

    def cpu_ms(self, name: str, game_id: str, turn: int) -> float:
        """The CPU meter of this host's games (`Games.cpu_meter`): a hosted bot's
        program runs on a gateway, which sends the CPU time of its turn with its move,
        and every `arena.cluster.gateway.CPU_REPORT_SECONDS` while it thinks."""
        del name
        cpu = self._cpu
        if cpu is not None and cpu[:2] == (game_id, turn):
            return cpu[2]
        reported = self._thinking.get(game_id)
        return reported[1] if reported is not None and reported[0] == turn else 0.0

    async def start(self) -> None:
        """Listen to the gateways, ask them who is online, take pairings to play from
        the queue, contend for the ladders."""
        bus = self.bus
        self._starts = await bus.consume(STARTS, self._start_pairing, ack_wait=START_ACK_WAIT)
        self._subscriptions = [
            # both read as the bus reads them, so in the order each gateway sent them (a
            # snapshot this host asked for, on its own subject, with the changes)
            await bus.listen(PRESENCE, self._presence),
            await bus.listen(presence_to(self.follower.id), self._presence), self._starts,
            await bus.serve(REQUEST_GAME, self._request_game, group="hosts"),
            await bus.serve(PLAY, self._play, group="hosts"),
            await bus.subscribe(HANDOVER, self._handover)]
        self.server.pairings_out = self._put_pairing
        games = self.server.games
        await self.slots.start()  # before any game of a hosted bot can begin here
        games.hosted_slots = self.slots
        games.cpu_meter = self.cpu_ms
        games.on_live = self._game_live
        games.follow_ends = True  # kept until a gateway frames it (a game end lost on the
        # way, or kept here for a bot away when this host stops, is sent from the database)
        for game_id in list(games.live):  # resumed at start, before this
            self._game_live(game_id, True)
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._watch_gateways(), name="gateway watch"))
        if self.leader is not None and self.server.ladders:
            self._tasks.append(loop.create_task(self.leader.run(self._pair),
                                                name="ladder leader"))
        await bus.publish(PRESENCE_ASK, b"")  # every gateway: a snapshot
        self.follower.asked_everyone(loop.time())

    async def close(self) -> None:
        """Stop contending and listening; publish what the games said last (call it after
        the server's shutdown: the games are suspended then)."""
        self.server.games.on_live = None
        self.server.pairings_out = None
        if self.server.released:  # suspended, stored, leases ended: a peer takes them now
            self.sender.send(HANDOVER, encode(Handover(self.server.host, self.server.released)))
        for task in self._tasks:
            task.cancel()
        for task in [*self._tasks, *filter(None, [self._giving_up])]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._journal.close()  # the ends of the challenges it kept are stored
        await self.sender.close()
        await self._puts.close()
        await self.slots.close()
        for subscription in [*self._subscriptions,
                             *(sub for subs in self._games.values() for sub in subs)]:
            await subscription.close()
        self._games.clear()

    async def stop_pairing(self) -> None:
        """Stop leading the ladders (before the server shuts down)."""
        for task in self._tasks:
            task.cancel()

    async def drain(self) -> None:
        """Before the server's shutdown (SIGTERM): stop leading the ladders (another
        host leads) and taking pairings from the queue (the others take them), so a
        stopping host neither pairs nor refuses pairings over and over."""
        await self.stop_pairing()
        # its pairings not on the queue yet are never started: the next leader pairs
        # their bots again (put, they would wait for the broker while this host stops,
        # and those still waiting as its bus closes would fail, each logged)
        dropped = self._puts.discard()
        if dropped or self._puts.done:
            puts = self._puts
            log.warning("pairings put on the queue: %d (at most %d at once, the window "
                        "grown to %d, and %d waiting for a slot, %d failed, %d stale not "
                        "put); %d not queued yet dropped: the next leader pairs their "
                        "bots again", puts.done - puts.failed - self.stale_pairings,
                        puts.most, puts.size, puts.most_waiting, puts.failed,
                        self.stale_pairings, dropped)
        if self._starts is not None:
            self._subscriptions.remove(self._starts)
            await self._starts.close()
            self._starts = None

    # -- the ladders, while this host leads --------------------------------------------

    async def _pair(self) -> None:
        """While this host leads: the ladders pair every bot of every gateway, counting
        each one's games in flight on every host (`_count_games`), and the challenges
        are kept here: stored while pending (`_ChallengeJournal`), those a former leader
        stored taken over (it died: they wait for their answers here)."""
        server = self.server
        ladders = list(server.ladders.values())
        await server.recount_pairings()  # the former leader's pairings count too
        await self._count_games()
        challenges = server.challenges
        challenges.journal = self._journal
        lobby: Subscription | None = None
        try:
            try:
                rows = await server.storage.take_challenges(server.host)
                sent = await server.storage.challenges_charged(time.time() - HOUR)
            except StorageFailure as failure:
                log.warning("the pending challenges could not be read: %s", failure)
                rows, sent = [], []
            self._journal.kept(rows)
            taken = challenges.restore(rows, sent)
            lobby = await self.bus.serve(CHALLENGES, self._challenges, group="leader")
            log.warning("this host leads: it pairs the ladders and keeps the challenges"
                        "%s", f" ({taken} pending taken over)" if taken else "")
            for ladder in ladders:
                ladder.start()
            interval = min(ladder.config.interval for ladder in ladders)
            self.leading = True
            while True:
                await asyncio.sleep(interval)
                try:
                    await self._count_games()
                except StorageFailure as failure:
                    log.warning("the games in flight could not be counted: %s", failure)
        finally:
            self.leading = False
            if lobby is not None:
                await lobby.close()
            challenges.journal = None
            # each ends here, its bots told, once its end is stored as this host's; one
            # whose end cannot be stored (the database fails: why the lock was lost) is
            # left to the next leader untold, as a leader killed leaves them. In a task of
            # its own: a second cancel of this one (the host closing) does not cut it short
            self._giving_up = asyncio.get_running_loop().create_task(
                self._give_up(), name="challenges given up")
            server.ladder_games = None
            for ladder in ladders:
                await ladder.stop()

    async def _give_up(self) -> None:
        """End the challenges kept while this host led (`Challenges.give_up`), for at
        most `GIVE_UP_SECONDS`."""
        try:
            cancelled = await asyncio.wait_for(self.server.challenges.give_up(
                "the game host that kept it stopped: challenge again",
                self._journal.written), GIVE_UP_SECONDS)
        except TimeoutError:
            log.warning("the pending challenges' ends not stored within %g s: left to the "
                        "next leader", GIVE_UP_SECONDS)
            return
        if cancelled:
            log.info("%d pending challenge(s) cancelled", cancelled)

    async def _count_games(self) -> None:
        """Each player's games in flight on every host, as the leader's ladders count
        them: the running games stored, and the pairings queued but not stored yet
        (each two games; forgotten once stored, or after `START_ACK_WAIT` twice)."""
        rows = await self.server.storage.games(status="running", limit=MAX_COUNTED)
        rows = [row for row in rows if row.id not in self._ended]
        stored = {row.pair for row in rows if row.pair is not None}
        now = asyncio.get_running_loop().time()
        for pair, (_, at) in list(self._queued.items()):
            if pair in stored or now - at > 2 * START_ACK_WAIT:
                del self._queued[pair]
        games: defaultdict[str, set[str]] = defaultdict(set)
        for row in rows:
            for name in row.players:
                games[name].add(row.id)
        for pair, (players, _) in self._queued.items():
            for name in players:
                games[name] |= {f"{pair}.0", f"{pair}.1"}
        self.server.ladder_games = games

    # -- the pairings to play ----------------------------------------------------------

    def _put_pairing(self, pairing: Pairing) -> None:
        """The leader paired two bots: to the durable queue, which one host takes (never
        waiting; off the games' path: the broker confirms each put, several at once,
        started in the order paired)."""
        self._queued[pairing.pair] = ((pairing.first, pairing.second),
                                      asyncio.get_running_loop().time())
        data = encode(StartPairing(
            pairing.ladder, pairing.first, pairing.second, pairing.pair,
            dict(pairing.settings),
            tuple(None if seed is None else str(seed) for seed in pairing.seeds)))
        self._puts.call(lambda: self._put(pairing.pair, data))

    async def _put(self, pair: str, data: bytes) -> None:
        """Put a pairing on the queue, unless `_count_games` forgot it meanwhile (it
        waited here `2 * START_ACK_WAIT`: its bots were counted free again, and paired
        again). The puts, a broker's round trip each, fell behind the pairing under load
        when they went one at a time (8 258 waited when a leader of 2 000 bots stopped):
        now `PUT_WINDOW` go at once (`Window`, growing to `MAX_PUT_WINDOW` while they
        wait for a slot), and should some still wait that long,
        those gone stale are not started, nor make the fresh ones wait behind them. A
        put that fails is logged; its bots count as playing until `_count_games`
        forgets it, then are paired again."""
        if pair not in self._queued:
            self.stale_pairings += 1
            return
        await self.bus.put(STARTS, data)

    async def _start_pairing(self, message: Message) -> None:
        """A pairing from the queue: its games started here (leased to this host)."""
        if self.server.stopping:  # (raising: the queue gives it to another host)
            raise RuntimeError("this host stops: the pairing goes to another")
        asked = decode(StartPairing, message.data)
        self.server.start_pairing(Pairing(
            asked.ladder, asked.first, asked.second, asked.pair, asked.settings,
            tuple(None if seed is None else int(seed) for seed in asked.seeds)))

    async def _request_game(self, message: Message) -> bytes:
        """An operator's ``request_game`` on a gateway: started here, answered on the
        operator's subject as one process answers it (`Clients.request_game`)."""
        said = decode(FromBot, message.data)
        if said.type != "request_game":
            return b""
        operator = RemoteSession(BotPresence(said.bot, conn=said.conn, gateway=""),
                                 self.sender)
        operator.role = "operator"
        self.server.clients.request_game(
            operator, ProtocolMessage.unchecked(said.type, **said.body))
        return b""

    # -- the lobby: challenges (while this host leads) and the web's games ---------------

    def _known(self, presence: BotPresence | None) -> None:
        """Take the account a gateway asks for as connected, as its gateway does (its
        presence may come after its question)."""
        if presence is None:
            return
        self.follower.alive(presence.gateway, self._loop.time())
        session = self.server.sessions.get(presence.name)
        if not isinstance(session, RemoteSession) or session.presence.conn != presence.conn:
            self._online(presence)

    async def _challenges(self, message: Message) -> bytes:
        """The challenges, kept by the leading host: a bot's ``challenge``, ``accept`` or
        ``decline`` acted on as one process acts on it (`Clients.act`, answered on its
        subject), the web's ``web_challenge`` and ``challenge_status`` answered."""
        asked = decode(LobbyAsk, message.data)
        server = self.server
        for presence in (asked.presence, *asked.named):
            self._known(presence)
        if asked.type in ("challenge", "accept", "decline"):
            session = server.sessions.get(asked.presence.name if asked.presence else "")
            if isinstance(session, RemoteSession):
                server.clients.act(session, ProtocolMessage.unchecked(asked.type, **asked.body))
            return b""
        try:
            if asked.type == "challenge_status":
                fields = await server.challenge_status(str(asked.body.get("challenge_id")))
            elif asked.type == "web_challenge":
                body = asked.body
                fields = await server.challenge(
                    str(body["challenger"]), str(body["opponent"]), seat=body.get("seat"),
                    ladder=body.get("ladder"), rated=bool(body.get("rated")))
            else:
                return b""
        except ChallengeError as error:
            return encode(LobbyAnswer(error="ChallengeError", message=str(error),
                                      code=error.code, params=dict(error.params)))
        return encode(LobbyAnswer(fields))

    async def _play(self, message: Message) -> bytes:
        """A game the web started on a gateway (``start``, `ArenaServer.launch_game`: a
        browser's guest against a house bot, a match between two house bots, a season
        final's game), started here as one process starts it, on the time control it
        names (or the server's), and answered once stored as running (a gateway counting
        a guest's games reads it then). ``play`` (a guest's game on this host's web time
        control) is what a gateway of the version before asks, still answered during a
        rolling upgrade."""
        asked = decode(LobbyAsk, message.data)
        server = self.server
        self._known(asked.presence)
        body = asked.body
        try:
            if asked.type == "play":
                control: TimeControl | None = server.config.web_time_control
            elif asked.type == "start":
                named = body.get("time_control")
                control = None if named is None else TimeControl.from_json(named)
            else:
                return encode(LobbyAnswer(error="ArenaError",
                                          message=f"no such question: {asked.type!r}"))
            pair = body.get("pair")
            live = server.start_game(str(body["game"]), dict(body["settings"]),
                                     [str(name) for name in body["players"]],
                                     time_control=control,
                                     pair=None if pair is None else str(pair))
            await server.games.started(live)
        except (ArenaError, RuntimeError, ValueError, KeyError, TypeError) as error:
            kind = type(error).__name__ if isinstance(error, ArenaError) else "ArenaError"
            return encode(LobbyAnswer(error=kind, message=str(error)))
        return encode(LobbyAnswer({"game_id": live.id, "players": list(live.players)}))

    async def _handover(self, message: Message) -> None:
        """A peer stopped and ended its games' leases: claim them now (they resume
        here), not at the lease keeper's next round (up to a third of a lease later)."""
        said = decode(Handover, message.data)
        if said.host == self.server.host or self.server.stopping:
            return
        try:
            claimed = await self.server.claim_now()
        except StorageFailure as failure:  # the keeper's next round claims them
            log.warning("the games %s handed over could not be claimed now: %s",
                        said.host, failure)
            return
        log.info("host %s handed %d game(s) over; this host took %d", said.host,
                 said.games, claimed)

    # -- presence ----------------------------------------------------------------------

    def _presence(self, message: Message) -> None:
        news = decode(Presence, message.data)
        heard = self.follower.hear(news, self._loop.time())
        for gone in heard.gone:
            name = self._conns.get(gone)
            if name is not None:
                self._left(name)
        for presence in heard.online:
            self._online(presence)
        if heard.ask:
            ask_snapshot(self.sender, news.gateway, heard, self.follower.id)

    def _online(self, presence: BotPresence) -> None:
        server = self.server
        name = presence.name
        session = server.sessions.get(name)
        if isinstance(session, RemoteSession):
            known = session.presence
            if known.conn == presence.conn:
                session.update(presence)  # a snapshot, or a seek or pause: nothing to resend
                self._policy(presence)
                return
            if (known.since, known.conn) > (presence.since, presence.conn):
                return  # an older connection, still in its gateway's snapshot: closed there
            self._conns.pop(known.conn, None)
        session = RemoteSession(presence, self.sender)
        server.sessions[name] = session
        self._conns[presence.conn] = name
        self._policy(presence)
        games = server.games
        games.client_changed(name, session)
        for live in games.of(name):  # the restart's path: its games' states again
            games.resume(live, name)
        for fields in games.take_unheard(name):  # over while it moved between gateways
            session.send("game_over", **fields)

    def _policy(self, presence: BotPresence) -> None:
        """The bot's accept policy, for the challenges to it (while this host leads)."""
        try:
            policy = None if presence.accept is None else AcceptPolicy.from_json(presence.accept)
        except ValueError:  # checked by its gateway
            policy = None
        self.server.challenges.connected(presence.name, policy)

    def _left(self, name: str) -> None:
        server = self.server
        session = server.sessions.pop(name, None)
        if session is not None:
            server.challenges.left(name)  # its pending challenges are cancelled
            if isinstance(session, RemoteSession):
                self._conns.pop(session.presence.conn, None)
            server.games.client_changed(name, None)  # its grace periods start

    async def _watch_gateways(self) -> None:
        """Take the bots of a gateway silent for `SILENT_ROUNDS` intervals for gone: once
        this host has read what the broker still had for it (`Bus.caught_up`, at most an
        interval: a loaded host reads late, and a gateway's heartbeat may be waiting)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.interval)
            now = loop.time()
            kept: frozenset[str] = frozenset()
            if self.follower.quiet(now):  # judged as of now: what is read meanwhile counts
                await self.bus.caught_up(self.interval)
                kept = await self._connected(self.follower.quiet(now), now)
            silent = set(self.follower.silent(now, kept=kept))
            for gateway in silent:
                log.warning("gateway %s is silent: its bots are taken for gone", gateway)
            if silent:
                for name, session in list(self.server.sessions.items()):
                    if isinstance(session, RemoteSession) and session.presence.gateway in silent:
                        self._left(name)

    async def _connected(self, quiet: list[str], now: float) -> frozenset[str]:
        """Of the `quiet` gateways, those still connected to the broker (`gateway_alive`:
        an answer, or none in time), silent for less than `DEAD_ROUNDS` intervals: a
        gateway starved of the CPU sends nothing for seconds, and its bots are still
        there. One whose connection is gone (no responders), or that the bus cannot ask,
        is silent."""

        async def connected(gateway: str) -> bool:
            silence = now - self.follower.heard.get(gateway, now)
            if silence > DEAD_ROUNDS * self.interval:
                return False
            try:
                await self.bus.request(gateway_alive(gateway), b"", timeout=self.interval)
            except BusTimeout:
                pass  # connected, and busy
            except BusError:  # no responders: its connection is gone
                return False
            log.info("gateway %s sent nothing for %.1f s but is connected to the broker: "
                     "its bots are kept", gateway, silence)
            return True

        answers = await asyncio.gather(*(connected(gateway) for gateway in quiet))
        return frozenset(gateway for gateway, kept in zip(quiet, answers, strict=True) if kept)

    # -- the bots' messages about games ------------------------------------------------

    def _game_live(self, game_id: str, live: bool) -> None:
        """Listen to ``game.<id>.in`` while the game is live here: subscribed before
        anything about the game is published, ended after the last (in order with what
        the sender publishes: the broker has the subscription before the game's first
        message, so before any answer to it, with no round trip). A game that ends
        here is no longer counted in flight (`_count_games`) from now on."""
        if not live:
            self._ended[game_id] = None
            if len(self._ended) > MAX_ENDED:
                del self._ended[next(iter(self._ended))]
            for games in (self.server.ladder_games or {}).values():
                if isinstance(games, set):
                    games.discard(game_id)
        self.sender.call(lambda: self._listen(game_id, live))

    async def _listen(self, game_id: str, live: bool) -> None:
        if live and game_id in self.server.games.live and game_id not in self._games:
            self._games[game_id] = [
                await self.bus.listen(game_in(game_id), self._from_bot, confirm=False),
                await self.bus.serve(game_spectate(game_id), self._spectate, confirm=False)]
        elif not live:
            self._watchers.pop(game_id, None)
            self._thinking.pop(game_id, None)
            for subscription in self._games.pop(game_id, []):
                await subscription.close()

    async def _spectate(self, message: Message) -> bytes:
        """A gateway's first spectator of a game came (the answer: its ``game_state``
        as of its last stored move, as `Games.watch` gives one process's), or its last
        left."""
        asked = decode(Spectate, message.data)
        game_id = message.subject.split(".")[1]
        games = self.server.games
        if not asked.watch:
            watchers = self._watchers.get(game_id)
            if watchers is not None:
                watchers.gateways.discard(asked.gateway)
                if not watchers.gateways and (live := games.live.get(game_id)) is not None:
                    live.spectators.discard(watchers)
                    del self._watchers[game_id]
            return b""
        live = await games.stored_view(game_id)
        if live is None or live.over:
            return b""
        watchers = self._watchers.get(game_id)
        if watchers is None:
            watchers = self._watchers[game_id] = WatchSession(game_id, self.sender)
            live.spectators.add(watchers)
        watchers.gateways.add(asked.gateway)
        return encode(ToBot("game_state", live.state_message()))

    def _from_bot(self, message: Message) -> None:
        """A bot's message about a game: acted on if the game is this host's (as the
        bus reads it: `Bus.listen`)."""
        try:
            said = decode(FromBot, message.data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("a malformed message on %s", message.subject)
            return
        server = self.server
        game_id = said.body.get("game_id")
        if said.type not in _FROM_BOT or game_id not in server.games.live:
            return  # another host's game (or none's)
        session = server.sessions.get(said.bot)
        if not isinstance(session, RemoteSession) or session.presence.conn != said.conn:
            return  # not announced yet, or a connection since replaced
        # its gateway lives, whether or not its heartbeats come on time (a starved one's)
        self.follower.alive(session.presence.gateway, self._loop.time())
        turn = said.body.get("turn")
        if said.type == "cpu":  # its gateway's report while the bot thinks (its timer reads it)
            if said.cpu_ms is not None and isinstance(turn, int):
                self._thinking[game_id] = (turn, max(0.0, said.cpu_ms))
            return
        if said.type == "move":
            self._thinking.pop(game_id, None)
        if said.cpu_ms is not None and isinstance(turn, int):
            self._cpu = (game_id, turn, max(0.0, said.cpu_ms))
        try:
            server.clients.act(session, ProtocolMessage(said.type, said.body))  # (its own dict)
        finally:
            self._cpu = None
