"""Full games between real clients over loopback, for several games and client kinds."""

from __future__ import annotations

import asyncio
import json
import shutil
import urllib.request
from pathlib import Path

import pytest

from arena.record import read_jsonl
from arena.seeds import seed_commitment
from arena.server import PlayerUnavailable
from arena.validate import validate_record
from clients.blocking import SimpleClient
from clients.bridge import ExecBot
from protocol import Encoding
from tests.waiting import wait_for

from .conftest import SUBST

ROOT = Path(__file__).resolve().parents[2]


def http_json(arena, path: str):
    with urllib.request.urlopen(f"http://127.0.0.1:{arena.server.port}{path}", timeout=5) as reply:
        assert reply.headers["Content-Type"].startswith("application/json")
        return json.loads(reply.read())


async def test_full_game_between_external_bots_msgpack_and_json(arena):
    alice = await arena.client("alice", "random")
    bob = await arena.client("bob", "random", encoding=Encoding.JSON)
    record = await arena.server.play_game("substitution", SUBST, ["alice", "bob"], seed=11)
    assert record.outcome is not None and record.outcome.termination.value == "normal"
    assert len(record.turns) == 24 and record.seed == 11
    assert validate_record(record) is None
    await wait_for(lambda: alice.results and bob.results)
    for client, seat in ((alice, 0), (bob, 1)):
        (result,) = client.results
        assert result.game_id == record.id and result.seat == seat
        assert result.seed == 11 and result.scores == list(record.outcome.scores)
    # stored before it was announced: the log is there and replays
    stored = await asyncio.to_thread(http_json, arena, f"/api/games/{record.id}")
    assert stored["status"] == "finished" and stored["seed"] == "11"
    assert stored["seed_commitment"] == seed_commitment(record.id, 11)
    assert all(result.seed_verified for result in (alice.results[0], bob.results[0]))
    assert validate_record(read_jsonl(stored["log"].splitlines())) is None


async def test_same_seed_same_dice(arena):
    await arena.client("alice", "random")
    await arena.client("bob", "random")
    first = await arena.server.play_game("substitution", SUBST, ["alice", "bob"], seed=5)
    second = await arena.server.play_game("substitution", SUBST, ["bob", "alice"], seed=5)
    assert [t.chance for t in first.turns][:1] == [t.chance for t in second.turns][:1]


async def test_sim_game_through_the_generic_api(arena):
    await arena.client("red", "sim-random", games=["sim"])
    await arena.client("blue", "sim-perfect", games=["sim"])
    record = await arena.server.play_game("sim", {"vertices": 6}, ["red", "blue"], seed=1)
    assert record.game == "sim" and record.outcome is not None
    assert record.outcome.termination.value == "normal"
    assert validate_record(record) is None
    with pytest.raises(PlayerUnavailable, match="does not play substitution"):
        arena.server.start_game("substitution", SUBST, ["red", "blue"])


async def test_heaps_against_a_house_bot(arena):
    await arena.client("solo", "heaps-random")
    record = await arena.server.play_game(
        "heaps", {"example": "49932", "target": 384, "start": [7, 10]}, ["solo", "house:heaps-perfect"], seed=2)
    assert record.outcome is not None and record.outcome.termination.value == "normal"
    assert validate_record(record) is None


async def test_unknown_player_is_refused(arena):
    with pytest.raises(PlayerUnavailable):
        arena.server.start_game("substitution", SUBST, ["ghost", "house:random"])


@pytest.mark.skipif(shutil.which("perl") is None, reason="needs perl")
async def test_perl_bot_through_the_stdio_bridge(arena):
    bridge = ExecBot(["perl", str(ROOT / "examples" / "perl" / "greedy_bot.pl")])
    perl = await arena.client("perl", bridge)
    await arena.client("py", "random")
    try:
        records = [await arena.server.play_game("substitution", SUBST, players, seed=3)
                   for players in (["perl", "py"], ["py", "perl"])]
    finally:
        await bridge.close()
    for record in records:
        assert record.outcome is not None and record.outcome.termination.value == "normal"
        assert validate_record(record) is None
    # the greedy bot writes more letters than nothing: it scores in at least one game
    seats = [record.players.index("perl") for record in records]
    assert any(record.outcome.scores[seat] > 0 for record, seat in zip(records, seats, strict=True))
    assert len(perl.results) == 2


async def test_blocking_client(arena):
    token = await arena.add_bot("plain")
    await arena.client("async", "random")

    def play_two_games():
        with SimpleClient.connect(arena.url, token, stop_after=1) as client:
            while (turn := client.next_turn(timeout=10)) is not None:
                client.play(turn, turn.legal_moves(limit=1)[0])
            return client.results

    task = asyncio.create_task(asyncio.to_thread(play_two_games))
    await wait_for(lambda: "plain" in arena.server.sessions)
    record = await arena.server.play_game("substitution", SUBST, ["plain", "async"], seed=4)
    results = await asyncio.wait_for(task, 10)
    assert [r.game_id for r in results] == [record.id]
    assert record.outcome.termination.value == "normal"


async def test_spectator_gets_state_then_every_move(arena):
    slow_moves = asyncio.Event()

    async def waiting_bot(turn):
        await slow_moves.wait()
        return turn.legal_moves(limit=1)[0]

    await arena.client("a", waiting_bot)
    await arena.client("b", "random")
    live = arena.server.start_game("substitution", SUBST, ["a", "b"], seed=9)
    viewer = await arena.raw()
    welcome = await viewer.hello(None, role="spectator")
    assert welcome["type"] == "welcome" and welcome["bot"] is None
    await viewer.send("spectate", game_id=live.id)
    state = await viewer.expect("game_state")
    assert state["turn"] == 0 and state["players"] == ["a", "b"] and "seed" not in state
    slow_moves.set()
    moves = []
    while (message := await viewer.recv())["type"] != "game_over":
        assert message["type"] == "moved"
        moves.append(message)
    assert [m["turn"] for m in moves] == list(range(24))
    assert message["seed"] == "9"
    await viewer.ws.close()


async def test_many_games_at_once(arena):
    names = [f"bot{i}" for i in range(10)]
    for name in names:
        await arena.client(name, "random", encoding=Encoding.JSON if int(name[3:]) % 2 else Encoding.MSGPACK)
    games = [arena.server.play_game("substitution", SUBST, [names[i % 10], names[(i + 3) % 10]],
                                    seed=i) for i in range(30)]
    records = await asyncio.gather(*games)
    assert len({r.id for r in records}) == 30
    assert all(r.outcome.termination.value == "normal" and len(r.turns) == 24 for r in records)
    assert arena.server.live == {} and not arena.server.bot_games


async def test_the_server_can_check_its_own_messages(make_arena):
    arena = await make_arena(validate_outgoing=True)
    await arena.client("a", "random")
    await arena.client("b", "random")
    record = await arena.server.play_game("substitution", SUBST, ["a", "b"], seed=1)
    assert record.outcome.termination.value == "normal"


async def test_threaded_builtin_bot(arena):
    from clients.sdk import BuiltinBot

    await arena.client("thinker", BuiltinBot("sim-mc", threaded=True), games=["sim"])
    await arena.client("quick", "sim-random", games=["sim"])
    record = await arena.server.play_game("sim", {"vertices": 5}, ["thinker", "quick"], seed=3)
    assert record.outcome.termination.value == "normal"


async def test_a_cpu_clock_charges_a_measured_player_the_cpu_time_read_for_it(arena):
    """The driver's side of CPU clocks, without a sandbox: a player the server measures (a
    hosted one; here a client marked so, with a given meter) is charged the CPU time the
    meter reads for its turn, however long it sleeps; every other player, wall time."""
    from arena.clock import TimeControl
    from clients.sdk import BuiltinBot

    class Slow(BuiltinBot):
        async def move(self, turn):
            await asyncio.sleep(0.3)  # wall time, no CPU time
            return super().move(turn)

    readings = {"alice": 10.0}
    asked = []

    def meter(name: str, game_id: str, turn: int) -> float:
        asked.append((name, turn))
        return readings[name]

    arena.server.games.cpu_meter = meter
    await arena.client("alice", Slow("sim-random"), games=["sim"])
    await arena.client("bob", Slow("sim-random"), games=["sim"])
    arena.server.sessions["alice"].hosted = True
    control = TimeControl(move_ms=100, bank_ms=0, first_move_ms=5000, kind="cpu")
    record = await arena.server.play_game("sim", {"vertices": 6}, ["alice", "bob"], seed=1,
                                          time_control=control)
    outcome = record.outcome
    assert outcome.termination.value == "timeout" and outcome.loser == 1, outcome
    assert outcome.detail == "bob used 100 ms and its 0 ms bank on turn 3"  # wall time
    assert ("alice", 2) in asked and {name for name, _ in asked} == {"alice"}
    readings["alice"] = 101.0  # over its 100 ms of CPU time on its second move
    record = await arena.server.play_game("sim", {"vertices": 6}, ["alice", "bob"], seed=1,
                                          time_control=control)
    outcome = record.outcome
    assert outcome.termination.value == "timeout" and outcome.loser == 0, outcome
    assert outcome.detail == "alice used 100 ms and its 0 ms bank of CPU time on turn 2"
