from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.chance import ChanceSource
from arena.errors import MalformedMove, SettingsError
from arena.game import CHANCE, TERMINAL, Rejection
from arena.games.tiles import Choice, TilesGame, TilesMove
from arena.games.tiles.rules import ROLLS, move_options, parse_move
from arena.referee import Referee


def game(**settings: object) -> TilesGame:
    return TilesGame.from_settings(settings)


def rolled(g: TilesGame, roll: tuple[int, int], state=None):
    state = state if state is not None else g.initial_state()
    return g.apply_chance(state, roll)


def test_dice_are_a_chance_event_out_of_36() -> None:
    g = game()
    state = g.initial_state()
    assert g.to_act(state) == CHANCE
    outcomes = g.chance_outcomes(state)
    assert len(outcomes) == 21 and sum(w for _, w in outcomes) == 36
    assert g.to_act(rolled(g, (3, 5))) == 0
    assert g.type.chance and g.type.chance_name == "dice"


@pytest.mark.parametrize("bad", [(0, 3), (3, 7), "xy", 5, (1, 2, 3)])
def test_bad_rolls_are_value_errors(bad: object) -> None:
    with pytest.raises(ValueError):
        game().apply_chance(game().initial_state(), bad)


def test_pair_sum_and_double() -> None:
    g = game()
    after = g.check_move(rolled(g, (3, 5)), parse_move("pair"))
    assert g.state_to_json(after)["boards"] == [[1, 2, 4, 6, 7, 8, 9, 10, 11, 12]]
    after = g.check_move(rolled(g, (3, 5)), parse_move("sum"))
    assert g.state_to_json(after)["boards"] == [[1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12]]
    after = g.check_move(rolled(g, (4, 4)), parse_move("pair"))
    assert 4 not in g.state_to_json(after)["boards"][0]
    assert len(g.state_to_json(after)["boards"][0]) == 11
    assert g.check_move(rolled(g, (4, 4)), parse_move("4")) == after
    assert g.check_move(rolled(g, (3, 5)), parse_move("5 3")) == g.check_move(
        rolled(g, (3, 5)), parse_move("pair")
    )
    assert g.check_move(rolled(g, (3, 5)), parse_move("8")) == g.check_move(
        rolled(g, (3, 5)), parse_move("sum")
    )


def test_pass_only_when_stuck_unless_voluntary_skip_is_on() -> None:
    g = game(voluntary_skip=True)
    after = g.check_move(rolled(g, (1, 2)), parse_move("pass"))
    assert not isinstance(after, Rejection) and after.turns == (1,)
    strict = game()   # the seed's rules are the default, in the web lobby too
    assert strict.rules.voluntary_skip is False and strict.settings()["voluntary_skip"] is False
    assert TilesGame.web_lobby()["settings"]["voluntary_skip"] is False
    rejection = strict.check_move(rolled(strict, (1, 2)), parse_move("pass"))
    assert isinstance(rejection, Rejection) and rejection.code == "must-move"
    assert strict.legal_moves(rolled(strict, (1, 2))).moves == ("pair", "sum")
    stuck = strict.state_from_json({"boards": [[12]], "roll": [1, 2], "turns": [3]})
    assert strict.legal_moves(stuck).moves == ("pass",)
    assert not isinstance(strict.check_move(stuck, parse_move("pass")), Rejection)


def test_rejection_codes() -> None:
    g = game(tiles=6)
    state = g.state_from_json({"boards": [[1, 2, 5]], "roll": [2, 3], "turns": [0]})
    codes = {
        "pair": "tile-down",
        "3 2": "tile-down",
        "1 4": "wrong-tiles",
        "9": "no-such-tile",
    }
    for text, code in codes.items():
        verdict = Referee(g).check(state, text)
        assert verdict.rejection is not None and verdict.rejection.code == code, text
    assert Referee(g).check(g.initial_state(), "pair").rejection.code == "missing-dice"
    assert Referee(g).check(state, "flip").rejection.code == "malformed"
    assert Referee(g).check(state, "sum", player=1).rejection.code == "not-your-turn"


def test_finishing_wins_solo_and_race() -> None:
    g = game(tiles=2)
    after = g.check_move(rolled(g, (1, 2)), parse_move("pair"))
    assert g.to_act(after) == TERMINAL
    outcome = g.outcome(after)
    assert outcome is not None and outcome.winner == 0 and outcome.scores == (1,)
    race = game(tiles=2, players=2)
    state = race.check_move(rolled(race, (6, 6)), parse_move("pass"))
    assert state.to_move == 1
    state = race.check_move(rolled(race, (1, 2), state), parse_move("1 2"))
    outcome = race.outcome(state)
    assert outcome is not None and outcome.winner == 1 and outcome.scores == (2, 0)


def test_turn_cap_ends_a_stalled_game() -> None:
    g = game(tiles=3, players=2, max_turns=4)
    state = g.initial_state()
    while g.to_act(state) != TERMINAL:
        state = g.check_move(rolled(g, (6, 6), state), parse_move("pass"))
    outcome = g.outcome(state)
    assert outcome is not None and outcome.winner is None and sum(state.turns) == 4


@pytest.mark.parametrize("text", ["", "1 2 3", "3 3", "up", "1 x"])
def test_malformed_moves(text: str) -> None:
    with pytest.raises(MalformedMove):
        parse_move(text)


@given(
    st.one_of(
        st.sampled_from([TilesMove(c) for c in Choice]),
        st.builds(lambda t: TilesMove(None, (t,)), st.integers(1, 12)),
        st.builds(
            lambda a, b: TilesMove(None, tuple(sorted({a, b}))),
            st.integers(1, 12),
            st.integers(1, 12),
        ),
    )
)
def test_move_codec_round_trip(move: TilesMove) -> None:
    assert parse_move(str(move)) == move


@pytest.mark.parametrize(
    "bad",
    [
        {"tiles": 13},
        {"tiles": 0},
        {"players": 0},
        {"voluntary_skip": "no"},
        {"colour": 1},
        {"tiles": "12"},
    ],
)
def test_bad_settings(bad: dict[str, object]) -> None:
    with pytest.raises(SettingsError):
        TilesGame.from_settings(bad)


@pytest.mark.parametrize("players", [1, 2, 3])
def test_random_play_never_crashes(players: int) -> None:
    g = game(tiles=12, players=players, voluntary_skip=players != 2, max_turns=400)
    rng = random.Random(players)
    dice = ChanceSource(players)
    assert TilesGame.from_settings(g.settings()) == g
    for _ in range(5):
        state = g.initial_state()
        while g.to_act(state) != TERMINAL:
            if g.to_act(state) == CHANCE:
                state = g.apply_chance(state, dice.sample(g.chance_outcomes(state)))
                continue
            move = parse_move(rng.choice(g.legal_moves(state).moves))
            state = g.check_move(state, move)
            assert not isinstance(state, Rejection)
            assert g.state_from_json(g.state_to_json(state)) == state
        assert g.outcome(state) is not None


def test_move_options_match_the_rules() -> None:
    for (x, y), _ in ROLLS:
        options = move_options((1 << 12) - 1, (x, y))
        assert Choice.PAIR in options
        assert (Choice.SUM in options) == (x + y <= 12)


def test_bad_state_json() -> None:
    g = game(tiles=4)
    for data in ({}, {"boards": [[5]]}, {"boards": [[1], [2]]}, {"boards": [[1]], "roll": [0, 9]}):
        with pytest.raises(ValueError):
            g.state_from_json(data)
