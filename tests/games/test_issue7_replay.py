"""Durak and tiles matches survive the log: write JSON Lines, read, replay, compare."""

from __future__ import annotations

import pytest

from arena.match import play_match
from arena.record import read_jsonl, to_jsonl
from arena.registry import Registry
from arena.replay import Replay

PLUGINS = (
    "arena.games.durak.plugin",
    "bots.durak.plugin",
    "arena.games.tiles.plugin",
    "bots.tiles.plugin",
)


@pytest.mark.parametrize(
    ("game_name", "settings", "bots"),
    [
        ("durak", {"cards": "0110001111"}, ["durak-perfect", "durak-greedy"]),
        (
            "durak",
            {
                "cards": "01101001",
                "weights": [1, -2, 3, 1, 0, 2, -1, 4],
                "draw_rule": True,
                "first": 1,
            },
            ["durak-greedy", "durak-perfect"],
        ),
        ("tiles", {"tiles": 8}, ["tiles-zermelo"]),
        ("tiles", {"tiles": 5, "players": 2}, ["tiles-race-perfect", "tiles-probability"]),
    ],
)
def test_log_round_trip_and_replay(game_name: str, settings: dict, bots: list[str]) -> None:
    registry = Registry(PLUGINS, entry_points=False)
    game = registry.load_game(game_name, settings)
    match = play_match(game, [registry.make_bot(game, b) for b in bots], seed=11, names=bots)
    record = read_jsonl(to_jsonl(match.record()).splitlines())
    assert record.outcome == match.outcome
    replay = Replay(record, registry.load_game(record.game, record.settings))
    assert replay.check() is None
    assert replay.turns_replayed == len(record.turns) > 0
    assert replay.game.outcome(replay.state) == record.outcome
