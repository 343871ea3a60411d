"""The bots' optional `prepare(game)` hook: called before the first move in process."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from arena.bots import prepare_bot
from arena.games.tiles import race
from arena.games.tiles.rules import TilesState
from arena.match import play_match
from arena.registry import Registry
from arena.tournament.runner import TournamentSpec, run_tournament
from bots.tiles.bots import RandomBot

PLUGINS = ("arena.games.tiles.plugin", "bots.tiles.plugin")


class Recorder(RandomBot):
    """A random tile bot that notes when it is prepared and asked to move."""

    def __init__(self, events: list[tuple[str, int]], ident: int = 0) -> None:
        self.events = events
        self.ident = ident

    def prepare(self, game: Any) -> None:
        self.events.append(("prepare", self.ident))

    def choose_move(self, game: Any, state: TilesState, rng: random.Random) -> Any:
        self.events.append(("move", self.ident))
        return super().choose_move(game, state, rng)


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry(PLUGINS, entry_points=False)


def test_prepare_bot_calls_the_hook_where_there_is_one(registry: Registry) -> None:
    game = registry.load_game("tiles", {"tiles": 3})
    events: list[tuple[str, int]] = []
    prepare_bot(Recorder(events), game)
    prepare_bot(RandomBot(), game)  # no hook: nothing to do
    assert events == [("prepare", 0)]


def test_a_match_prepares_every_bot_before_the_first_move(registry: Registry) -> None:
    game = registry.load_game("tiles", {"tiles": 4, "players": 2})
    events: list[tuple[str, int]] = []
    match = play_match(game, [Recorder(events, 0), Recorder(events, 1)], seed=3)
    assert match.outcome is not None
    assert events[:2] == [("prepare", 0), ("prepare", 1)]
    assert {kind for kind, _ in events[2:]} == {"move"}


def test_tournament_games_are_prepared(registry: Registry) -> None:
    events: list[tuple[str, int]] = []

    def maker(game: Any, spec: str) -> Recorder:
        return Recorder(events, int(spec))

    spec = TournamentSpec("tiles", {"tiles": 3, "players": 2}, ("0", "1"), games=2, seed=5)
    run_tournament(spec, processes=1, maker=maker)
    prepared = [i for i, event in enumerate(events) if event[0] == "prepare"]
    assert len(prepared) == 4 * 2 * 2  # four pairings of two games, two seats each
    for start in prepared[::2]:  # both seats are prepared before anybody moves
        assert [kind for kind, _ in events[start : start + 3]] == ["prepare", "prepare", "move"]


@pytest.mark.parametrize("players", [2, 3])
def test_race_perfect_prepares_its_table(
    registry: Registry, players: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path))
    race._cached_table.cache_clear()
    try:
        game = registry.load_game("tiles", {"tiles": 5, "players": players})
        prepare_bot(registry.make_bot(game, "tiles-race-perfect"), game)
        kept = sorted(p.name for p in tmp_path.iterdir())
        assert kept == (["tiles-race-5-noskip.bin"] if players == 2 else [])  # the seed's rules
        assert race._cached_table.cache_info().currsize == (1 if players == 2 else 0)
    finally:
        race._cached_table.cache_clear()
