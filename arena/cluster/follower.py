"""Following a gateway's presence by its changes (docs/cluster.md, "Presence").

A gateway publishes on ``bots.presence`` what changes (bots online, connections gone),
each change numbered in its run (`Presence.epoch`, `Presence.seq`); every interval a
heartbeat with the number of its last change and the count and digest of the
connections it announced; and a snapshot of them all only when a follower asks
(``bots.presence.ask``), and rarely. So a quiet arena's presence is one small
heartbeat per gateway per interval, whatever its bots.

A follower (every host, every other gateway) keeps per gateway the connections it
announced and the number of its last change heard. `PresenceFollower.hear` says what of
a message to apply, and whether to ask the gateway for a snapshot: a change missed (a
number skipped, or a heartbeat ahead), a run just heard of (a follower that starts, a
gateway that restarted: its former run's connections are gone), a count or digest
that differs. The snapshot, published in order with the changes, puts it back in step:
its connections are the gateway's, any other it knew is gone.

A follower asks on its own subject (`PresenceAsk.to`, `presence_to` its `id`), so the
snapshot it asked for goes to it alone; the snapshot a gateway publishes every
`SNAPSHOT_ROUNDS` intervals unasked, and those asked when a host starts, go to every
follower on ``bots.presence``.

A gateway is taken for dead when nothing of it was heard for `SILENT_ROUNDS` intervals:
not a heartbeat, not a change, nor anything else of it the broker delivered (a host
counts its bots' moves and questions: `alive`), and a heartbeat that says its timer woke
late (`Presence.late`: its event loop starved) gives it as much longer, up to
`SILENT_ROUNDS` intervals more. Before a host takes a silent gateway for dead it asks the
broker whether the gateway is still connected (`arena.cluster.messages.gateway_alive`):
a gateway starved of the CPU sends nothing at all, and is kept until `DEAD_ROUNDS`
intervals of silence; one whose connection is gone is dead at once.

A gateway from before the numbering (an empty `Presence.epoch`, during a rolling
restart) is followed as before: its news applied as it comes, its snapshots every
interval.
"""

from __future__ import annotations

import hashlib
import logging
import math
import uuid
from collections.abc import Collection
from dataclasses import dataclass

from arena.cluster.messages import PRESENCE_ASK, BotPresence, Presence, PresenceAsk, encode
from arena.cluster.sender import Sender

__all__ = ["ASK_ROUNDS", "DEAD_ROUNDS", "SILENT_ROUNDS", "Heard", "PresenceFollower", "ask_snapshot",
           "conn_digest"]

log = logging.getLogger("arena.cluster")

ASK_ROUNDS = 5
"""Intervals a follower waits for the snapshot it asked a gateway for before it asks
again (a snapshot of 20 000 bots is 200 messages: asked at every heartbeat by a loaded
follower, they would be the traffic the changes spare)."""


SILENT_ROUNDS = 3
"""Intervals a gateway may say nothing before it is taken for dead, its bots for gone
(as many more at most if its last heartbeat said its timer woke late: `Presence.late`),
unless it is still connected to the broker (a host asks: `DEAD_ROUNDS`)."""

DEAD_ROUNDS = 15
"""Intervals of silence after which a gateway is taken for dead even though the broker
still has its connection (30 s by default: a machine gone without closing its
connections, which the broker notices only minutes later); before, a host keeps the
bots of a silent gateway still connected (starved of the CPU, not dead:
`arena.cluster.messages.gateway_alive`)."""


def conn_digest(conn: str) -> int:
    """A connection's share of its gateway's digest (`Presence.digest`, their XOR: a
    connection added or removed changes it in O(1))."""
    return int.from_bytes(hashlib.blake2b(conn.encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True)
class Heard:
    """What to do with a message heard: apply `online` and `gone` (connections), and ask
    its gateway for a snapshot if `ask`; `lost`: because the follower was in step and is
    no longer (a change lost, a digest that differs), not because it just heard of the
    gateway's run."""

    online: tuple[BotPresence, ...] = ()
    gone: tuple[str, ...] = ()
    ask: bool = False
    lost: bool = False


class _Stream:
    """What a follower knows of one gateway's run."""

    __slots__ = ("asked", "conns", "digest", "epoch", "pending", "pending_count",
                 "pending_seq", "seq", "synced")

    def __init__(self, epoch: str, asked: float) -> None:
        self.epoch = epoch
        self.seq = 0
        """The number of the last change applied."""
        self.synced = False
        """Whether every change up to `seq` was heard (or a snapshot as of it)."""
        self.conns: set[str] = set()
        self.digest = 0
        self.pending: set[str] | None = None
        """The connections of the snapshot being heard (its messages so far)."""
        self.pending_seq = 0
        self.pending_count = 0
        self.asked = asked

    def add(self, conn: str) -> None:
        if conn not in self.conns:
            self.conns.add(conn)
            self.digest ^= conn_digest(conn)

    def remove(self, conn: str) -> None:
        if conn in self.conns:
            self.conns.discard(conn)
            self.digest ^= conn_digest(conn)


class PresenceFollower:
    """The gateways' presence as one follower hears it (see the module docstring).

    Args:
        interval: the gateways' heartbeat interval (`ServerConfig.presence_interval`).
    """

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.id = uuid.uuid4().hex[:12]
        """This follower's name on the bus: the snapshots it asks for come on
        `arena.cluster.messages.presence_to` of it (`ask_snapshot`)."""
        self.streams: dict[str, _Stream] = {}
        self.asks = 0
        """Snapshots asked for (`hear` said ``ask``)."""
        self.lost = 0
        """Of them, those asked because the follower fell out of step (`Heard.lost`)."""
        self._asked_everyone = -math.inf
        self.snapshots = 0
        """Snapshot messages heard (of every gateway)."""
        self.heard: dict[str, float] = {}
        """When each gateway was last heard (the loop's clock)."""
        self.late: dict[str, float] = {}
        """How late each gateway's timer woke for its last heartbeat (`Presence.late`)."""
        self.judged = 0
        """Rounds of `silent` that judged the gateways (the watcher woke on time)."""
        self._woke: float | None = None

    def asked_everyone(self, now: float) -> None:
        """Every gateway was just asked for a snapshot (a host that starts): a gateway
        first heard now is not asked again before its snapshot had time to come."""
        self._asked_everyone = now

    def alive(self, gateway: str, now: float) -> None:
        """Something of `gateway` other than its presence was delivered at `now` (a bot's
        move it relayed): it lives, whether or not its heartbeats come on time. A
        gateway not followed (never heard, or taken for silent) stays so: its presence
        says what it holds."""
        if gateway in self.heard:
            self.heard[gateway] = now

    def silent(self, now: float, *, kept: Collection[str] = ()) -> list[str]:
        """The gateways that said nothing for `SILENT_ROUNDS` intervals (dead: their bots
        are gone), forgotten; called by the follower's watcher once an interval. A
        gateway whose last heartbeat said its timer woke late (`Presence.late`) has as
        much longer (`SILENT_ROUNDS` intervals more at most, so a gateway killed then is
        taken for dead within twice the time). None if the watcher itself woke over an
        interval late: the follower was stalled (a starved machine), and what the
        gateways said meanwhile may still be waiting to be read; they are judged at its
        next round, on time. The gateways `kept` (still connected to the broker: a host
        asked them, `arena.cluster.messages.gateway_alive`) are not taken yet."""
        late = 0.0 if self._woke is None else now - self._woke - self.interval
        self._woke = now
        if late > self.interval:
            log.warning("the presence watcher woke %.1f s late: no gateway judged silent "
                        "this round", late)
            return []
        self.judged += 1
        silent = [gateway for gateway in self.quiet(now) if gateway not in kept]
        for gateway in silent:
            del self.heard[gateway]
            self.late.pop(gateway, None)
            self.streams.pop(gateway, None)
        return silent

    def quiet(self, now: float) -> list[str]:
        """The gateways `silent` would take for dead at `now` (nothing forgotten): before
        it does, a host reads what the broker still has for it (`Bus.caught_up`)."""
        allowed = SILENT_ROUNDS * self.interval
        late = self.late
        return [gateway for gateway, at in self.heard.items()
                if now - at > allowed + min(late.get(gateway, 0.0), allowed)]

    def hear(self, news: Presence, now: float) -> Heard:
        """What to make of `news` (heard at `now`, the loop's clock)."""
        self.heard[news.gateway] = now
        if news.snapshot:
            self.snapshots += 1
        elif not (news.online or news.gone):  # a heartbeat: how late it is
            if news.late:
                self.late[news.gateway] = news.late
            else:
                self.late.pop(news.gateway, None)
        if not news.epoch:  # a gateway from before the numbering: applied as it comes
            return Heard(news.online, news.gone)
        stream = self.streams.get(news.gateway)
        former: tuple[str, ...] = ()
        if stream is None or stream.epoch != news.epoch:
            if stream is not None:  # the gateway restarted: its former connections are gone
                former = tuple(stream.conns)
            stream = self.streams[news.gateway] = _Stream(news.epoch, self._asked_everyone)
        synced = stream.synced
        if news.snapshot:
            heard = self._snapshot(stream, news)
        elif news.online or news.gone:
            heard = self._change(stream, news)
        else:
            heard = Heard(ask=not _in_step(stream, news))
        if former:
            heard = Heard(heard.online, former + heard.gone, heard.ask)
        if heard.ask:
            if now - stream.asked < ASK_ROUNDS * self.interval:
                return Heard(heard.online, heard.gone)
            stream.asked = now
            self.asks += 1
            if synced:
                self.lost += 1
                return Heard(heard.online, heard.gone, ask=True, lost=True)
        return heard

    @staticmethod
    def _change(stream: _Stream, news: Presence) -> Heard:
        for conn in news.gone:
            stream.remove(conn)
        for presence in news.online:
            stream.add(presence.conn)
        if stream.synced and news.seq == stream.seq + 1:
            stream.seq = news.seq
            return Heard(news.online, news.gone)
        stream.synced = False  # one missed, or heard from the middle: a snapshot puts it right
        stream.seq = max(stream.seq, news.seq)
        return Heard(news.online, news.gone, ask=True)

    @staticmethod
    def _snapshot(stream: _Stream, news: Presence) -> Heard:
        if stream.pending is None or stream.pending_seq != news.seq:
            stream.pending = set()
            stream.pending_seq, stream.pending_count = news.seq, news.count
        stream.pending.update(presence.conn for presence in news.online)
        for presence in news.online:
            stream.add(presence.conn)
        if len(stream.pending) < stream.pending_count:
            return Heard(news.online)
        gone = tuple(conn for conn in stream.conns if conn not in stream.pending)
        for conn in gone:
            stream.remove(conn)
        stream.pending = None
        stream.seq, stream.synced = news.seq, True
        stream.asked = -math.inf  # answered: the next change missed is asked about at once
        return Heard(news.online, gone)


def ask_snapshot(sender: Sender, gateway: str, heard: Heard, to: str) -> None:
    """Ask `gateway` for a snapshot (logged as a warning if a change was lost), to be
    published to the follower `to` alone (`PresenceFollower.id`)."""
    (log.warning if heard.lost else log.info)(
        "out of step with gateway %s's presence: a snapshot asked", gateway)
    sender.send(PRESENCE_ASK, encode(PresenceAsk(gateway, to)))


def _in_step(stream: _Stream, beat: Presence) -> bool:
    """Whether a heartbeat agrees with what the follower heard: it follows the changes
    it numbers (published before it, on one connection), so one numbered ahead says a
    change was lost."""
    if not stream.synced or beat.seq > stream.seq:
        return False
    if beat.seq < stream.seq:
        return True  # cannot be, on one connection; nothing to compare it with
    return beat.count == len(stream.conns) and beat.digest == stream.digest
