"""Golden game transcripts for Sim and heaps: the same seeds must give the same logs,
and every logged move must replay through the referee to the logged facts and result.

Regenerate after an intended change with ``ARENA_REGEN_GOLDEN=1 pytest tests/games``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from arena.match import play_match
from arena.record import read_jsonl, to_jsonl
from arena.registry import Registry
from arena.replay import Replay

GOLDEN = Path(__file__).parent / "golden"

CASES: list[tuple[str, str, dict[str, Any], tuple[str, str], int]] = [
    ("sim-k6-mc-vs-safe", "sim", {"vertices": 6}, ("sim-mc:trials=30", "sim-safe-random"), 11),
    ("sim-k5-perfect-vs-random", "sim", {"vertices": 5}, ("sim-perfect", "sim-random"), 5),
    ("heaps-49932-perfect-vs-random", "heaps",
     {"example": "49932", "target": 384, "start": [5, 11]}, ("heaps-random", "heaps-perfect"), 3),
]


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry(
        ["arena.games.sim.plugin", "bots.sim.plugin", "arena.games.heaps.plugin", "bots.heaps.plugin"],
        entry_points=False,
    )


@pytest.mark.parametrize("name, game_name, settings, bots, seed", CASES, ids=[c[0] for c in CASES])
def test_playthrough(
    registry: Registry, name: str, game_name: str, settings: dict[str, Any],
    bots: tuple[str, str], seed: int,
) -> None:
    game = registry.load_game(game_name, settings)
    match = play_match(
        game, [registry.make_bot(game, spec) for spec in bots], seed=seed, names=list(bots)
    )
    text = to_jsonl(match.record())
    path = GOLDEN / f"{name}.jsonl"
    if os.environ.get("ARENA_REGEN_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")

    record = read_jsonl(path.read_text(encoding="utf-8").splitlines())
    replay = Replay(record, registry.load_game(record.game, record.settings))
    assert replay.check() is None
    assert replay.turns_replayed == len(record.turns) > 0
    assert replay.game.outcome(replay.state) == record.outcome
