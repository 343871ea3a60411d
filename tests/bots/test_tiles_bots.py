from __future__ import annotations

import random
import statistics

import pytest

from arena.game import Termination
from arena.games.tiles import Choice
from arena.games.tiles.expected import solo_table
from arena.match import play_match
from arena.registry import Registry
from bots.tiles.strategies import probability_choice, tile_chance

PLUGINS = ("arena.games.tiles.plugin", "bots.tiles.plugin")
BOTS = ["tiles-random", "tiles-probability", "tiles-zermelo", "tiles-race-perfect"]


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry(PLUGINS, entry_points=False)


@pytest.mark.parametrize("spec", BOTS)
@pytest.mark.parametrize("players", [1, 2])
def test_bots_play_legal_games(registry: Registry, spec: str, players: int) -> None:
    for voluntary in (True, False):
        game = registry.load_game(
            "tiles", {"tiles": 6, "players": players, "voluntary_skip": voluntary}
        )
        for seed in range(3):
            bots = [registry.make_bot(game, spec) for _ in range(players)]
            match = play_match(game, bots, seed=seed)
            assert match.outcome is not None
            assert match.outcome.termination is Termination.NORMAL


def test_zermelo_average_is_near_the_exact_expectation(registry: Registry) -> None:
    game = registry.load_game("tiles", {"tiles": 4})
    bot = registry.make_bot(game, "tiles-zermelo")
    turns = [play_match(game, [bot], seed=s).outcome.scores[0] for s in range(600)]
    exact = solo_table(4).full
    error = statistics.pstdev(turns) / len(turns) ** 0.5
    assert abs(statistics.fmean(turns) - exact) < 4 * error


def test_race_perfect_beats_random_on_average(registry: Registry) -> None:
    game = registry.load_game("tiles", {"tiles": 6, "players": 2})
    perfect, rand = (registry.make_bot(game, n) for n in ("tiles-race-perfect", "tiles-random"))
    wins = 0
    for seed in range(200):
        bots = [perfect, rand] if seed % 2 == 0 else [rand, perfect]
        outcome = play_match(game, bots, seed=seed).outcome
        wins += outcome.winner == (0 if seed % 2 == 0 else 1)
    assert wins > 100


def test_probability_strategy_follows_the_seed_formula() -> None:
    board = (1 << 12) - 1
    # 3-5: after "pair" tile 8 stays, p(8) = 5/36 + pairs using 8 (none: dice <= 6);
    # after "sum", tiles 3 and 5 stay with p(3) + p(5) > p(8): K is smaller for pair.
    assert tile_chance(board & ~0b10100, 8) == pytest.approx(5 / 36)
    assert probability_choice(board, (3, 5), random.Random(0)) is Choice.PAIR


def test_registry_lists_the_tile_bots(registry: Registry) -> None:
    assert [f.name for f in registry.bot_factories("tiles")] == sorted(BOTS)


def test_zermelo_passes_when_staying_is_better() -> None:
    from bots.tiles.strategies import zermelo_choice

    # Tiles 1 and 2 up, roll 2-2: turning 2 down leaves tile 1 (36 turns expected),
    # staying keeps 18 expected turns.
    assert zermelo_choice(0b11, (2, 2), 12, True) is Choice.PASS
    assert zermelo_choice(0b11, (2, 2), 12, False) is Choice.PAIR
    assert zermelo_choice(0b11, (1, 2), 12, True) is Choice.PAIR


def test_race_perfect_takes_a_winning_move() -> None:
    from bots.tiles.strategies import race_choice

    assert race_choice(0b11, 0b1, (1, 2), 4, True) is Choice.PAIR
    assert race_choice(0b100, 0b1, (1, 2), 4, True) is Choice.SUM
