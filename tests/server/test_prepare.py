"""House bots in worker processes (prepared off the clock, moving on it, failing
alone) and the bots' `prepare` hook in the client SDK."""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arena.game import Termination
from arena.games.tiles.rules import TilesState
from arena.registry import Registry
from arena.server import TimeControl
from arena.workers import WorkerLimits
from bots.tiles.bots import RandomBot
from clients.sdk import BuiltinBot
from tests.server import house_bots, worker_jobs
from tests.server.conftest import stored_record

TILES = {"tiles": 3, "players": 2}
# No overage bank: a move over the limit loses on time.
STRICT = TimeControl(move_ms=1000, bank_ms=0, first_move_ms=1000, retries=0, grace_ms=1000)


class Recorder(RandomBot):
    """A random tile bot whose `prepare` takes `delay` seconds (or fails), noting what
    happened: ("prepare", whether a game on the server had started, thread), ("move",)."""

    def __init__(
        self, events: list[tuple[Any, ...]], server: Any, delay: float, fail: bool
    ) -> None:
        self.events = events
        self.server = server
        self.delay = delay
        self.fail = fail

    def prepare(self, game: Any) -> None:
        started = any(live.started for live in self.server.live.values())
        self.events.append(("prepare", started, threading.current_thread()))
        time.sleep(self.delay)
        if self.fail:
            raise RuntimeError("no table for you")

    def choose_move(self, game: Any, state: TilesState, rng: random.Random) -> Any:
        self.events.append(("move",))
        return super().choose_move(game, state, rng)


def record_bots(server: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Bot specs ``recorder:DELAY`` and ``recorder-broken`` for the server and the SDK
    (both make their bots with the shared default registry); returns the events."""
    recorded: list[tuple[Any, ...]] = []
    registry = server.registry
    make_bot = registry.make_bot

    def make(game: Any, spec: str) -> Any:
        if spec.startswith("recorder"):
            delay = float(spec.partition(":")[2] or 0)
            return Recorder(recorded, server, delay, spec == "recorder-broken")
        return make_bot(game, spec)

    monkeypatch.setattr(registry, "make_bot", make)
    return recorded


@pytest.fixture
def events(arena: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    return record_bots(arena.server, monkeypatch)


@pytest.fixture
async def workers_arena(make_arena: Any) -> Any:
    """A server whose workers know the test house bots (`tests.server.house_bots`)."""
    return await make_arena(registry=Registry(house_bots.PLUGINS, entry_points=False),
                            time_control=STRICT)


async def test_house_bots_prepare_in_a_worker_before_the_clock_starts(
    workers_arena: Any, tmp_path: Path
) -> None:
    log = tmp_path / "events.jsonl"
    # preparing takes longer than the first move may: it must not be on the clock
    record = await workers_arena.server.play_game(
        "tiles", TILES, [f"house:tiles-recorder:log={log},delay=1.5", "house:tiles-random"],
        seed=1)
    assert record.outcome is not None
    assert record.outcome.termination is Termination.NORMAL, record.outcome.detail
    events = house_bots.read_log(log)
    assert [e["event"] for e in events] == ["prepare"] + ["move"] * (len(events) - 1)
    assert len(events) > 1
    assert {e["pid"] for e in events} != {os.getpid()}  # not on the event loop
    assert len({e["pid"] for e in events}) == 1  # the moves went where it was prepared


async def test_a_worker_that_lost_the_bot_prepares_it_again_off_the_clock(
    workers_arena: Any, tmp_path: Path
) -> None:
    log = tmp_path / "events.jsonl"
    server = workers_arena.server
    live = server.start_game(  # twelve tiles: the recorder has many moves to make
        "tiles", {"tiles": 12, "players": 2},
        [f"house:tiles-recorder:log={log},delay=1.5,think=0.1", "house:tiles-random"], seed=2)
    async with asyncio.timeout(30):  # until the recorder has moved once
        while "move" not in [e["event"] for e in house_bots.read_log(log)]:
            await asyncio.sleep(0.01)
    for worker in range(server.house_bots.pool.size):  # every worker forgets its bots
        await server.house_bots.pool.run(worker_jobs.forget_house_bots, timeout=30,
                                         worker=worker)
    record = await stored_record(live, 60)
    assert record.outcome.termination is Termination.NORMAL, record.outcome.detail
    kinds = [e["event"] for e in house_bots.read_log(log)]
    assert kinds.count("prepare") == 2, kinds  # prepared again, its 1.5 s not charged
    assert kinds.index("prepare", 1) < len(kinds) - 1  # and it moved after that


async def test_a_house_bot_that_cannot_prepare_forfeits(
    workers_arena: Any, tmp_path: Path
) -> None:
    log = tmp_path / "events.jsonl"
    record = await workers_arena.server.play_game(
        "tiles", TILES, ["house:tiles-random", f"house:tiles-recorder:log={log},fail=1"], seed=1
    )
    outcome = record.outcome
    assert outcome is not None and outcome.termination is Termination.ILLEGAL_MOVE
    assert outcome.loser == 1 and outcome.winner == 0
    assert "failed to prepare" in outcome.detail and "no table for you" in outcome.detail
    assert record.turns == ()
    assert [e["event"] for e in house_bots.read_log(log)] == ["prepare"]


async def test_a_slow_house_bot_loses_on_time_and_its_worker_is_killed(
    workers_arena: Any, tmp_path: Path
) -> None:
    log = tmp_path / "events.jsonl"
    server = workers_arena.server
    record = await server.play_game(
        "tiles", TILES, [f"house:tiles-recorder:log={log},think=30", "house:tiles-random"],
        seed=3)
    outcome = record.outcome
    assert outcome.termination is Termination.TIMEOUT and outcome.loser == 0, outcome.detail
    assert record.turns == ()
    # the worker thinking its 30 s was killed at the deadline (the game took about 1 s)
    pid = house_bots.read_log(log)[0]["pid"]
    async with asyncio.timeout(10):
        while not gone(pid):
            await asyncio.sleep(0.01)


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (a zombie waiting to be reaped has)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


async def test_a_house_bot_out_of_memory_forfeits_and_its_worker_is_replaced(
    make_arena: Any
) -> None:
    arena = await make_arena(registry=Registry(house_bots.PLUGINS, entry_points=False),
                             workers=WorkerLimits(processes=1, memory_mb=512))
    record = await arena.server.play_game(
        "tiles", TILES, ["house:tiles-hog:mib=2048", "house:tiles-random"], seed=4)
    outcome = record.outcome
    assert outcome.termination is Termination.ILLEGAL_MOVE and outcome.loser == 0
    assert "more than 512 MiB" in outcome.detail
    again = await arena.server.play_game(  # the pool goes on with a fresh worker
        "tiles", TILES, ["house:tiles-hog:mib=8", "house:tiles-random"], seed=4)
    assert again.outcome.termination is Termination.NORMAL, again.outcome.detail


@pytest.mark.parametrize("threaded", [False, True])
async def test_the_sdk_prepares_a_builtin_bot_before_its_first_move(
    arena: Any, events: list[Any], threaded: bool
) -> None:
    await arena.client("alice", BuiltinBot("recorder:0.2", threaded=threaded))
    record = await arena.server.play_game(
        "tiles", TILES, ["alice", "house:tiles-random"], seed=4
    )
    assert record.outcome is not None
    assert record.outcome.termination is Termination.NORMAL, record.outcome.detail
    kind, started, thread = events[0]
    assert kind == "prepare" and started  # the server had sent game_start
    assert (thread is threading.main_thread()) is not threaded
    assert [event[0] for event in events[1:]] == ["move"] * (len(events) - 1)
    assert len(events) > 1
