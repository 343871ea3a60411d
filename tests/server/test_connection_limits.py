"""Resource limits (issue 11, finding 9), replayed at small scale: connections per
address (spectators count), a message rate per connection (a clear error, then a
close) that never limits an honest bot, and bad input quoted short in what is stored."""

from __future__ import annotations

import asyncio
import math
import random

import pytest
from websockets.exceptions import ConnectionClosed

from arena.game import Termination
from arena.server.limits import AddressCounter, TokenBucket, clip
from clients.operator import Operator

from .conftest import SUBST, stored_record


def test_the_message_budget_refills_and_answers_to_turns_are_free():
    rate = TokenBucket(rate=10, burst=3, now=0.0)
    assert [rate.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert rate.take(0.1)  # a tenth of a second: one token back
    assert not rate.take(0.1)
    for _ in range(5):  # five turns asked for five moves
        rate.credit()
    assert all(rate.take(0.1) for _ in range(5)) and not rate.take(0.1)
    assert [rate.take(100.0) for _ in range(4)] == [True, True, True, False]  # capped


def test_the_bucket_says_how_long_until_a_token_is_back():
    """`wait` (the web's quotas) is `take` answered in seconds."""
    bucket = TokenBucket(rate=2, burst=2, now=0.0)
    assert bucket.wait(0.0) == 0.0 and bucket.wait(0.0) == 0.0
    assert bucket.wait(0.0) == 0.5  # empty: a token is back in half a second
    assert bucket.wait(0.25) == 0.25  # asking again spends nothing and waits the rest
    assert bucket.wait(0.5) == 0.0 and bucket.wait(0.5) == 0.5
    assert TokenBucket(rate=0, burst=1, now=0.0).wait(0.0) == 0.0
    assert TokenBucket(rate=0, burst=0, now=0.0).wait(5.0) == math.inf


async def test_connections_are_counted_per_address():
    counter = AddressCounter(2)
    assert await counter.admit("10.0.0.1") and await counter.admit("10.0.0.1")
    assert not await counter.admit("10.0.0.1") and await counter.admit("10.0.0.2")
    await counter.release("10.0.0.1")
    assert await counter.admit("10.0.0.1") and await counter.count("10.0.0.1") == 2


async def test_a_message_flood_gets_an_error_then_a_close(make_arena):
    arena = await make_arena(message_rate=20, message_burst=50)
    token = await arena.add_bot("flooder")
    raw = await arena.raw()
    await raw.hello(token)
    for number in range(300):  # the flood, at small scale
        await raw.send("ping", id=number)
    codes = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            message = await raw.recv()
            codes.append(message["type"] if message["type"] != "error" else message["code"])
    assert codes[-1] == "rate-limited" and 40 <= codes.count("pong") < 100
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4006
    async with asyncio.timeout(5):
        while "flooder" in arena.server.sessions:
            await asyncio.sleep(0.01)


async def test_an_honest_bot_is_never_rate_limited(make_arena):
    # a budget of one message a second: the bots still play at full speed, as every
    # move answers a turn the server asked for
    arena = await make_arena(message_rate=1, message_burst=5)
    await arena.client("quick", "random")
    await arena.client("fast", "random")
    for seed in range(3):
        record = await arena.server.play_game("substitution", SUBST, ["quick", "fast"], seed=seed)
        assert record.outcome.termination is Termination.NORMAL, record.outcome.detail


async def test_a_bot_that_builds_its_moves_and_logs_them_is_never_rate_limited(make_arena):
    """Like the starter kits: a debug line and a move built step by step through
    ``legal`` requests, every turn, under a budget of one message a second. The lines
    the server keeps and the requests it answers for the turn are budgeted with it."""
    arena = await make_arena(message_rate=1, message_burst=5)
    await arena.client("fast", "random")
    token = await arena.add_bot("builder")
    raw = await arena.raw()
    await raw.hello(token, capabilities=["legal-moves"])
    live = arena.server.start_game("substitution", SUBST, ["builder", "fast"], seed=1)
    chooser = random.Random(1)
    moves = 0
    while True:
        message = await raw.recv()
        if message["type"] == "game_over":
            break
        if message["type"] != "your_turn":
            continue
        await raw.send("log", game_id=live.id, text=f"turn {message['turn']}")
        options, steps = message["legal_steps"], ""
        while not options["can_end"]:
            step = chooser.choice(options["steps"])
            steps = step if not steps else steps + options["separator"] + step
            await raw.send("legal", game_id=live.id, turn=message["turn"], steps=steps)
            options = (await raw.expect("legal_steps"))["legal_steps"]
        await raw.send("move", game_id=live.id, turn=message["turn"], move=steps)
        moves += 1
    assert message["termination"] == "normal", message["reason"]
    assert moves == 12
    record = await stored_record(live, 10)
    assert len(record.notes) == 12


async def test_debug_lines_beyond_the_log_limits_count_against_the_rate(make_arena):
    arena = await make_arena(message_rate=1, message_burst=20)
    await arena.client("fast", "random")
    token = await arena.add_bot("chatter")
    raw = await arena.raw()
    await raw.hello(token)
    live = arena.server.start_game("substitution", SUBST, ["chatter", "fast"], seed=1)
    await raw.expect("your_turn")
    for number in range(40):  # 10 are kept (limits.max_logs_per_turn), the rest dropped
        await raw.send("log", game_id=live.id, text=f"line {number}")
    error = await raw.expect("error")
    while error["code"] != "rate-limited":
        error = await raw.expect("error")
    assert error["fatal"] is True


async def test_connections_per_address_are_limited_and_spectators_count(make_arena):
    arena = await make_arena(max_connections_per_address=3)
    viewers = [await arena.raw() for _ in range(3)]
    for viewer in viewers:
        assert (await viewer.hello(None, role="spectator"))["type"] == "welcome"
    extra = await arena.raw()  # the fourth from 127.0.0.1
    with pytest.raises(ConnectionClosed) as closed:
        await extra.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
    assert "too many connections from 127.0.0.1 (at most 3)" in closed.value.rcvd.reason
    await viewers[0].ws.close()
    async with asyncio.timeout(5):  # a closed one frees its place
        while await arena.server.clients.addresses.count("127.0.0.1") > 2:
            await asyncio.sleep(0.01)
    again = await arena.raw()
    assert (await again.hello(None, role="spectator"))["type"] == "welcome"


async def test_a_huge_illegal_move_is_quoted_short_in_what_is_stored(arena):
    await arena.client("fair", "random")
    token = await arena.add_bot("bomber")
    raw = await arena.raw()
    await raw.hello(token)
    live = arena.server.start_game("substitution", SUBST, ["bomber", "fair"], seed=1)
    turn = await raw.expect("your_turn")
    bomb = "-1 0 0, " * 25_000  # 200 KB, under max_frame
    await raw.send("move", game_id=live.id, turn=turn["turn"], move=bomb)
    rejected = await raw.expect("move_rejected")
    assert rejected["retries_left"] == -1 and len(rejected["move"]) <= 200
    record = await stored_record(live, 10)
    assert record.outcome.termination is Termination.ILLEGAL_MOVE
    row = await arena.server.storage.game(live.id)
    assert len(row.reason) < 1500 and "(200000 characters)" in row.reason
    assert len(row.log) < 5000  # the reason is in the log's result line too


def test_clip_says_how_long_the_input_was():
    assert clip("short") == "'short'"
    assert clip("x" * 500, 10) == "'xxxxxxxxxx'... (500 characters)"


async def test_operators_are_trusted_with_bursts(make_arena):
    arena = await make_arena(message_rate=1, message_burst=2)
    token = await arena.add_bot("runner", operator=True)
    async with Operator(arena.url, token) as operator:  # ten requests at once
        logs = await asyncio.gather(*(operator.play_log("substitution", SUBST, ["house:random",
                                                                                 "house:random"])
                                      for _ in range(10)))
    assert len(logs) == 10


async def test_a_client_quota_is_a_bucket_per_key_in_the_arena_s_counters():
    """`arena.web.quota.RateLimit`: the web's quotas per client are token buckets in the
    arena's counters (tests/counters: this process's, or Redis shared by its processes)."""
    from arena.counters import LocalCounters
    from arena.web.quota import RateLimit

    now = [0.0]
    counters = LocalCounters(clock=lambda: now[0])
    quota = RateLimit("q", 2, lambda: counters)  # 2 a minute: one back every 30 s
    assert await quota.wait("a") == 0.0 and await quota.wait("a") == 0.0
    assert await quota.wait("a") == 30.0 and await quota.wait("b") == 0.0  # each key its own
    assert await RateLimit("other", 2, lambda: counters).wait("a") == 0.0  # each quota its own
    now[0] = 20.0
    assert await quota.wait("a") == pytest.approx(10.0)
    assert await RateLimit("q", 0, lambda: counters).wait("a") == math.inf
