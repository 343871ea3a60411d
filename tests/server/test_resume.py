"""Write-ahead moves and resumed games, in-process: a move is stored before anybody is
told of it; a closed server's games resume on the next start (house seats too) once
their players are back, with the clocks as stored; a game whose record cannot be
replayed is aborted with the reason. (`test_durability.py`: ``kill -9`` and SIGTERM of
``arena serve``.)"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

from arena.clock import TimeControl
from arena.record import read_jsonl
from arena.storage import commit_in_task, open_storage
from clients.sdk import ArenaClient, BuiltinBot
from protocol import Message
from tests.storage.games import played, started, turns_of
from tests.waiting import never, wait_for

from .conftest import SUBST, stored_record

CONTROL = TimeControl(move_ms=5000, bank_ms=5000, first_move_ms=5000, retries=0, grace_ms=30_000)


async def plant(db: str, *records: Any, stored: dict[str, list[Any]]) -> dict[str, str]:
    """Accounts alice and bob, and `records` stored as running with their `stored` turns
    (what a killed server leaves); returns the tokens."""
    storage = await open_storage(db)
    try:
        tokens = {name: await storage.add_bot(name) for name in ("alice", "bob")}
        for record in records:
            await storage.start_game(started(record), ladder=False, pair=None,
                                     time_control=CONTROL)
            await storage.append_turns(stored[record.id])
    finally:
        await storage.close()
    return tokens


async def connect(url: str, token: str, bot: Any = "random") -> tuple[ArenaClient, asyncio.Task]:
    client = ArenaClient(url, token, BuiltinBot(bot) if isinstance(bot, str) else bot,
                         reconnect_delay=0.05)
    seen: list[Message] = []
    client.on_message = seen.append
    client.seen = seen  # type: ignore[attr-defined]
    task = asyncio.create_task(client.run())
    async with asyncio.timeout(10):
        await client.connected.wait()
    return client, task


async def test_running_games_resume_and_a_defective_record_is_aborted(make_arena, tmp_path):
    db = str(tmp_path / "arena.sqlite")
    good, bad = played("good", moves=6), played("bad", moves=6)
    wrong = turns_of(bad)[:3]
    line = json.loads(wrong[2].line)
    wrong[2] = replace(wrong[2], line=json.dumps({**line, "move": "no such move"}))
    tokens = await plant(db, good, bad, stored={"good": turns_of(good)[:4], "bad": wrong})

    arena = await make_arena()
    server = arena.server
    assert server.resumed == ["good"] and server.recovered == ["bad"]
    health = server.health()
    assert health["resumed_games"] == 1 and health["recovered_games"] == 1
    row = await server.storage.game("bad")
    assert row is not None and row.status == "aborted" and row.termination == "aborted"
    assert row.reason.startswith("the game could not be resumed after a restart: turn 2")
    assert "no such move" in row.reason
    assert read_jsonl(row.log.splitlines()).outcome.result == "aborted"

    live = server.live["good"]
    assert live.turn == 4 and [c.bank_ms for c in live.clocks] == list(turns_of(good)[3].banks_ms)
    alice, alice_task = await connect(arena.url, tokens["alice"])
    # the game waits for both players: alice has the game and its state, not a turn yet
    await wait_for(lambda: any(m.type == "game_state" for m in alice.seen))
    assert not live.started and not any(m.type == "your_turn" for m in alice.seen)
    bob, bob_task = await connect(arena.url, tokens["bob"])
    record = await stored_record(live)
    assert record.outcome.termination.value == "normal"
    assert record.turns[:4] == good.turns[:4]  # the stored moves, then the rest played on
    assert len(record.turns) > 4 and record.seed == good.seed
    await wait_for(lambda: alice.results and bob.results, what="both told of the end")
    assert {r.game_id for r in alice.results} == {"good"} == {r.game_id for r in bob.results}
    assert all(r.seed_verified for r in alice.results + bob.results)
    for client in (alice, bob):
        await client.stop()
    await asyncio.gather(alice_task, bob_task, return_exceptions=True)


async def test_a_closed_servers_games_resume_with_their_house_seats(make_arena, tmp_path):
    arena = await make_arena(time_control=CONTROL)
    token = await arena.add_bot("alice")
    moves = 0

    async def three_moves_then_wait(turn: Any) -> str:
        nonlocal moves
        if moves >= 3:
            return await never()
        moves += 1
        return BuiltinBot("random").move(turn)  # type: ignore[return-value]

    alice, task = await connect(arena.url, token, three_moves_then_wait)
    live = arena.server.start_game("substitution", SUBST, ["alice", "house:random"], seed=5)
    await wait_for(lambda: moves == 3 and live.turn >= 5 and live.match.to_act() == 0)
    told = live.turn
    await arena.app.close()  # a SIGTERM: the game is suspended, not ended
    await alice.stop()
    await asyncio.gather(task, return_exceptions=True)
    assert live.record is None

    again = await make_arena(time_control=CONTROL)
    assert again.server.resumed == [live.id] and again.server.recovered == []
    resumed = again.server.live[live.id]
    assert resumed.turn == told and resumed.house  # the house seat rejoined
    alice, task = await connect(again.url, token, "random")
    record = await stored_record(resumed)
    assert record.outcome.termination.value == "normal" and len(record.turns) > told
    assert record.turns[:told] == tuple(live.match.turns)[:told]
    await wait_for(lambda: alice.results, what="alice told of the end")
    assert [r.game_id for r in alice.results] == [live.id]
    await alice.stop()
    await asyncio.gather(task, return_exceptions=True)


async def first_move(arena: Any) -> tuple[Any, Any, Any]:
    """Two raw bots in a game; the first has sent its first move (legal)."""
    mover = await arena.raw()
    await mover.hello(await arena.add_bot("mover"))
    other = await arena.raw()
    await other.hello(await arena.add_bot("other"))
    live = arena.server.start_game("substitution", SUBST, ["mover", "other"], seed=3)
    turn = await mover.expect("your_turn")
    move = live.game.legal_moves(live.match.state, limit=1).moves[0]
    await mover.send("move", game_id=live.id, turn=turn["turn"], move=move)
    return mover, other, live


def store_turns_by(monkeypatch: Any, storage: Any, append: Any) -> None:
    """The server's write-ahead commits its moves by `append` (SQLite's own way goes
    to its thread, around `append_turns`)."""
    monkeypatch.setattr(storage, "commit_turns_soon",
                        lambda take, done: commit_in_task(append, take, done))


async def test_a_move_is_stored_before_anybody_is_told_of_it(arena, monkeypatch):
    storage = arena.server.storage
    gate = asyncio.Event()
    committed: list[tuple[str, int]] = []
    append = storage.append_turns

    async def held(turns: Any) -> None:
        await gate.wait()
        await append(turns)
        committed.extend((turn.game_id, turn.index) for turn in turns)

    store_turns_by(monkeypatch, storage, held)
    mover, other, live = await first_move(arena)
    await wait_for(lambda: live.turn == 1)  # judged, not yet stored
    for raw in (mover, other):  # nothing of it comes before the answer to a later ping
        await raw.send("ping", id=1)
        while (message := await raw.recv())["type"] != "pong":
            assert message["type"] not in ("move_accepted", "opponent_moved", "your_turn")
    assert committed == []
    assert live.wake_at is None  # the clock of a turn nobody was told of waits too
    gate.set()
    accepted = await mover.expect("move_accepted")
    assert accepted["turn"] == 0 and committed == [(live.id, 0)]
    assert (await other.expect("your_turn"))["turn"] == 1
    assert live.wake_at is not None


async def test_spectators_and_the_web_see_no_move_before_it_is_stored(arena, monkeypatch):
    storage = arena.server.storage
    gate = asyncio.Event()
    append = storage.append_turns

    async def held(turns: Any) -> None:
        await gate.wait()
        await append(turns)

    store_turns_by(monkeypatch, storage, held)
    _mover, _other, live = await first_move(arena)
    await wait_for(lambda: live.turn == 1)  # judged, not yet stored
    viewer = await arena.raw()
    await viewer.hello(None, role="spectator")
    await viewer.send("spectate", game_id=live.id)
    web_view = asyncio.create_task(arena.server.live_game(live.id))  # what the web reads
    await viewer.send("ping", id=1)  # the state of an unstored move does not come first
    assert (await viewer.recv())["type"] == "pong"
    assert not web_view.done()
    gate.set()
    state = await viewer.expect("game_state")
    assert state["turn"] == 1  # the stored move, then every later one as frames
    assert (await web_view) is live and live.turn == 1
    assert [turn.index for game in await storage.running_games() for turn in game.turns] == [0]


async def test_while_a_move_cannot_be_stored_its_game_waits_with_its_clock_stopped(
        arena, monkeypatch):
    storage = arena.server.storage
    append = storage.append_turns
    failing = True

    async def failing_once(turns: Any) -> None:
        if failing:
            raise storage._failed(OSError(28, "No space left on device"))
        await append(turns)

    store_turns_by(monkeypatch, storage, failing_once)
    mover, other, live = await first_move(arena)
    error = await other.expect("error")
    assert error["code"] == "storage-unavailable"
    assert live.wake_at is None  # the clock of the turn nobody was told of is stopped
    failing = False
    assert await arena.server.storage.probe()
    assert (await mover.expect("move_accepted"))["turn"] == 0
    assert (await other.expect("your_turn"))["turn"] == 1
    assert live.wake_at is not None and not live.over
    with_turns = {game.id: len(game.turns) for game in await storage.running_games()}
    assert with_turns == {live.id: 1}



async def test_a_game_its_stored_moves_ended_is_stored_as_finished(make_arena, tmp_path):
    # the server stopped after the last move was stored, before the result was
    whole = played("whole", moves=3)
    await plant(str(tmp_path / "arena.sqlite"), whole, stored={"whole": turns_of(whole)})
    arena = await make_arena()
    assert arena.server.resumed == ["whole"]
    storage = arena.server.storage

    async def finished() -> Any:
        row = await storage.game("whole")
        return row if row is not None and row.status == "finished" else None

    row = await wait_for(finished)
    assert row.result == whole.outcome.result and row.turns == len(whole.turns)
