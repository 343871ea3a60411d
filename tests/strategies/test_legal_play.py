"""Every strategy plays only legal moves, reproducibly, on the presets and on random grammars."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.game import Termination
from arena.games.substitution import PRESETS, Settings, SubstitutionGame, random_turn
from arena.match import play_match
from arena.registry import default_registry
from bots.substitution.search import SearchBot
from bots.substitution.weighted import WeightedRandomBot
from tests.substitution.strategies import games

SPECS = (
    "random", "smart-random", "better-smart-random", "inversed-smart-random", "improved-random",
    "stupid-short-words", "short-words", "search:depth=1", "search:depth=4",
    "adaptive-random:omega=10", "adaptive-random:omega=3,finish=short-words", "mixed:equal",
    "mixed:points=0,1,0,1", "deep-search", "deep-search:depth=3,omega=0,alpha=1",
)


def every_spec() -> list[str]:
    names = {f.name for f in default_registry().bot_factories("substitution")}
    return [s for s in SPECS if s.split(":")[0] in names]


def play(game, first, second, seed):
    registry = default_registry()
    bots = [registry.make_bot(game, first), registry.make_bot(game, second)]
    match = play_match(game, bots, seed=seed, names=[first, second])
    assert match.outcome is not None
    assert match.outcome.termination is Termination.NORMAL, match.outcome.detail
    return match


def test_every_thesis_strategy_is_registered():
    names = {f.name for f in default_registry().bot_factories("substitution")}
    assert {s.split(":")[0] for s in SPECS if not s.startswith("deep")} <= names


@pytest.mark.parametrize("grammar", sorted(PRESETS))
def test_legal_on_presets(grammar):
    game = SubstitutionGame(Settings.preset(grammar, moves=40))
    specs = every_spec()
    for i, spec in enumerate(specs):
        play(game, spec, specs[(i + 3) % len(specs)], seed=i)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games(max_moves=10), seed=st.integers(0, 2**16))
def test_legal_on_random_grammars(game, seed):
    specs = every_spec()
    for i in range(0, len(specs), 2):
        play(game, specs[i], specs[(i + 1) % len(specs)], seed)


@pytest.mark.parametrize("spec", SPECS)
def test_reproducible_from_the_seed(spec):
    if spec not in every_spec():
        pytest.skip("not registered")
    game = SubstitutionGame(Settings.preset("low", moves=30))
    a = play(game, spec, "random", seed=7).record()
    b = play(game, spec, "random", seed=7).record()
    assert [t.move for t in a.turns] == [t.move for t in b.turns]


def test_weighted_random_with_equal_weights_is_the_compiled_random_turn():
    game = SubstitutionGame(Settings.preset("classic", moves=60))
    bot = WeightedRandomBot(game, "random")
    match = play(game, "random", "short-words", seed=3)
    state = game.initial_state()
    for turn in match.record().turns:
        state = state.with_roll(turn.chance)
        rng_a, rng_b = random.Random(turn.turn), random.Random(turn.turn)
        assert bot.choose_move(game, state, rng_a).steps == random_turn(game.compiled, state, rng_b.random)
        state = game.check_move(state, game.parse_move(turn.move))


def _states(game, seed, first="adaptive-random", second="search:depth=2"):
    match = play(game, first, second, seed)
    state = game.initial_state()
    for turn in match.record().turns:
        state = state.with_roll(turn.chance)
        yield state
        state = game.check_move(state, game.parse_move(turn.move))


@pytest.mark.parametrize("grammar", ["classic", "low-s"])
def test_memoised_search_picks_the_moves_of_the_plain_recursion(grammar):
    game = SubstitutionGame(Settings.preset(grammar, moves=60))
    for depth in (1, 3, 4):
        fast, plain = SearchBot(game, depth), SearchBot(game, depth, memo=False)
        for state in _states(game, seed=depth):
            rng = random.Random(0)
            assert fast.choose_move(game, state, rng) == plain.choose_move(game, state, rng)


@settings(max_examples=20, deadline=None)
@given(game=games(max_moves=8), seed=st.integers(0, 1000))
def test_memoised_search_equals_plain_on_random_grammars(game, seed):
    fast, plain = SearchBot(game, 3), SearchBot(game, 3, memo=False)
    for state in _states(game, seed, "random", "random"):
        rng = random.Random(0)
        assert fast.choose_move(game, state, rng) == plain.choose_move(game, state, rng)
