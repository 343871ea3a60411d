"""A gateway's side of the bus (``arena serve --role gateway``, docs/cluster.md).

The gateway holds the bots' connections (`arena.server.clients.Clients` does the
handshake, the accounts, the budgets and the framing as in one process) and owns no
game. `GatewayRelay` is the clients' `Relay`: a bot that finishes its handshake is
subscribed to ``bot.<name>.out`` (what its games' hosts send it, framed here) and only
then announced on ``bots.presence``, so nothing a host sends it is lost; its messages
about a game go to ``game.<id>.in``; its leaving is announced. Every
`ServerConfig.presence_interval` the gateway publishes a snapshot of its bots (and at
once when a host asks, on ``bots.presence.ask``), so a host that starts, or missed a
message, learns who is online, and a gateway that died is noticed by its silence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

from arena.bus import Bus, Message, Subscription
from arena.cluster.messages import (
    PRESENCE,
    PRESENCE_ASK,
    BotPresence,
    FromBot,
    Presence,
    ToBot,
    bot_out,
    decode,
    encode,
    game_in,
)
from arena.cluster.sender import Sender
from arena.server.session import Session
from protocol import Message as ProtocolMessage

__all__ = ["SNAPSHOT_CHUNK", "GatewayRelay"]

log = logging.getLogger("arena.cluster")

SNAPSHOT_CHUNK = 100
"""Bots per snapshot message: a hello lists at most 64 ladder names of 64 characters,
so 100 bots' presences fit in `arena.bus.MAX_MESSAGE_BYTES`."""


class _Bot:
    """A bot connected here: its session, connection id and subscription."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.conn = uuid.uuid4().hex[:16]
        self.subscription: Subscription | None = None


class GatewayRelay:
    """See the module docstring.

    Args:
        bus: the bus to the hosts.
        gateway: this gateway's name (its host id).
        interval: seconds between presence snapshots.
    """

    def __init__(self, bus: Bus, gateway: str, *, interval: float = 2.0) -> None:
        self.bus = bus
        self.gateway = gateway
        self.interval = interval
        self.sender = Sender(bus)
        self.bots: dict[str, _Bot] = {}
        """The bots connected here, by name."""
        self._control: asyncio.Queue[tuple[str, _Bot] | None] = asyncio.Queue()
        """Subscriptions and announcements, done in order by one task."""
        self._tasks: list[asyncio.Task[None]] = []
        self._ask: Subscription | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._ask = await self.bus.subscribe(PRESENCE_ASK, self._asked)
        self._tasks = [loop.create_task(self._run_control(), name="gateway presence"),
                       loop.create_task(self._snapshots(), name="gateway snapshots")]

    async def close(self) -> None:
        """Announce the bots still here as gone, then stop (after the clients closed)."""
        self._control.put_nowait(None)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._tasks[0]), 5)
        for task in self._tasks:
            task.cancel()
        if self._ask is not None:
            await self._ask.close()
        for bot in self.bots.values():
            if bot.subscription is not None:
                await bot.subscription.close()
        await self.sender.close()

    # -- the clients' Relay ------------------------------------------------------------

    def online(self, session: Session) -> None:
        name = session.name
        if name is None:
            return
        bot = self.bots.get(name)
        if bot is None or bot.session is not session:
            if bot is not None:  # replaced by a new connection: the old one is gone
                self._control.put_nowait(("gone", bot))
            bot = self.bots[name] = _Bot(session)
            self._control.put_nowait(("online", bot))
        else:
            self._control.put_nowait(("changed", bot))

    def offline(self, session: Session) -> None:
        name = session.name
        bot = self.bots.get(name or "")
        if bot is not None and bot.session is session:
            del self.bots[bot.session.name or ""]
            self._control.put_nowait(("gone", bot))

    def forward(self, session: Session, message: ProtocolMessage) -> None:
        name = session.name or ""
        bot = self.bots.get(name)
        if bot is None or bot.session is not session:
            return
        self.sender.send(game_in(message["game_id"]),
                         encode(FromBot(name, bot.conn, message.type, dict(message.body))))

    # -- the bus -----------------------------------------------------------------------

    def _presence(self, bot: _Bot) -> BotPresence:
        session = bot.session
        return BotPresence(
            name=session.name or "", conn=bot.conn, gateway=self.gateway, owner=session.owner,
            games=tuple(sorted(session.games_played)), ladders=tuple(sorted(session.ladders)),
            capabilities=tuple(sorted(session.capabilities)), seeking=session.seeking,
            seeking_on=dict(session.seeking_on), challenges=session.challenges,
            hosted=session.hosted)

    async def _run_control(self) -> None:
        """Subscribe a bot to its messages before announcing it; end it after."""
        while (item := await self._control.get()) is not None:
            kind, bot = item
            try:
                if kind == "online":
                    bot.subscription = await self.bus.subscribe(
                        bot_out(bot.session.name or ""),
                        lambda message, bot=bot: self._to_bot(bot, message))  # type: ignore[misc]
                    if self.bots.get(bot.session.name or "") is not bot:
                        await bot.subscription.close()  # left meanwhile
                        continue
                if kind == "gone":
                    if bot.subscription is not None:
                        await bot.subscription.close()
                    self.sender.send(PRESENCE, encode(Presence(self.gateway, gone=(bot.conn,))))
                else:
                    self.sender.send(PRESENCE, encode(Presence(
                        self.gateway, online=(self._presence(bot),))))
            except Exception:  # one bot's trouble stops no other's
                log.exception("presence of %s on the bus failed", bot.session.name)

    async def _to_bot(self, bot: _Bot, message: Message) -> None:
        """A host's message for a bot connected here: framed and sent."""
        session = bot.session
        if session.closed:
            return
        out = decode(ToBot, message.data)
        if out.type == "your_turn" and session.rate is not None:
            session.rate.credit()  # a turn asks for a move: that message is budgeted
        session.send(out.type, **out.fields)

    def snapshot(self) -> None:
        """Publish every bot connected here, `SNAPSHOT_CHUNK` to a message (each well
        under the bus's message size); an empty one says the gateway is alive."""
        bots = [self._presence(bot) for bot in self.bots.values()
                if bot.subscription is not None]
        for start in range(0, max(len(bots), 1), SNAPSHOT_CHUNK):
            self.sender.send(PRESENCE, encode(Presence(
                self.gateway, online=tuple(bots[start:start + SNAPSHOT_CHUNK]),
                snapshot=True)))

    async def _asked(self, message: Message) -> None:
        del message
        self.snapshot()

    async def _snapshots(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self.snapshot()
