"""Rating feeding (issue 22, finding 5): a bot that resigned every game gave 60 rated wins
in 15 s to whoever it was paired with. The same two accounts now meet at most
`LadderConfig.pairings_per_hour` times in any hour, house bots aside, and the count
survives a restart. The ladder is given the time, so the hour passes without waiting."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from arena.server import LadderConfig
from arena.server.ladder import PAIR_WINDOW, Ladder
from clients.sdk import ArenaBot, ArenaClient, BuiltinBot, Turn
from protocol import Message
from tests.waiting import never, wait_for

from .conftest import SUBST

T0 = 1_700_000_000.0
"""A moment, in seconds since the epoch (the ladder reads no clock of its own)."""


def ladder(names: list[str], *, recent: list[tuple[float, str, str]] = (),  # type: ignore[assignment]
           **options: object) -> tuple[Ladder, list[frozenset[str]]]:
    """A ladder over `names` (always all available) and the pairings it starts."""
    started: list[frozenset[str]] = []
    config = replace(LadderConfig(seed=1), **options)  # type: ignore[arg-type]
    return Ladder(config, lambda: names, lambda a, b: started.append(frozenset((a, b))),
                  recent, owner_of=lambda name: None), started  # bots of nobody's


def test_two_bots_are_paired_at_most_pairings_per_hour_in_any_hour() -> None:
    cap, started = ladder(["alice", "bob"], pairings_per_hour=3)
    for second in range(0, 1800, 10):  # half an hour of rounds, both bots always free
        cap.tick(T0 + second)
    assert len(started) == 3  # the first three rounds; then none for the rest of the hour
    assert cap.tick(T0 + PAIR_WINDOW - 1) == 0
    assert cap.tick(T0 + PAIR_WINDOW) == 1  # the first pairing is an hour old
    assert cap.tick(T0 + PAIR_WINDOW + 5) == 0  # the second one (T0 + 10) is not yet
    assert cap.tick(T0 + PAIR_WINDOW + 10) == 1
    unlimited, started = ladder(["alice", "bob"], pairings_per_hour=0)
    for second in range(0, 100, 10):
        unlimited.tick(T0 + second)
    assert len(started) == 10


def test_a_small_field_keeps_playing_its_house_bot_while_its_pair_waits() -> None:
    cap, started = ladder(["alice", "bob", "house:random"], pairings_per_hour=2)
    for second in range(0, 600, 5):  # one pairing a round: three players
        cap.tick(T0 + second)
    pairs = [pair for pair in started if pair == {"alice", "bob"}]
    assert len(pairs) == 2
    assert len(started) == 120  # every round paired somebody: the house bot is not limited
    assert {"alice", "house:random"} in started and {"bob", "house:random"} in started


def test_house_bots_meet_each_other_only_when_asked_and_then_without_a_limit() -> None:
    houses = ["house:random", "house:greedy"]
    never_paired, started = ladder(houses, pairings_per_hour=1)
    assert [never_paired.tick(T0 + second) for second in range(3)] == [0, 0, 0]
    asked, started = ladder(houses, pairings_per_hour=1, house_vs_house=True)
    assert [asked.tick(T0 + second) for second in range(3)] == [1, 1, 1]
    assert started == [frozenset(houses)] * 3


def test_the_pairings_of_the_last_hour_count_after_a_restart() -> None:
    before = [(T0 - 1000, "alice", "bob"), (T0 - 10, "bob", "alice")]
    cap, started = ladder(["alice", "bob"], recent=before, pairings_per_hour=2)
    assert cap.tick(T0) == 0
    assert cap.tick(T0 - 1000 + PAIR_WINDOW) == 1 and started == [{"alice", "bob"}]


def test_a_new_leader_counts_the_pairings_its_predecessor_made() -> None:
    """A host that begins to lead the pairing (docs/cluster.md) recounts the pair cap
    from the stored pairings: those another host made while it waited count."""
    cap, started = ladder(["alice", "bob"], pairings_per_hour=2)
    cap.recount([(T0 - 20, "alice", "bob"), (T0 - 10, "bob", "alice")])
    assert cap.tick(T0) == 0 and started == []
    cap.recount([])  # (recounting forgets what was counted before)
    assert cap.tick(T0 + 1) == 1


class Resigner(ArenaBot):
    """Resigns every game at its first move (the attack)."""

    async def move(self, turn: Turn) -> str:  # type: ignore[override]
        assert self.arena_client is not None
        await self.arena_client.send(Message.make("resign", game_id=turn.game_id))
        return await never()


async def test_a_resigner_feeds_its_partner_only_the_pair_limit_even_after_a_restart(
        make_arena) -> None:
    """The attack at small scale: a resigner and its partner alone on a ladder. They are
    paired twice (four games, four rated wins for the partner), then not again within the
    hour however idle they are, also after the server restarts."""
    config = LadderConfig(game="substitution", settings=SUBST, interval=0.02, seed=3,
                          pairings_per_hour=2)
    arena = await make_arena(ladder=config)
    await arena.client("resigner", Resigner())
    await arena.client("partner", "random")
    await wait_for(lambda: arena.server.games_finished >= 4)
    server = arena.server
    assert server.ladder is not None
    await wait_for(lambda: sorted(server._ladder_candidates()) == ["partner", "resigner"])
    assert server.ladder.tick(time.time()) == 0  # both free, and not paired
    assert server.ladder.pairings == 2
    storage = server.storage
    rating = await storage.rating("partner", "substitution")
    assert rating is not None and (rating.games, rating.wins) == (4, 4)
    await arena.close()

    again = await make_arena(ladder=replace(config, interval=3600))  # the same database
    storage = again.server.storage
    for name, bot in (("resigner", Resigner()), ("partner", BuiltinBot("random"))):
        token = await storage.add_bot(name, replace=True)
        client = ArenaClient(again.url, token, bot)
        again.clients.append((client, asyncio.create_task(client.run())))
        await wait_for(client.connected.is_set)
    assert again.server.ladder is not None
    assert sorted(again.server._ladder_candidates()) == ["partner", "resigner"]
    assert again.server.ladder.tick(time.time()) == 0
    assert again.server.ladder.tick(time.time() + PAIR_WINDOW) == 1


class Dodger(ArenaBot):
    """Drops its connection at its first move, for good (a dodger leaving a lost game)."""

    async def move(self, turn: Turn) -> str:  # type: ignore[override]
        assert self.arena_client is not None
        await self.arena_client.drop()
        return await never()


async def test_a_dodger_that_disconnects_loses_its_rated_games(make_arena) -> None:
    """A bot that leaves instead of losing forfeits each game when its grace runs out
    (FAST: 1 s), and the ladder rates the forfeit as its loss, as any other."""
    config = LadderConfig(game="substitution", settings=SUBST, interval=0.02, seed=3)
    arena = await make_arena(ladder=config)
    await arena.client("dodger", Dodger(), reconnect=False)
    await arena.client("partner", "random")
    await wait_for(lambda: arena.server.games_finished >= 2)
    storage = arena.server.storage
    games = await storage.games(bot="dodger")
    assert [game.termination for game in games] == ["disconnect", "disconnect"]
    assert all(game.ladder and "stayed disconnected" in game.reason for game in games)
    dodger = await storage.rating("dodger", "substitution")
    partner = await storage.rating("partner", "substitution")
    assert dodger is not None and (dodger.games, dodger.losses) == (2, 2)
    assert partner is not None and (partner.games, partner.wins) == (2, 2)
    assert dodger.mu < 25 < partner.mu
