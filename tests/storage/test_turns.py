"""Write-ahead turns, on both backends: every accepted move is stored (several games' in
one transaction) before anybody hears of it; a restart reads each running game back with
its turns, through the one replay path; a finished game's turns go with its result."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from arena.clock import TimeControl
from arena.record import read_jsonl
from arena.registry import default_registry
from arena.replay import Replay
from arena.server.live import ClockState, LiveGame
from arena.storage import Storage, StorageFailure, StoredTurn
from tests.waiting import wait_for

from .games import BIG_SEED, line, played, started, turns_of

CONTROL = TimeControl(move_ms=500, bank_ms=3000, first_move_ms=800, retries=2, grace_ms=100)


async def test_a_running_game_comes_back_with_its_turns_and_replays(storage: Storage) -> None:
    record = played("g1", moves=6)
    await storage.start_game(started(record), ladder=True, pair="p1", time_control=CONTROL)
    turns = turns_of(record)
    await storage.append_turns(turns[:3])
    await storage.append_turns(turns[3:])

    [running] = await storage.running_games()
    assert running.id == "g1" and running.game == "substitution" and running.seed == BIG_SEED
    assert running.players == ("alice", "bob") and running.ladder and running.pair == "p1"
    assert running.time_control == CONTROL and running.seed_commitment == record.seed_commitment
    assert running.turns == tuple(turns)
    assert running.turns[-1].banks_ms == turns[-1].banks_ms and running.turns[-1].ended == 1000 + 11

    # the stored turns are the game so far: the one replay path takes them as they are
    game = default_registry().load_game(running.game, running.settings)
    so_far = running.record(game.type.chance_name)
    assert so_far.turns == record.turns and so_far.outcome is None
    assert so_far.seed == BIG_SEED and so_far.seed_commitment == record.seed_commitment
    replay = Replay(so_far, game)
    assert len(list(replay)) == len(record.turns) and replay.defect is None
    # and what a restarted server rebuilds its live game from (arena.server.live)
    last = running.turns[-1]
    live = LiveGame.restore(so_far, game, CONTROL, ClockState(last.banks_ms, last.retries_left))
    assert live.turn == len(record.turns) and live.match.state == replay.state
    assert [clock.bank_ms for clock in live.clocks] == list(last.banks_ms)

    await storage.finish_game(record, rated=True)
    assert await storage.running_games() == []
    stored = await storage.game("g1")
    assert stored is not None and stored.turns == len(record.turns)
    assert read_jsonl(stored.log.splitlines()).turns == record.turns  # type: ignore[union-attr]
    async with storage.snapshot() as snapshot:
        assert await snapshot.count("game_turns") == 0  # dropped with the result


async def test_running_games_of_chosen_ids_only(storage: Storage) -> None:
    """What a host that took games over reads: those games, with their turns."""
    records = [played(f"g{number}", moves=3) for number in range(3)]
    for record in records:
        await storage.start_game(started(record), ladder=False, pair=None)
        await storage.append_turns(turns_of(record))
    chosen = await storage.running_games(["g2", "g0", "nothing"])
    assert [game.id for game in chosen] == ["g0", "g2"]
    assert [game.turns for game in chosen] == [tuple(turns_of(records[0])),
                                               tuple(turns_of(records[2]))]
    assert await storage.running_games([]) == []
    assert len(await storage.running_games()) == 3


async def test_a_game_of_1000_turns_and_a_batch_of_200_games(storage: Storage) -> None:
    banks, retries = (2500.5, 3000.0), 1
    long = replace(played("long"), turns=())
    await storage.start_game(long, ladder=False, pair=None, time_control=CONTROL)
    for start in range(0, 1000, 100):
        await storage.append_turns([StoredTurn("long", i, line(i), banks, retries, 5.0 + i)
                                    for i in range(start, start + 100)])
    batch = [replace(long, id=f"g{n:03d}", seed_commitment=None) for n in range(200)]
    for game in batch:
        await storage.start_game(game, ladder=True, pair=None)
    for index in range(3):  # three loop iterations' moves: 200 games' turns in each commit
        await storage.append_turns([StoredTurn(game.id, index, line(index), banks, retries, 9.0)
                                    for game in batch])

    running = {game.id: game for game in await storage.running_games()}
    assert len(running) == 201
    assert [turn.index for turn in running["long"].turns] == list(range(1000))
    assert running["long"].turns[999] == StoredTurn("long", 999, line(999), banks, retries, 1004.0)
    assert len(running["long"].record().turns) == 1000
    assert all(len(running[game.id].turns) == 3 for game in batch)
    assert running["g007"].time_control is None and running["g007"].seed_commitment is None

    finished = replace(played("g007"), players=long.players)
    await storage.finish_game(finished)
    assert "g007" not in {game.id for game in await storage.running_games()}
    async with storage.snapshot() as snapshot:
        assert await snapshot.count("game_turns") == 1000 + 199 * 3


async def test_a_turn_stored_twice_is_refused_and_its_batch_with_it(storage: Storage) -> None:
    record = played("g1")
    other = played("g2")
    for game in (record, other):
        await storage.start_game(started(game), ladder=False, pair=None)
    await storage.append_turns([StoredTurn("g1", 0, line(0), (), 0, 1.0)])
    with pytest.raises(ValueError, match="stored already"):
        await storage.append_turns([StoredTurn("g2", 0, line(0), (), 0, 1.0),
                                    StoredTurn("g1", 0, line(0), (), 0, 2.0)])
    running = {game.id: game for game in await storage.running_games()}
    assert [t.ended for t in running["g1"].turns] == [1.0] and running["g2"].turns == ()
    await storage.append_turns([])  # nothing to store: no transaction at all


async def test_a_stored_move_is_one_round_trip_on_postgresql() -> None:
    """A batch of moves is one statement on a connection of its own, kept for the next
    batch: no pool's acquire and release (and no reset query) between. One the server
    closed while idle is replaced at once; one it closes under a statement is a storage
    failure, and the next batch opens a new one."""
    from arena.storage.postgres import PostgresStorage

    from .conftest import admin, postgres_schema

    async with postgres_schema() as url:
        storage = await PostgresStorage.open(url)
        try:
            record = played("g1", moves=6)
            turns = turns_of(record)
            await storage.start_game(started(record), ladder=False, pair=None)
            await storage.append_turns(turns[:2])  # (asyncpg learns the types the first time)
            [writer] = storage._writers
            queries: list[str] = []
            writer.add_query_logger(lambda logged: queries.append(logged.query))
            await storage.append_turns(turns[2:4])
            await wait_for(lambda: queries, what="the statement logged")  # (a loop turn on)
            assert len(queries) == 1 and "INSERT INTO game_turns" in queries[0], queries
            assert storage._writers == [writer]

            schema = await writer.fetchval("SELECT current_schema()")
            connection = await admin()
            try:
                # closed while idle: noticed, and replaced by a new one without a failure
                # (with a timeout, pg_terminate_backend returns once the backend is gone)
                assert await connection.fetchval("SELECT pg_terminate_backend($1, 10000)",
                                                 writer.get_server_pid())
                await wait_for(writer.is_closed, what="the closed connection noticed")
                await storage.append_turns(turns[4:5])
                [second] = storage._writers
                assert second is not writer

                # closed under a statement (held by a lock meanwhile): a storage failure
                async with connection.transaction():
                    await connection.execute(
                        f'LOCK TABLE "{schema}".game_turns IN ACCESS EXCLUSIVE MODE')
                    storing = asyncio.ensure_future(storage.append_turns(turns[5:]))
                    await wait_for(lambda: second in storage._writing, what="the batch sent")
                    assert await connection.fetchval(
                        "SELECT pg_terminate_backend($1, 10000)", second.get_server_pid())
                with pytest.raises(StorageFailure):
                    await storing
            finally:
                await connection.close()
            assert await storage.probe()  # healthy again
            await storage.append_turns(turns[5:])  # on a new connection
            [running] = await storage.running_games()
            assert running.turns == tuple(turns)
        finally:
            await storage.close()


def test_a_batch_of_moves_is_one_statement_on_sqlite(tmp_path) -> None:
    """On SQLite a commit of moves is one INSERT, its own transaction (the database
    thread takes the GIL back once, not once a statement), at ``synchronous=NORMAL``
    without setting it again for every batch; anything else is synced again (``FULL``),
    and a batch above one statement's size is still one transaction."""
    from arena.storage import sqlite as module

    database = module.SQLiteDatabase(tmp_path / "arena.sqlite")
    try:
        records = [played(f"g{number}", moves=6) for number in range(3)]
        for record in records:
            database.start_game(started(record), ladder=False, pair=None)
        database.db  # noqa: B018 - synced again, as after anything but moves, a start or a lease
        statements: list[str] = []
        database._db.set_trace_callback(statements.append)
        turns = [turns_of(record)[:3] for record in records]
        database.append_turns([turn for some in turns for turn in some[:2]])
        database.append_turns([some[2] for some in turns])
        assert [s.split("(")[0].strip() for s in statements] == [
            "PRAGMA synchronous=NORMAL", "INSERT INTO game_turns", "INSERT INTO game_turns"]
        assert database._db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        statements.clear()
        assert database.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert statements[0] == "PRAGMA synchronous=FULL"
        database._db.set_trace_callback(None)

        database._turns_per_statement = 2  # several statements: still all or nothing
        rest = [turn for record in records for turn in turns_of(record)[3:]]
        with pytest.raises(ValueError, match="stored already"):
            database.append_turns([*rest, turns[0][0]])
        assert all(len(game.turns) == 3 for game in database.running_games())
        database.append_turns(rest)
        assert [game.turns for game in database.running_games()] == [
            tuple(turns_of(record)) for record in records]
        assert database.db.execute("PRAGMA synchronous").fetchone()[0] == 2
    finally:
        database.close()


def test_a_call_that_raises_in_the_sqlite_thread_stops_no_other(caplog) -> None:
    """A call of the database thread that raises (none should: a bug) is logged, and
    the calls after it still run."""
    import threading

    from arena.storage.sqlite import DatabaseThread

    def broken() -> None:
        raise RuntimeError("a bug")

    thread = DatabaseThread()
    try:
        after = threading.Event()
        thread.submit(broken)
        thread.submit(broken)
        thread.submit(after.set)
        assert after.wait(30)
    finally:
        thread.shutdown()
    assert [r.getMessage() for r in caplog.records].count(
        "a call in the database thread failed") == 2
