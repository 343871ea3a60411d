"""Sim bots: legal, reproducible, and ordered in strength as the seed says."""

from __future__ import annotations

import pytest

from arena.bots import BotSpec
from arena.cli.compare import compare_bots, parse_extra_settings
from arena.errors import BotSpecError
from arena.game import Termination
from arena.games.sim import SimGame
from arena.match import play_match
from arena.registry import Registry

BOTS = ["sim-random", "sim-safe-random", "sim-mc:trials=20", "sim-perfect"]


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry(["arena.games.sim.plugin", "bots.sim.plugin"], entry_points=False)


def test_registered(registry: Registry) -> None:
    assert registry.game_class("sim") is SimGame
    assert [f.name for f in registry.bot_factories("sim")] == [
        "sim-mc", "sim-perfect", "sim-random", "sim-safe-random"
    ]
    with pytest.raises(BotSpecError, match="trials"):
        registry.parse_bots("sim", "sim-mc:trials=0")


@pytest.mark.parametrize("n", [3, 5, 6, 7])
@pytest.mark.parametrize("first", BOTS)
def test_bots_play_legal_games(registry: Registry, n: int, first: str) -> None:
    game = SimGame(n)
    for second in BOTS:
        bots = [registry.make_bot(game, first), registry.make_bot(game, second)]
        match = play_match(game, bots, seed=n, names=[first, second])
        assert match.outcome is not None
        assert match.outcome.termination is Termination.NORMAL, match.outcome.detail


@pytest.mark.parametrize("spec", BOTS)
def test_bots_are_reproducible(registry: Registry, spec: str) -> None:
    game = SimGame(6)
    records = []
    for _ in range(2):
        bots = [registry.make_bot(game, spec), registry.make_bot(game, "sim-random")]
        records.append([t.move for t in play_match(game, bots, seed=3).turns])
    assert records[0] == records[1]


def test_perfect_never_loses_as_second_on_k6(registry: Registry) -> None:
    game = SimGame(6)
    for seed in range(6):
        opponent = ["sim-random", "sim-safe-random", "sim-mc:trials=30"][seed % 3]
        bots = [registry.make_bot(game, opponent), registry.make_bot(game, "sim-perfect")]
        assert play_match(game, bots, seed=seed).outcome.winner == 1  # type: ignore[union-attr]


def test_perfect_draws_k5_against_itself(registry: Registry) -> None:
    game = SimGame(5)
    bots = [registry.make_bot(game, "sim-perfect"), registry.make_bot(game, "sim-perfect")]
    assert play_match(game, bots, seed=1).outcome.winner is None  # type: ignore[union-attr]


def test_perfect_falls_back_when_over_budget(registry: Registry) -> None:
    game = SimGame(8)
    bot = registry.make_bot(game, BotSpec("sim-perfect", (("budget", "10"),)))
    move = bot.choose_move(game, game.initial_state(), __import__("random").Random(1))
    assert game.check_move(game.initial_state(), move) is not None


def test_compare_orders_the_bots(registry: Registry) -> None:
    mc = compare_bots(registry, "sim", {"vertices": 6}, "sim-mc:trials=50,sim-random", games=10, seed=1)
    assert mc.to_json()["total"]["wins"] >= 16
    assert set(mc.by_seat) == {0, 1}
    safe = compare_bots(registry, "sim", {"vertices": 6}, "sim-safe-random,sim-random", games=30, seed=1)
    assert safe.to_json()["total"]["wins"] > 30


def test_parse_extra_settings() -> None:
    assert parse_extra_settings(["--vertices", "6", "--name=x", "--list", "[1, 2]"]) == {
        "vertices": 6, "name": "x", "list": [1, 2]
    }


def test_compare_command(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from click.testing import CliRunner

    import arena.registry
    from arena.cli import main

    monkeypatch.setattr(arena.registry, "default_registry", lambda: registry)
    args = ["compare", "--game", "sim", "--bots", "sim-safe-random,sim-random", "--games", "5",
            "--vertices", "5", "--seed", "2"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["bots"] == ["sim-safe-random", "sim-random"]
    assert sum(data["as_first"].values()) == sum(data["as_second"].values()) == 5
    text = CliRunner().invoke(main, args)
    assert "sim-safe-random as first vs sim-random" in text.output
    bad = CliRunner().invoke(main, ["compare", "--game", "sim", "--bots", "sim-random", "--vertices", "12"])
    assert bad.exit_code != 0 and "vertices" in bad.output
    one = CliRunner().invoke(main, ["compare", "--game", "sim", "--bots", "sim-random"])
    assert one.exit_code != 0 and "exactly two bots" in one.output
