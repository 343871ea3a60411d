"""HeapsGame through the game API, and the heap bots."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import MalformedMove, SettingsError
from arena.game import TERMINAL, Rejection, Termination
from arena.games.heaps import HeapMove, HeapRules, HeapsGame, HeapsState, Op
from arena.match import play_match
from arena.registry import Registry

SETTINGS = {"example": "49932", "target": 384, "start": [7, 10]}


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry(["arena.games.heaps.plugin", "bots.heaps.plugin"], entry_points=False)


def test_settings_round_trip() -> None:
    game = HeapsGame.from_settings(SETTINGS)
    assert HeapsGame.from_settings(game.settings()) == game
    declarative = HeapsGame.from_settings({"rules": game.rules.to_mapping(), "start": [7, 10]})
    assert declarative == game
    assert HeapsGame.from_settings(declarative.settings()) == game


def test_an_example_is_sent_with_its_rules() -> None:
    """A bot reads the rules from the settings; it needs no table of examples."""
    settings = HeapsGame.from_settings(SETTINGS).settings()
    assert settings["example"] == SETTINGS["example"]
    assert settings["rules"]["moves"] == {"larger": ["+5"], "smaller": ["*2"], "equal": ["+3"]}
    assert settings["rules"]["end"] == {"measure": "product", "at_least": settings["target"]}
    other = {**settings["rules"], "moves": {"any": ["+1"]}}
    with pytest.raises(SettingsError, match="differ from example"):
        HeapsGame.from_settings({**settings, "rules": other})


@pytest.mark.parametrize(
    "settings_, message",
    [({"start": [1, 2]}, "'rules' or 'example'"), ({**SETTINGS, "start": [1]}, "2 heap"),
     ({**SETTINGS, "start": [0, 5]}, ">= 1"), ({**SETTINGS, "start": [20, 20]}, "already reached"),
     ({**SETTINGS, "start": "7 10"}, "list"), ({**SETTINGS, "colour": 1}, "unknown settings"),
     ({**SETTINGS, "target": 0}, "positive"), ({**SETTINGS, "example": "x"}, "no built-in"),
     ({"rules": {"heaps": 3, "moves": {"any": ["+1"]}}, "start": [1]}, "1 or 2"),
     ({"rules": {"heaps": 1, "end": {"at_least": 9}, "moves": {"any": ["+0"]}}, "start": [1]}, "does not change"),
     ({"rules": {"heaps": 1, "end": {"at_least": 9}, "moves": {"any": ["^2"]}}, "start": [1]}, "cannot read"),
     ({"rules": {"heaps": 1, "end": {"at_least": 9, "measure": "min"}, "moves": {"any": ["+1"]}},
       "start": [1]}, "measure"),
     ({"rules": {"heaps": 1, "end": {"at_least": 9}, "moves": {"larger": ["+1"]}}, "start": [1]}, "one heap")],
)
def test_bad_settings(settings_: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(SettingsError, match=message):
        HeapsGame.from_settings(settings_)


def test_moves_follow_larger_smaller_equal() -> None:
    game = HeapsGame.from_settings(SETTINGS)
    assert game.legal_moves(game.initial_state()).moves == ("1 *2", "2 +5")
    equal = HeapsState((9, 9))
    assert game.legal_moves(equal).moves == ("1 +3", "2 +3")
    after = game.check_move(game.initial_state(), game.parse_move("2 +5"))
    assert after == HeapsState((7, 15), 1)


@pytest.mark.parametrize(
    "text, code",
    [("1 +5", "move-not-allowed"), ("2 *2", "move-not-allowed"), ("3 +5", "no-such-heap"),
     ("1 +3", "move-not-allowed")],
)
def test_rejections(text: str, code: str) -> None:
    game = HeapsGame.from_settings(SETTINGS)
    result = game.check_move(game.initial_state(), game.parse_move(text))
    assert isinstance(result, Rejection) and result.code == code


@pytest.mark.parametrize("text", ["", "+5", "1 5", "1 +", "a +5", "1 +5 2", "1 ^2"])
def test_malformed(text: str) -> None:
    with pytest.raises(MalformedMove):
        HeapsGame.from_settings(SETTINGS).parse_move(text)


def test_one_heap_moves_need_no_number() -> None:
    game = HeapsGame.from_settings(
        {"rules": {"heaps": 1, "end": {"at_least": 20}, "moves": {"any": ["+1", "*2"]}}, "start": [3]}
    )
    assert game.parse_move("*2") == game.parse_move(" 1 *2 ") == HeapMove(0, Op("*", 2))
    assert game.format_move(HeapMove(0, Op("*", 2))) == "*2"


def test_reaching_the_target_wins() -> None:
    game = HeapsGame.from_settings({**SETTINGS, "start": [19, 20]})
    state = game.check_move(game.initial_state(), game.parse_move("2 +5"))
    assert isinstance(state, HeapsState) and game.to_act(state) == TERMINAL
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == 0 and "reached 384" in outcome.detail
    assert game.check_move(state, game.parse_move("1 *2")).code == "game-over"  # type: ignore[union-attr]


@given(st.integers(1, 15), st.integers(1, 25), st.randoms(use_true_random=False))
@settings(max_examples=50, deadline=None)
def test_random_play_never_crashes(x: int, y: int, rnd: random.Random) -> None:
    if x * y >= 384:
        return
    game = HeapsGame.from_settings({**SETTINGS, "start": [x, y]})
    state = game.initial_state()
    while game.to_act(state) != TERMINAL:
        moves = game.legal_moves(state).moves
        move = game.parse_move(rnd.choice(moves))
        assert game.parse_move(game.format_move(move)) == move
        result = game.check_move(state, move)
        assert not isinstance(result, Rejection)
        state = result
        assert game.state_from_json(game.state_to_json(state)) == state
        game.render(state)
    assert game.outcome(state) is not None


def test_perfect_bot_wins_from_won_positions(registry: Registry) -> None:
    from arena.games.heaps import solve_heaps

    game = HeapsGame.from_settings(SETTINGS)
    solution = solve_heaps(game.rules).solution
    for start, expected_winner in [([7, 10], None), ([6, 9], 1), ([11, 13], 1), ([8, 10], 0)]:
        g = HeapsGame.from_settings({**SETTINGS, "start": start})
        colour = solution.colour_of(start)
        assert colour is not None
        winner = 0 if colour % 2 else 1
        if expected_winner is not None:
            assert winner == expected_winner
        for opponent in ("heaps-random", "heaps-perfect"):
            for seed in range(3):
                seats = ["heaps-perfect", opponent] if winner == 0 else [opponent, "heaps-perfect"]
                match = play_match(g, [registry.make_bot(g, s) for s in seats], seed=seed)
                assert match.outcome is not None and match.outcome.termination is Termination.NORMAL
                assert match.outcome.winner == winner
                if opponent == "heaps-perfect":  # both perfect: the game lasts exactly `colour` moves
                    assert len(match.turns) == colour


def test_rules_object_is_hashable_for_caching() -> None:
    rules = HeapRules.from_mapping({"heaps": 1, "end": {"at_least": 5}, "moves": {"any": ["+1"]}})
    assert hash(rules) == hash(HeapRules.from_mapping(rules.to_mapping()))


def test_repeating_positions_end_at_the_move_limit(registry: Registry) -> None:
    game = HeapsGame.from_settings(
        {"rules": {"heaps": 1, "end": {"at_least": 10}, "moves": {"any": ["+1", "-1"]}},
         "start": [3], "max_moves": 40}
    )
    bots = [registry.make_bot(game, "heaps-perfect"), registry.make_bot(game, "heaps-perfect")]
    match = play_match(game, bots, seed=1)
    assert match.outcome is not None and match.outcome.winner is None
    assert len(match.turns) == 40 and "40 moves" in match.outcome.detail
    with pytest.raises(SettingsError, match="max_moves"):
        HeapsGame.from_settings({**SETTINGS, "max_moves": 0})
