"""The bots' `prepare` hook on the server (house players) and in the client SDK."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from arena.game import Termination
from arena.games.tiles.rules import TilesState
from arena.server import TimeControl
from bots.tiles.bots import RandomBot
from clients.sdk import BuiltinBot

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


async def test_house_bots_prepare_before_the_clock_starts(
    make_arena: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    strict = await make_arena(time_control=STRICT)
    recorded = record_bots(strict.server, monkeypatch)
    # preparing takes longer than the first move may: it must not be on the clock
    record = await strict.server.play_game(
        "tiles", TILES, ["house:recorder:1.5", "house:tiles-random"], seed=1
    )
    assert record.outcome is not None
    assert record.outcome.termination is Termination.NORMAL, record.outcome.detail
    assert recorded[0][:2] == ("prepare", False)
    assert recorded[0][2] is not threading.main_thread()  # off the event loop
    assert [event[0] for event in recorded[1:]] == ["move"] * (len(recorded) - 1)


async def test_a_house_bot_that_cannot_prepare_forfeits(arena: Any, events: list[Any]) -> None:
    record = await arena.server.play_game(
        "tiles", TILES, ["house:tiles-random", "house:recorder-broken"], seed=1
    )
    outcome = record.outcome
    assert outcome is not None and outcome.termination is Termination.ILLEGAL_MOVE
    assert outcome.loser == 1 and outcome.winner == 0
    assert "failed to prepare" in outcome.detail and "no table for you" in outcome.detail
    assert record.turns == ()
    assert [event[0] for event in events] == ["prepare"]


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
