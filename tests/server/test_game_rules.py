"""Forfeits and clocks: illegal moves, retries, timeouts, disconnects, silent clients."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest
from websockets.exceptions import ConnectionClosed

from arena.server import TimeControl
from arena.server.live import Clock
from clients.sdk import ArenaBot, ArenaClient, BuiltinBot, GameResult, Rejected, Turn
from tests.waiting import never, wait_for

from .conftest import FAST, SUBST, stored_record


def first_legal(turn: Turn) -> str:
    return turn.legal_moves(limit=1)[0]


class Stubborn(ArenaBot):
    """Plays `bad` moves before each legal one; remembers the rejections."""

    def __init__(self, bad: int) -> None:
        self.bad = bad
        self.rejections: list[Rejected] = []
        self.tries: dict[tuple[str, int], int] = {}

    def move(self, turn: Turn) -> str:
        key = (turn.game_id, turn.turn)
        self.tries[key] = self.tries.get(key, 0) + 1
        return "no such move" if self.tries[key] <= self.bad else first_legal(turn)

    def rejected(self, turn: Turn, rejection: Rejected) -> None:
        self.rejections.append(rejection)


async def stored(arena, game_id):
    storage = arena.server.storage
    return await storage.game(game_id)


async def test_illegal_move_forfeits_at_once(arena):
    bot = Stubborn(bad=1)
    await arena.client("stubborn", bot)
    await arena.client("fair", "random")
    record = await arena.server.play_game("substitution", SUBST, ["fair", "stubborn"], seed=1)
    outcome = record.outcome
    assert outcome.termination.value == "illegal-move" and outcome.loser == 1 and outcome.winner == 0
    assert "stubborn played 'no such move': malformed" in outcome.detail
    await wait_for(lambda: bot.rejections)
    assert [r.retries_left for r in bot.rejections] == [-1]
    assert bot.rejections[0].code == "malformed"
    row = await stored(arena, record.id)
    assert row.termination == "illegal-move" and "malformed" in row.reason


async def test_retries_let_a_bot_correct_its_move(arena):
    bot = Stubborn(bad=2)
    await arena.client("stubborn", bot)
    await arena.client("fair", "random")
    control = TimeControl(move_ms=1000, bank_ms=1000, first_move_ms=1000, retries=2)
    record = await arena.server.play_game("substitution", SUBST, ["stubborn", "fair"], seed=2,
                                          time_control=control)
    assert record.outcome.termination.value == "normal"
    assert len(bot.rejections) == 2 * 12
    assert [r.retries_left for r in bot.rejections[:2]] == [1, 0]


async def test_a_silent_bot_loses_on_time(arena):
    """The server's timer wakes the game at the deadline (the clock's rules are
    `tests/server/test_live.py`'s, with given times)."""
    token = await arena.add_bot("silent")
    silent = await arena.raw()
    assert (await silent.hello(token))["type"] == "welcome"
    await arena.client("a", "random")
    control = TimeControl(move_ms=100, bank_ms=100, first_move_ms=200)
    record = await arena.server.play_game("substitution", SUBST, ["a", "silent"], seed=3,
                                          time_control=control)
    assert record.outcome.termination.value == "timeout" and record.outcome.loser == 1
    assert record.outcome.detail == "silent used 200 ms and its 100 ms bank on turn 1"
    over = await silent.expect("game_over")
    assert over["termination"] == "timeout" and over["reason"] == record.outcome.detail
    assert (await stored(arena, record.id)).termination == "timeout"


async def test_a_silent_bot_stalls_no_other_game(arena):
    await arena.client("silent", never)
    await arena.client("a", "random")
    await arena.client("b", "random")
    await arena.client("c", "random")
    slow = TimeControl(move_ms=60_000, bank_ms=0, first_move_ms=60_000)
    waiting = arena.server.start_game("substitution", SUBST, ["a", "silent"], seed=3,
                                      time_control=slow)
    await wait_for(lambda: waiting.turn == 1)  # the silent bot is to move
    other = await arena.server.play_game("substitution", SUBST, ["b", "c"], seed=4)
    assert other.outcome.termination.value == "normal"
    assert not waiting.over and waiting.turn == 1  # and still is


async def test_the_time_a_bot_takes_comes_out_of_its_bank(arena):
    async def slowpoke(turn: Turn) -> str:
        await asyncio.sleep(0.1)  # the bot thinks: the server measures at least this
        return first_legal(turn)

    seen = []
    client = await arena.client("slowpoke", slowpoke)
    client.on_message = lambda m: seen.append(m) if m.type == "move_accepted" else None
    await arena.client("quick", "random")
    control = TimeControl(move_ms=50, bank_ms=5000, first_move_ms=50)
    settings = {**SUBST, "moves": 3}
    record = await arena.server.play_game("substitution", settings, ["slowpoke", "quick"],
                                          time_control=control)
    assert record.outcome.termination.value == "normal"
    await wait_for(lambda: len(seen) == 3)
    bank = 5000
    for accepted in seen:
        assert accepted["elapsed_ms"] >= 100
        assert abs(accepted["bank_ms"] - (bank - (accepted["elapsed_ms"] - 50))) <= 1
        bank = accepted["bank_ms"]


def test_clock_arithmetic():
    clock = Clock(TimeControl(move_ms=100, bank_ms=1000, first_move_ms=300))
    assert clock.limit_ms() == 300
    clock.charge(350)
    assert clock.bank_ms == 950 and clock.limit_ms() == 100
    clock.charge(90)
    assert clock.bank_ms == 950
    clock.charge(2000)
    assert clock.bank_ms == 0


async def test_reconnect_within_the_grace_period_resumes_the_game(arena):
    holder: dict[str, object] = {}

    async def flaky(turn: Turn) -> str:
        if turn.turn >= 6 and not holder.get("dropped"):
            holder["dropped"] = True
            await holder["client"].drop()  # the connection dies mid-game
        return first_legal(turn)

    resumed = []

    class Flaky(ArenaBot):
        def move(self, turn: Turn):
            return flaky(turn)

        def resumed(self, game, state):
            resumed.append((game.game_id, state["turn"], state["to_act"]))

    client = await arena.client("flaky", Flaky())
    holder["client"] = client
    await arena.client("steady", "random")
    record = await arena.server.play_game("substitution", SUBST, ["flaky", "steady"], seed=5)
    assert holder["dropped"] and client.connections >= 2
    assert resumed and resumed[0][0] == record.id and resumed[0][1] >= 6
    assert record.outcome.termination.value == "normal" and len(record.turns) == 24
    await wait_for(lambda: client.results)
    assert [r.game_id for r in client.results] == [record.id]


async def test_disconnect_past_the_grace_period_forfeits(make_arena):
    arena = await make_arena(time_control=TimeControl(move_ms=5000, bank_ms=0,
                                                      first_move_ms=5000, grace_ms=300))
    gone = await arena.client("gone", "random", reconnect=False)
    steady = await arena.client("steady", never)
    live = arena.server.start_game("substitution", SUBST, ["steady", "gone"], seed=6)
    await wait_for(lambda: live.started)
    await gone.drop()
    # The moves may take 5 s: a disconnect forfeit, not a timeout, ends the game.
    record = await stored_record(live, 5)
    assert record.outcome.termination.value == "disconnect" and record.outcome.loser == 1
    assert "gone stayed disconnected longer than 300 ms" == record.outcome.detail
    await wait_for(lambda: steady.results)
    result: GameResult = steady.results[0]
    assert result.won and result.termination == "disconnect"


async def test_new_connection_replaces_the_old_one(arena):
    token = await arena.add_bot("twin")
    first = await arena.raw()
    assert (await first.hello(token))["type"] == "welcome"
    second = await arena.raw()
    assert (await second.hello(token))["type"] == "welcome"
    with pytest.raises(ConnectionClosed) as closed:
        await first.recv()
    assert closed.value.rcvd.code == 4004


async def test_resign(arena):
    raw_token = await arena.add_bot("quitter")
    quitter = await arena.raw()
    await quitter.hello(raw_token)
    await arena.client("winner", "random")
    live = arena.server.start_game("substitution", SUBST, ["quitter", "winner"], seed=7)
    start = await quitter.expect("game_start")
    assert start["seat"] == 0 and start["opponent"] == "winner" and "seed" not in start
    turn = await quitter.expect("your_turn")
    assert turn["turn"] == 0 and turn["chance"] == turn["state"]["roll"]
    await quitter.send("resign", game_id=live.id)
    over = await quitter.expect("game_over")
    assert over["termination"] == "resignation" and over["winner"] == 1
    assert json.loads(json.dumps(over))["log_id"] == live.id


async def test_move_out_of_turn_and_stale_turn_are_rejected_without_penalty(arena):
    token = await arena.add_bot("eager")
    eager = await arena.raw()
    await eager.hello(token)

    rejected_out_of_turn = asyncio.Event()

    async def waits(turn: Turn) -> str:  # moves once the eager bot was told to wait
        await rejected_out_of_turn.wait()
        return first_legal(turn)

    await arena.client("patient", waits)
    live = arena.server.start_game("substitution", SUBST, ["patient", "eager"], seed=8)
    await eager.expect("game_start")
    await eager.send("move", game_id=live.id, turn=0, move="")
    rejected = await eager.expect("move_rejected")
    assert rejected["code"] == "not-your-turn"
    rejected_out_of_turn.set()
    turn = await eager.expect("your_turn")
    await eager.send("move", game_id=live.id, turn=turn["turn"] - 1, move="")
    rejected = await eager.expect("move_rejected")
    assert rejected["code"] == "stale-turn"
    await eager.send("resign", game_id=live.id)
    assert (await eager.expect("game_over"))["termination"] == "resignation"


async def test_request_for_a_game_you_do_not_play(arena):
    await arena.client("p1", "random")
    await arena.client("p2", never)
    token = await arena.add_bot("intruder")
    intruder = await arena.raw()
    await intruder.hello(token)
    live = arena.server.start_game("substitution", SUBST, ["p2", "p1"], seed=9)
    await intruder.send("move", game_id=live.id, turn=0, move="")
    error = await intruder.recv()
    assert error["code"] == "not-your-game" and error["game_id"] == live.id


def test_fast_time_control_is_short():
    assert FAST.move_ms <= 1000


async def test_a_client_that_stops_reading_stalls_nobody(make_arena):
    arena = await make_arena(max_queue_bytes=20_000)
    await arena.client("x", "random")
    await arena.client("y", "random")
    viewer = await arena.raw()
    await viewer.hello(None, role="spectator")
    settings = {**SUBST, "moves": 300}
    live = arena.server.start_game("substitution", settings, ["x", "y"], seed=10)
    await viewer.send("spectate", game_id=live.id)
    viewer.ws.transport.pause_reading()  # never reads again
    record = await stored_record(live, 20)
    assert record.outcome.termination.value == "normal" and len(record.turns) == 600


async def test_a_session_whose_peer_does_not_read_is_closed_as_a_slow_consumer():
    from arena.server.session import Session
    from protocol import Encoding, ProtocolCore

    class StuckSocket:
        remote_address = ("127.0.0.1", 1)
        closed_with: tuple[int, str] | None = None

        async def send(self, frame):
            await asyncio.Event().wait()  # the peer never reads: blocks forever

        async def close(self, code, reason):
            self.closed_with = (code, reason)

    ws = StuckSocket()
    session = Session(ws, ProtocolCore("server", Encoding.JSON), max_queue_bytes=100)
    for number in range(10):
        session.send("ping", id=number)  # never blocks the caller
    async with asyncio.timeout(5):
        while ws.closed_with is None:
            await asyncio.sleep(0)
    assert session.closed and ws.closed_with == (1008, "slow consumer: more than 100 bytes unread")
    await session.finished()


async def test_a_failure_in_the_rules_aborts_only_that_game(arena, monkeypatch):
    await arena.client("a", "random")
    await arena.client("b", "random")
    await arena.client("c", "random")
    await arena.client("d", "random")
    broken = arena.server.start_game("substitution", SUBST, ["a", "b"], seed=1)

    class ExplodingMatch:
        """The real match, except that judging a move fails (Match is an extension type,
        so its methods cannot be patched one by one)."""

        def __init__(self, match):
            self._match = match

        def __getattr__(self, name):
            return getattr(self._match, name)

        def submit(self, seat, move):
            raise RuntimeError("boom")

    monkeypatch.setattr(broken, "match", ExplodingMatch(broken.match))
    record = await stored_record(broken, 5)
    assert record.outcome.result == "aborted" and "boom" in record.outcome.detail
    other = await arena.server.play_game("substitution", SUBST, ["c", "d"], seed=2)
    assert other.outcome.termination.value == "normal"
    assert "a" in arena.server.sessions  # the connection survived


async def test_a_disconnected_bot_forfeits_after_each_games_own_grace(make_arena):
    """Finding 7: the server's default grace is 100 ms here; a game's own time control
    says otherwise and wins, both ways (`tests/server/test_grace.py` has the periods'
    rules with given times)."""
    arena = await make_arena(time_control=replace(FAST, grace_ms=100))
    await arena.client("stay", "random")
    token = await arena.add_bot("away")
    never = asyncio.Event()

    async def stuck(turn: Turn) -> str:
        await never.wait()
        return ""

    first = ArenaClient(arena.url, token, stuck, reconnect=False)
    running = asyncio.create_task(first.run())
    async with asyncio.timeout(5):
        await first.connected.wait()
    slow = TimeControl(move_ms=60_000, bank_ms=0, first_move_ms=60_000, retries=0)
    games = {grace: arena.server.start_game("substitution", SUBST, ["away", "stay"],
                                            time_control=replace(slow, grace_ms=grace))
             for grace in (50, 300, 60_000)}
    async with asyncio.timeout(5):
        while not all(live.started for live in games.values()):
            await asyncio.sleep(0.01)
    await first.drop()
    await running
    await wait_for(lambda: games[300].over)  # past the server's default of 100 ms
    for grace in (50, 300):
        outcome = games[grace].match.outcome
        assert outcome.termination.value == "disconnect" and outcome.loser == 0
        assert f"longer than {grace} ms" in outcome.detail
    assert not games[60_000].over  # its own grace has not run out
    again = ArenaClient(arena.url, token, BuiltinBot("random"), reconnect=False)
    resumed = asyncio.create_task(again.run())
    record = await stored_record(games[60_000], 30)
    assert record.outcome.termination.value == "normal"
    await again.stop()
    await resumed
