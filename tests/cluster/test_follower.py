"""Presence by changes (`arena.cluster.follower`, issue 24): a follower stays in step with
a gateway's numbered changes, asks for a snapshot when it is not (a change missed, a
run just heard of, a digest that differs), and the snapshot puts it back; and a
gateway's traffic per interval is one heartbeat whatever its bots."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import reduce
from typing import Any

from arena.bus import Bus, Message, open_bus
from arena.cluster import gateway as gateway_module
from arena.cluster import host as host_module
from arena.cluster.follower import (
    ASK_ROUNDS,
    SILENT_ROUNDS,
    Heard,
    PresenceFollower,
    ask_snapshot,
    conn_digest,
)
from arena.cluster.gateway import SNAPSHOT_CHUNK, GatewayRelay
from arena.cluster.host import HostSide
from arena.cluster.messages import (
    PRESENCE,
    PRESENCE_ASK,
    BotPresence,
    FromBot,
    Presence,
    PresenceAsk,
    ToBot,
    decode,
    encode,
    game_in,
    gateway_out,
    presence_to,
)
from arena.server.session import Session
from protocol import Encoding, ProtocolCore
from tests.bus.conftest import nats_prefix, nats_url
from tests.waiting import wait_for


def bot(name: str, gateway: str = "g1") -> BotPresence:
    return BotPresence(name, conn=f"c-{name}", gateway=gateway)


def change(seq: int, *online: BotPresence, gone: tuple[str, ...] = (),
           epoch: str = "e1") -> Presence:
    return Presence("g1", online, gone, epoch=epoch, seq=seq)


def beat(seq: int, *conns: str, epoch: str = "e1") -> Presence:
    digest = reduce(lambda a, b: a ^ b, map(conn_digest, conns), 0)
    return Presence("g1", epoch=epoch, seq=seq, count=len(conns), digest=digest)


def snapshot(seq: int, *online: BotPresence, count: int | None = None,
             epoch: str = "e1") -> Presence:
    return Presence("g1", online, snapshot=True, epoch=epoch, seq=seq,
                    count=len(online) if count is None else count)


def in_step(count: int = 0) -> PresenceFollower:
    """A follower in step with g1 (run e1) as of change `count`, heard from the start."""
    follower = PresenceFollower(1.0)
    assert follower.hear(snapshot(0), 0.0) == Heard()
    for seq in range(1, count + 1):
        assert not follower.hear(change(seq, bot(f"b{seq}")), 0.0).ask
    return follower


def test_a_follower_in_step_applies_the_changes_and_asks_nothing() -> None:
    follower = in_step(2)
    heard = follower.hear(change(3, bot("carol"), gone=("c-b1",)), 1.0)
    assert heard == Heard((bot("carol"),), ("c-b1",))
    assert not follower.hear(beat(3, "c-b2", "c-carol"), 2.0).ask
    assert follower.asks == 0


def test_a_follower_that_misses_a_change_asks_and_the_snapshot_puts_it_back() -> None:
    follower = in_step(2)
    # change 3 (b1 gone) is lost; change 4 comes: applied, but out of step
    heard = follower.hear(change(4, bot("dave")), 1.0)
    assert heard.online == (bot("dave"),) and heard.ask and heard.lost
    assert not follower.hear(beat(4, "c-b2", "c-dave"), 2.0).ask  # asked already: it waits
    heard = follower.hear(snapshot(4, bot("b2"), bot("dave")), 2.5)
    assert set(heard.gone) == {"c-b1"} and not heard.ask  # what it missed: b1 left
    assert not follower.hear(beat(4, "c-b2", "c-dave"), 3.0).ask
    assert not follower.hear(change(5, gone=("c-dave",)), 3.5).ask
    assert follower.asks == 1


def test_a_lost_last_change_is_seen_in_the_next_heartbeat() -> None:
    follower = in_step(1)
    assert follower.hear(beat(2, "c-b1", "c-b2"), 1.0).ask  # change 2 never came


def test_a_digest_that_differs_is_asked_about_at_most_every_few_intervals() -> None:
    follower = in_step(2)
    wrong = beat(2, "c-b1", "c-zed")  # same count, another bot: the digest differs
    assert follower.hear(wrong, 1.0).ask
    assert not follower.hear(wrong, 2.0).ask
    assert follower.hear(wrong, 1.0 + ASK_ROUNDS).ask
    assert follower.asks == 2


def test_a_new_follower_asks_and_learns_every_bot_from_a_snapshot_in_parts() -> None:
    follower = PresenceFollower(1.0)
    heard = follower.hear(beat(7, *(f"c-b{n}" for n in range(250))), 0.0)
    assert heard.ask and not heard.lost  # a run first heard of: nothing was lost
    bots = [bot(f"b{n}") for n in range(250)]
    learnt: list[BotPresence] = []
    for start in range(0, 250, 100):
        heard = follower.hear(snapshot(7, *bots[start:start + 100], count=250), 0.5)
        learnt.extend(heard.online)
        assert not heard.gone and not heard.ask
    assert learnt == bots
    assert not follower.hear(beat(7, *(f"c-b{n}" for n in range(250))), 1.0).ask


def test_a_follower_that_started_with_everyone_asked_waits_for_their_snapshots() -> None:
    follower = PresenceFollower(1.0)
    follower.asked_everyone(0.0)
    assert not follower.hear(beat(3, "c-alice"), 0.5).ask
    assert follower.hear(beat(3, "c-alice"), ASK_ROUNDS + 0.5).ask


def test_a_restarted_gateways_former_connections_are_gone() -> None:
    follower = in_step(2)
    heard = follower.hear(change(1, bot("alice"), epoch="e2"), 1.0)
    assert set(heard.gone) == {"c-b1", "c-b2"} and heard.online == (bot("alice"),)
    assert heard.ask  # heard from its change 1, but not from its start: a snapshot


def test_a_gateway_from_before_the_numbering_is_followed_as_it_comes() -> None:
    follower = PresenceFollower(1.0)
    old = Presence("g1", (bot("alice"),), ("c-zed",))
    assert follower.hear(old, 0.0) == Heard((bot("alice"),), ("c-zed",))
    assert follower.hear(Presence("g1", snapshot=True), 1.0) == Heard()
    assert follower.asks == 0


def _session(name: str) -> Session:
    session = Session(None, ProtocolCore("server", Encoding.JSON), max_queue_bytes=1000)
    session.role, session.name = "bot", name
    return session


async def _gateway(bus: Bus, name: str, bots: int, interval: float) -> GatewayRelay:
    relay = GatewayRelay(bus, name, interval=interval)
    await relay.start()
    for n in range(bots):
        relay.online(_session(f"{name}-bot{n}"))
    await wait_for(lambda: len(relay._announced) == bots, 30, f"{name}'s bots announced")
    return relay


async def test_a_gateways_traffic_per_interval_does_not_grow_with_its_bots(
        monkeypatch: Any) -> None:
    """The presence of a quiet gateway is one heartbeat an interval, of the same few
    bytes with 10 bots as with 2 000 (it was every bot's presence every interval: 170
    bytes a bot)."""
    monkeypatch.setattr(gateway_module, "SNAPSHOT_ROUNDS", 10_000)  # the rare one: not here
    bus = await open_bus("local:")
    heard: dict[str, list[bytes]] = {"small": [], "big": []}

    async def hear(message: Message) -> None:
        heard[decode(Presence, message.data).gateway].append(message.data)

    relays = []
    try:
        # an interval long enough that a loaded machine does not make either take the
        # other for silent (and ask for a snapshot when it hears it again)
        relays = [await _gateway(bus, "small", 10, 1.0), await _gateway(bus, "big", 2000, 1.0)]
        small, big = relays

        def each_in_step() -> bool:
            return all(name in relay.follower.streams and relay.follower.streams[name].synced
                       for relay, name in ((small, "big"), (big, "small")))

        await wait_for(each_in_step, 10, "each gateway in step with the other")
        await bus.subscribe(PRESENCE, hear)
        await wait_for(lambda: min(map(len, heard.values())) >= 3, 20, "3 intervals")
        for name, count in (("small", 10), ("big", 2000)):
            news = [decode(Presence, data) for data in heard[name]]
            assert all(not (n.online or n.gone or n.snapshot) for n in news), name
            assert {(n.seq, n.count) for n in news} == {(count, count)}
        sizes = {name: {len(data) for data in datas} for name, datas in heard.items()}
        assert max(sizes["big"]) <= 80 and max(sizes["small"]) <= 80, sizes
        assert max(sizes["big"]) - min(sizes["small"]) <= 4, sizes  # 2000 takes 2 bytes more
        # a snapshot, asked for, is what grows with the bots: SNAPSHOT_CHUNK to a message
        heard["big"].clear()
        await bus.publish(PRESENCE_ASK, encode(PresenceAsk("big")))
        await wait_for(lambda: sum(decode(Presence, d).snapshot for d in heard["big"])
                       == 2000 // SNAPSHOT_CHUNK, 10, "big's snapshot")
        assert not any(decode(Presence, d).snapshot for d in heard["small"])  # not asked
    finally:
        for relay in relays:
            await relay.close()
        await bus.close()


async def test_a_host_that_misses_a_change_asks_and_gets_back_in_step(
        make_arena: Callable[..., Any]) -> None:
    """The test plays gateway g1: change 2 (bob left) never reaches the host; the next
    heartbeat says so, the host asks g1 for a snapshot on its own subject, and takes bob
    for gone when it comes there."""
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        asks: list[bytes] = []

        async def asked(message: Message) -> None:
            asks.append(message.data)

        try:
            await bus.subscribe(PRESENCE_ASK, asked)
            host = await make_arena(role="host", bus=nats_url(prefix), presence_interval=0.5)
            sessions = host.server.sessions
            await wait_for(lambda: asks == [b""], 10, "the host asks every gateway at start")
            alice, bob = bot("alice"), bot("bob")
            await bus.publish(PRESENCE, encode(snapshot(1, alice, bob)))
            await wait_for(lambda: {"alice", "bob"} <= set(sessions), 10, "both learnt")
            await bus.publish(PRESENCE, encode(beat(1, "c-alice", "c-bob")))
            # change 2, bob gone, is lost; the heartbeat after it:
            await bus.publish(PRESENCE, encode(beat(2, "c-alice")))
            await wait_for(lambda: len(asks) == 2, 10, "the host asks g1")
            side = host.app._role.side
            assert isinstance(side, HostSide)
            assert decode(PresenceAsk, asks[1]) == PresenceAsk("g1", to=side.follower.id)
            assert "bob" in sessions
            await bus.publish(presence_to(side.follower.id), encode(snapshot(2, alice)))
            await wait_for(lambda: "bob" not in sessions, 10, "bob gone, from the snapshot")
            assert "alice" in sessions
            await bus.publish(PRESENCE, encode(beat(2, "c-alice")))
            await bus.publish(PRESENCE, encode(change(3, bot("carol"))))
            await wait_for(lambda: "carol" in sessions, 10, "in step again: carol")
            assert len(asks) == 2
        finally:
            await bus.close()


async def test_a_new_host_learns_every_bot_and_a_silent_gateways_are_gone(
        make_arena: Callable[..., Any]) -> None:
    """A gateway holds 250 bots (a snapshot of three messages); a host that starts
    after asks and learns them all; when the gateway falls silent, they are gone."""
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        relay = await _gateway(bus, "g9", 250, 0.2)
        try:
            host = await make_arena(role="host", bus=nats_url(prefix), presence_interval=0.2)
            sessions = host.server.sessions
            await wait_for(lambda: len(sessions) == 250, 10, "every bot learnt")
            relay.online(_session("late"))
            await wait_for(lambda: "late" in sessions, 10, "a change after the snapshot")
            heartbeats = [t for t in relay._tasks if t.get_name() == "gateway heartbeats"]
            heartbeats[0].cancel()  # the heartbeats stop: silent, as if dead
            await wait_for(lambda: not sessions, 10, "its bots gone with its silence")
        finally:
            await relay.close()
            await bus.close()


async def test_heartbeats_stay_behind_the_changes_they_number() -> None:
    """A heartbeat is published at once, the changes by the sender: the number a
    heartbeat carries is of a change already handed to the bus (so a follower never
    takes a heartbeat ahead of changes still on their way for a lost change)."""
    bus = await open_bus("local:")
    order: list[Presence] = []

    async def hear(message: Message) -> None:
        order.append(decode(Presence, message.data))

    try:
        await bus.subscribe(PRESENCE, hear)
        relay = await _gateway(bus, "g5", 0, 0.01)
        for n in range(300):
            relay.online(_session(f"b{n}"))
            if n % 50 == 0:
                await asyncio.sleep(0)
        await wait_for(lambda: len(relay._announced) == 300, 10, "announced")
        await wait_for(lambda: any(n.seq == 300 and not n.online for n in order), 10, "beat")
        seen = 0
        for news in order:
            if news.online:
                seen = news.seq
            else:
                assert news.seq <= seen
        await relay.close()
    finally:
        await bus.close()


def test_a_gateway_silent_for_three_intervals_is_gone_unless_the_watcher_was_late() -> None:
    """Silence still means gone; but a follower whose own watcher woke over an interval
    late was stalled (a starved machine): what the gateway said meanwhile may wait to be
    read, so it judges at its next round, on time."""
    follower = in_step(1)  # heard g1 at 0.0
    assert [follower.silent(t) for t in (1.0, 2.0, 3.0)] == [[], [], []]
    assert follower.silent(4.0) == ["g1"] and "g1" not in follower.streams
    assert follower.hear(beat(1, "c-b1"), 5.0).ask  # back: a run heard of anew, asked

    stalled = in_step(1)
    assert stalled.silent(1.0) == []
    assert stalled.silent(6.0) == []  # woke 4 s late: no verdict
    assert stalled.silent(7.0) == ["g1"]  # on time, and still nothing from g1


def test_a_gateway_taken_for_silent_gets_every_bot_back_from_the_snapshot_it_is_asked() -> None:
    """A live gateway a starved follower took for silent (its bots dropped) is heard
    again: the follower asks, and the snapshot gives back every bot, in step again (the
    33 334 of 50 000 a host knew at the end of the big bench were this, for seconds)."""
    follower = in_step(3)  # b1..b3 on g1, heard at 0.0
    assert [follower.silent(t) for t in (1.0, 2.0, 3.0, 4.0)] == [[], [], [], ["g1"]]
    conns = ("c-b1", "c-b2", "c-b3")
    heard = follower.hear(beat(3, *conns), 5.0)
    assert heard.ask and not heard.lost  # a run heard of anew: asked at once
    first = follower.hear(snapshot(3, bot("b1"), bot("b2"), count=3), 5.1)
    last = follower.hear(snapshot(3, bot("b3"), count=3), 5.2)
    assert {p.conn for p in first.online + last.online} == set(conns)
    assert not first.gone and not last.gone and not last.ask
    assert not follower.hear(beat(3, *conns), 6.0).ask  # in step again
    assert not follower.hear(change(4, bot("b4")), 6.1).ask


def test_what_else_a_gateway_sends_keeps_it_alive_without_its_heartbeats() -> None:
    """A starved gateway's heartbeats come late, but what it relays still comes (its
    bots' moves: `alive`): it is not taken for silent while it does, and is once it
    stops; a gateway not followed is not made alive by it."""
    follower = in_step(1)  # heard g1 at 0.0
    rounds = [follower.silent(t) for t in (1.0, 2.0, 3.0)]
    follower.alive("g1", 3.5)  # a move it relayed
    rounds += [follower.silent(t) for t in (4.0, 5.0, 6.0)]
    assert rounds == [[]] * 6
    assert follower.silent(7.0) == ["g1"]  # nothing since 3.5
    follower.alive("g1", 7.5)  # after it was taken for silent: its presence says what it holds
    follower.alive("g2", 7.5)  # never heard
    assert follower.heard == {}


def test_a_gateway_whose_timer_woke_late_is_given_as_much_longer_up_to_twice() -> None:
    """A heartbeat says how late the gateway's timer woke (`Presence.late`): its
    followers wait as much longer before taking it for silent, `SILENT_ROUNDS`
    intervals more at most (a gateway killed then is noticed within twice the time);
    a heartbeat on time gives the usual time again."""
    follower = in_step(1)

    def late_beat(late: float) -> Presence:
        return Presence("g1", epoch="e1", seq=1, count=1, digest=conn_digest("c-b1"),
                        late=late)

    assert not follower.hear(late_beat(2.5), 1.0).ask
    assert [follower.silent(t) for t in (2.0, 3.0, 4.0, 5.0, 6.0)] == [[]] * 5
    assert follower.silent(7.0) == ["g1"]  # 6 s since, over 3 + 2.5

    capped = in_step(1)
    capped.hear(late_beat(100.0), 1.0)
    assert [capped.silent(float(t)) for t in range(2, 8)] == [[]] * 6  # 3 + 3 at most
    assert capped.silent(8.0) == ["g1"]

    on_time = in_step(1)
    on_time.hear(late_beat(2.5), 1.0)
    on_time.hear(beat(1, "c-b1"), 1.5)  # on time again: no allowance
    assert [on_time.silent(t) for t in (2.0, 3.0, 4.0)] == [[]] * 3
    assert on_time.silent(5.0) == ["g1"]


async def test_a_gateways_heartbeat_says_how_late_its_timer_woke() -> None:
    """Half an interval late or less is within the allowance: not said (the heartbeat
    stays its few bytes); more is said, in tenths of a second."""
    bus = await open_bus("local:")
    try:
        relay = GatewayRelay(bus, "g1", interval=2.0)
        assert decode(Presence, relay.heartbeat(0.9)).late == 0.0
        assert decode(Presence, relay.heartbeat(0.9)) == decode(Presence, relay.heartbeat())
        assert decode(Presence, relay.heartbeat(4.04)).late == 4.0
    finally:
        await bus.close()


async def test_a_host_keeps_a_gateway_whose_heartbeats_stop_while_its_bots_still_play(
        make_arena: Callable[..., Any]) -> None:
    """Gateway g1's heartbeats stop (a starved event loop) while what its bot says about
    its game still comes: the host does not take it for silent over rounds of its
    watcher; once nothing more comes, it does."""
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        told: list[ToBot] = []

        async def hear(message: Message) -> None:
            told.append(decode(ToBot, message.data))

        relay = await _gateway(bus, "g1", 0, 0.1)
        try:
            host = await make_arena(role="host", bus=nats_url(prefix), presence_interval=0.1)
            side = host.app._role.side
            assert isinstance(side, HostSide)
            sessions, follower = host.server.sessions, side.follower
            await bus.subscribe(gateway_out("g1"), hear)  # what the host sends alice
            alice = _session("alice")
            alice.games_played = frozenset({"sim"})
            relay.online(alice)
            await wait_for(lambda: "alice" in sessions, 10, "alice learnt")
            live = host.server.start_game("sim", {}, ["alice", "house:sim-random"])
            await wait_for(lambda: any(t.type == "game_start" for t in told), 10, "started")
            for task in relay._tasks:  # its heartbeats stop
                if task.get_name() == "gateway heartbeats":
                    task.cancel()
            loop = asyncio.get_running_loop()
            last_beat, judged = loop.time(), follower.judged
            while follower.judged < judged + 2 * SILENT_ROUNDS or (
                    loop.time() - last_beat < 2 * SILENT_ROUNDS * 0.1):
                # g1 relays alice's questions about her game (each answered)
                answered = len(told)
                await bus.publish(game_in(live.id), encode(FromBot(
                    "alice", relay.bots["alice"].conn, "legal",
                    {"game_id": live.id, "turn": 0, "steps": []})))
                await wait_for(lambda n=answered: len(told) > n, 10, "an answer")
                assert "alice" in sessions, "taken for silent while its bot played"
            await wait_for(lambda: "alice" not in sessions, 10, "silent once nothing comes")
        finally:
            await relay.close()
            await bus.close()


async def test_a_host_reads_what_the_broker_still_has_before_it_takes_a_gateway_for_silent(
        make_arena: Callable[..., Any]) -> None:
    """A loaded host reads late: a gateway's heartbeat may wait to be read while the
    host's watcher, on time, finds it quiet. Before a verdict the host reads what the
    broker has for it (`Bus.caught_up`, here standing in for the heartbeats still
    unread): a gateway heard so is kept; when nothing more comes, it is silent."""
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        try:
            host = await make_arena(role="host", bus=nats_url(prefix), presence_interval=0.1)
            side = host.app._role.side
            assert isinstance(side, HostSide)
            sessions, follower = host.server.sessions, side.follower
            await bus.publish(PRESENCE, encode(snapshot(1, bot("alice"))))
            await wait_for(lambda: "alice" in sessions, 10, "alice learnt")
            unread = [True]
            caught_up = 0

            async def read_what_waits(timeout: float) -> bool:
                nonlocal caught_up
                caught_up += 1
                if unread[0]:  # g1's heartbeat, read as the broker's answer comes
                    side._presence(Message(PRESENCE, encode(beat(1, "c-alice"))))
                return True

            side.bus.caught_up = read_what_waits  # type: ignore[method-assign]
            judged = follower.judged
            await wait_for(lambda: caught_up >= 3 and follower.judged >= judged + 3, 10,
                           "rounds that found g1 quiet")
            assert "alice" in sessions
            unread[0] = False
            await wait_for(lambda: "alice" not in sessions, 10, "silent once nothing comes")
        finally:
            await bus.close()


async def test_a_snapshot_asked_for_goes_to_its_asker_alone(monkeypatch: Any) -> None:
    """Gateways a and b follow g (250 bots: a snapshot of 3 messages). a asks g for a
    snapshot: it comes on a's subject, b decodes none of it; an empty ask (a host that
    starts) still goes to every follower."""
    monkeypatch.setattr(gateway_module, "SNAPSHOT_ROUNDS", 10_000)  # the rare one: not here
    bus = await open_bus("local:")
    relays = []
    on_presence: list[Presence] = []

    async def hear(message: Message) -> None:
        on_presence.append(decode(Presence, message.data))

    try:
        relays = [await _gateway(bus, name, bots, 0.2)
                  for name, bots in (("g", 250), ("a", 0), ("b", 0))]
        _, a, b = relays
        for relay in relays:  # each asked each other at first hearing
            await wait_for(lambda r=relay: all(
                name in r.follower.streams and r.follower.streams[name].synced
                for name in {"g", "a", "b"} - {r.gateway}), 10, "in step with the others")
        await bus.subscribe(PRESENCE, hear)
        loop = asyncio.get_running_loop()
        before_a, before_b = a.follower.snapshots, b.follower.snapshots
        ask_snapshot(a.sender, "g", Heard(ask=True), a.follower.id)
        await wait_for(lambda: a.follower.snapshots == before_a + 3, 10, "a's snapshot")
        asked = loop.time()
        # g's next heartbeat, published after the snapshot, has reached b:
        await wait_for(lambda: b.follower.heard.get("g", 0.0) > asked, 10, "b hears g after")
        assert b.follower.snapshots == before_b
        assert not any(news.snapshot for news in on_presence)

        await bus.publish(PRESENCE_ASK, b"")  # every gateway, to everyone: on bots.presence
        await wait_for(lambda: sum(news.snapshot and news.gateway == "g"
                                   for news in on_presence) == 3, 10, "g's snapshot")
        await wait_for(lambda: b.follower.snapshots >= before_b + 3, 10, "b decodes it")
    finally:
        for relay in relays:
            await relay.close()
        await bus.close()


async def _silent_gateway_with_alice(make_arena: Callable[..., Any], prefix: str, bus: Bus
                                     ) -> tuple[GatewayRelay, HostSide, dict[str, Any]]:
    """A host on NATS and gateway g1 (its bot alice learnt by the host), whose heartbeats
    then stop: its event loop starved, as a loaded machine's, or the machine gone."""
    relay = await _gateway(bus, "g1", 0, 0.1)
    host = await make_arena(role="host", bus=nats_url(prefix), presence_interval=0.1)
    side = host.app._role.side
    assert isinstance(side, HostSide)
    relay.online(_session("alice"))
    await wait_for(lambda: "alice" in host.server.sessions, 10, "alice learnt")
    for task in relay._tasks:
        if task.get_name() == "gateway heartbeats":
            task.cancel()
    return relay, side, host.server.sessions


async def test_a_silent_gateway_still_connected_to_the_broker_is_kept_until_it_is_not(
        make_arena: Callable[..., Any], monkeypatch: Any) -> None:
    """A gateway that sends nothing but whose connection the broker still has (it
    answers `gateway_alive`, or would) is starved, not dead: the host keeps its bots
    round after round; once its connection is gone (no responders), they are gone."""
    monkeypatch.setattr(host_module, "DEAD_ROUNDS", 10_000)  # only the broker decides here
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        relay = None
        try:
            relay, side, sessions = await _silent_gateway_with_alice(make_arena, prefix, bus)
            follower, loop = side.follower, asyncio.get_running_loop()
            quiet_since, judged = loop.time(), follower.judged
            await wait_for(lambda: follower.judged >= judged + 3 * SILENT_ROUNDS and (
                loop.time() - quiet_since > 3 * SILENT_ROUNDS * 0.1), 10, "rounds of silence")
            assert "alice" in sessions and follower.quiet(loop.time()) == ["g1"]
            await relay._subscriptions[1].close()  # g1's answer to gateway_alive: gone
            await wait_for(lambda: "alice" not in sessions, 10, "gone with its connection")
        finally:
            if relay is not None:
                await relay.close()
            await bus.close()


async def test_a_silent_gateway_still_connected_is_taken_for_dead_after_dead_rounds(
        make_arena: Callable[..., Any], monkeypatch: Any) -> None:
    """However connected, a gateway silent for `DEAD_ROUNDS` intervals is taken for dead
    (a machine gone without closing its connections, which the broker notices only
    minutes later): not before."""
    monkeypatch.setattr(host_module, "DEAD_ROUNDS", 2 * SILENT_ROUNDS)
    async with nats_prefix() as prefix:
        bus = await open_bus(nats_url(prefix))
        relay = None
        try:
            relay, side, sessions = await _silent_gateway_with_alice(make_arena, prefix, bus)
            loop = asyncio.get_running_loop()
            heard = side.follower.heard["g1"]
            await wait_for(lambda: "alice" not in sessions, 10, "taken for dead")
            assert loop.time() - heard > 2 * SILENT_ROUNDS * 0.1
        finally:
            if relay is not None:
                await relay.close()
            await bus.close()
