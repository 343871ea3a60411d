from __future__ import annotations

import random

import pytest

from arena.game import TERMINAL, Termination
from arena.games.durak import DurakGame, DurakSettings
from arena.games.durak.solver import DurakSolver, Position
from arena.match import play_match
from arena.registry import Registry
from bots.durak.agreement import measure_agreement
from bots.durak.perfect import PerfectBot, optimal_moves

PLUGINS = ("arena.games.durak.plugin", "bots.durak.plugin")


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry(PLUGINS, entry_points=False)


@pytest.mark.parametrize(
    "spec",
    ["durak-perfect", "durak-perfect:prefer=random", "durak-greedy", "durak-greedy:style=runs"],
)
def test_bots_play_legal_games(registry: Registry, spec: str) -> None:
    rng = random.Random(spec)
    for seed in range(6):
        deal = "".join(rng.choice("01") for _ in range(rng.randint(2, 14)))
        if "0" not in deal or "1" not in deal:
            continue
        weights = [rng.randint(-3, 3) for _ in deal] if seed % 2 else None
        game = registry.load_game("durak", {"cards": deal, "weights": weights})
        bots = [registry.make_bot(game, spec), registry.make_bot(game, "durak-greedy")]
        match = play_match(game, bots, seed=seed)
        assert match.outcome is not None
        assert match.outcome.termination is Termination.NORMAL


def test_perfect_bot_gets_the_solved_value() -> None:
    rng = random.Random(2)
    solver = DurakSolver()
    for seed in range(10):
        deal = "".join(rng.choice("01") for _ in range(12))
        if "0" not in deal or "1" not in deal:
            continue
        game = DurakGame(DurakSettings(deal))
        value = solver.value(Position(deal))
        match = play_match(game, [PerfectBot(solver=solver), PerfectBot(solver=solver)], seed=seed)
        assert match.outcome is not None and match.outcome.scores is not None
        assert match.outcome.scores[0] == int(value / 2)


def test_optimal_answers_to_a_laid_card() -> None:
    game = DurakGame(DurakSettings("0110001111"))
    state = game.check_move(game.initial_state(), game.parse_move("lay 4"))
    moves = [str(m) for m in optimal_moves(DurakSolver(), game, state)]
    assert moves == ["beat 7", "beat 8", "beat 9", "beat 10"]


def test_agreement_rate_is_measured() -> None:
    agreement = measure_agreement(cards=8, deals=10, seed=3)
    assert agreement.decisions > 0 and 0.5 < agreement.rate <= 1.0


def test_registry_lists_the_durak_bots(registry: Registry) -> None:
    names = [f.name for f in registry.bot_factories("durak")]
    assert names == ["durak-greedy", "durak-perfect"]
    assert registry.game_class("durak") is DurakGame
    game = registry.load_game("durak", {"cards": "0101"})
    assert game.to_act(game.initial_state()) != TERMINAL


def test_perfect_bot_gets_at_least_the_value_against_greedy() -> None:
    from bots.durak.greedy import GreedyBot

    solver = DurakSolver()
    rng = random.Random(4)
    for seed in range(16):
        deal = "".join(rng.choice("01") for _ in range(rng.randint(4, 12)))
        if "0" not in deal or "1" not in deal:
            continue
        weights = tuple(rng.randint(-3, 3) for _ in deal) if seed % 2 else None
        game = DurakGame(DurakSettings(deal, weights))
        position, _ = Position.from_hands(game.rules.hand(0), game.rules.hand(1), weights)
        value = solver.value(position)
        match = play_match(game, [PerfectBot(solver=solver), GreedyBot()], seed=seed)
        assert match.outcome is not None and match.outcome.scores is not None
        assert match.outcome.scores[0] >= int(value / 2)


def test_weighted_greedy_rules() -> None:
    from arena.games.durak.rules import DurakMove, MoveKind
    from bots.durak.greedy import greedy_move

    game = DurakGame(DurakSettings("0011", (1, 5, -2, 3)))
    state = game.initial_state()
    assert greedy_move(state, weights=game.rules.weights) == DurakMove(MoveKind.LAY, 2)
    laid = game.check_move(state, game.parse_move("lay 2"))
    # 5 + 3 > 0: beat with the heaviest higher card, 4.
    assert greedy_move(laid, weights=game.rules.weights) == DurakMove(MoveKind.BEAT, 4)
    laid = game.check_move(state, game.parse_move("lay 1"))
    # 1 + 3 > 0 with card 4 (heavier than 3).
    assert greedy_move(laid, weights=game.rules.weights) == DurakMove(MoveKind.BEAT, 4)
    light = DurakGame(DurakSettings("0011", (-4, 5, -2, 3)))
    laid = light.check_move(light.initial_state(), light.parse_move("lay 1"))
    assert greedy_move(laid, weights=light.rules.weights) == DurakMove(MoveKind.TAKE)
    agreement = measure_agreement(cards=8, deals=8, seed=2, weights=(-5, 5))
    assert agreement.decisions > 0 and agreement.rate > 0.4
