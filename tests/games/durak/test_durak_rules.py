from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from arena.errors import MalformedMove, SettingsError
from arena.game import TERMINAL, Rejection
from arena.games.durak import DurakGame, DurakMove, MoveKind
from arena.games.durak.rules import parse_move
from arena.referee import Referee


def game(deal: str, **kw: object) -> DurakGame:
    return DurakGame.from_settings({"cards": deal, **kw})


def play(g: DurakGame, *moves: str):
    state = g.initial_state()
    for text in moves:
        result = g.check_move(state, g.parse_move(text))
        assert not isinstance(result, Rejection), result
        state = result
    return state


def test_lay_and_beat_together_is_a_win_with_zero_in_durak() -> None:
    g = game("01")
    state = play(g, "lay 1", "beat 2")
    assert g.to_act(state) == TERMINAL
    outcome = g.outcome(state)
    assert outcome is not None and outcome.winner == 0 and outcome.scores == (0, 0)


def test_running_out_together_is_a_draw_in_d_durak() -> None:
    g = game("01", draw_rule=True)
    outcome = g.outcome(play(g, "lay 1", "beat 2"))
    assert outcome is not None and outcome.winner is None and outcome.result == "draw"


def test_take_keeps_the_attacker_and_laying_the_last_card_wins() -> None:
    g = game("0011")
    state = play(g, "lay 1", "take")
    assert state.attacker == 0 and state.hands[1] == {1, 3, 4}
    state = play(g, "lay 1", "take", "lay 2", "take")
    outcome = g.outcome(state)
    assert outcome is not None and outcome.winner == 0 and outcome.scores == (4, -4)


def test_beat_passes_the_lead_and_the_beater_can_win() -> None:
    g = game("0101")
    state = play(g, "lay 1", "beat 2")
    assert state.attacker == 1 and state.hands == (frozenset({3}), frozenset({4}))
    state = play(g, "lay 1", "beat 2", "lay 4")
    assert g.legal_moves(state).moves == ("take",)
    outcome = g.outcome(play(g, "lay 1", "beat 2", "lay 4", "take"))
    assert outcome is not None and outcome.winner == 1 and outcome.scores == (-2, 2)


def test_defender_running_out_by_beating_wins() -> None:
    g = game("001")
    outcome = g.outcome(play(g, "lay 1", "beat 3"))
    assert outcome is not None and outcome.winner == 1 and outcome.scores == (-1, 1)


def test_weights_negative_sum_makes_the_other_player_win() -> None:
    g = game("0011", weights=[1, 1, -5, 1])
    outcome = g.outcome(
        play(
            g,
            "lay 1",
            "beat 3",
            "lay 4",
            "take",
        )
    )
    # player 1 laid 4 (its last card) and player 0 took it: player 1 ran out, player 0
    # holds 2 and 4 with weight 2 >= 0, so player 1 wins with score 2.
    assert outcome is not None and outcome.winner == 1 and outcome.scores == (-2, 2)
    g = game("01", weights=[3, -2])
    outcome = g.outcome(play(g, "lay 1", "take"))
    assert outcome is not None and outcome.winner == 0 and outcome.scores == (1, -1)
    g = game("01", weights=[-3, 2])
    outcome = g.outcome(play(g, "lay 1", "take"))
    assert outcome is not None and outcome.winner == 1 and outcome.scores == (-1, 1)


def test_weighted_zero_is_draw_only_with_the_draw_rule() -> None:
    for draw_rule, winner in ((False, 0), (True, None)):
        g = game("01", weights=[2, -2], draw_rule=draw_rule)
        outcome = g.outcome(play(g, "lay 1", "take"))
        assert outcome is not None and outcome.winner == winner


def test_first_player_setting() -> None:
    g = game("0110", first=1)
    assert g.to_act(g.initial_state()) == 1
    assert g.legal_moves(g.initial_state()).moves == ("lay 2", "lay 3")


@pytest.mark.parametrize(
    ("moves", "move", "code"),
    [
        ((), "take", "nothing-to-answer"),
        ((), "beat 2", "nothing-to-answer"),
        ((), "lay 2", "not-your-card"),
        ((), "lay 9", "no-such-card"),
        ((), "lay 0", "no-such-card"),
        (("lay 1",), "lay 4", "must-answer"),
        (("lay 4",), "beat 3", "too-low"),
        (("lay 1",), "beat 4", "not-your-card"),
        (("lay 1", "beat 2", "lay 3", "take", "lay 5", "take"), "take", "game-over"),
    ],
)
def test_rejection_codes(moves: tuple[str, ...], move: str, code: str) -> None:
    g = game("01100")
    state = play(g, *moves) if code != "game-over" else _finished(g)
    verdict = Referee(g).check(state, move)
    assert verdict.rejection is not None and verdict.rejection.code == code, verdict


def _finished(g: DurakGame):
    state = g.initial_state()
    rng = random.Random(0)
    while g.to_act(state) != TERMINAL:
        state = g.check_move(state, g.parse_move(rng.choice(g.legal_moves(state).moves)))
    return state


def test_referee_reports_malformed_and_wrong_seat() -> None:
    g = game("0110")
    referee = Referee(g)
    assert referee.check(g.initial_state(), "lay seven").rejection.code == "malformed"
    assert referee.check(g.initial_state(), "lay 1", player=1).rejection.code == "not-your-turn"


@pytest.mark.parametrize("text", ["", "  ", "lay", "lay 1 2", "take 3", "beat", "hit 3", "lay x"])
def test_malformed_moves(text: str) -> None:
    with pytest.raises(MalformedMove):
        parse_move(text)


def test_move_parsing_is_forgiving_about_case_and_space() -> None:
    assert parse_move("  LAY   7 ") == DurakMove(MoveKind.LAY, 7)
    assert parse_move("Take") == DurakMove(MoveKind.TAKE)
    assert repr(DurakMove(MoveKind.BEAT, 9)) == "DurakMove.parse('beat 9')"


@given(st.sampled_from(list(MoveKind)), st.integers(1, 62))
def test_move_codec_round_trip(kind: MoveKind, card: int) -> None:
    move = DurakMove(kind, None if kind is MoveKind.TAKE else card)
    assert parse_move(str(move)) == move


@pytest.mark.parametrize(
    "bad",
    [
        {"cards": "0120"},
        {"cards": "0000"},
        {"cards": ""},
        {"cards": "01", "weights": [1]},
        {"cards": "01", "weights": [1, "x"]},
        {"cards": "01", "weights": "1,a"},
        {"cards": "01", "first": 2},
        {"cards": "01", "draw_rule": "yes"},
        {"cards": "01", "colour": 1},
        {},
        {"cards": "01" * 32},
        {"cards": "01" * 17, "weights": [1] * 34},
    ],
)
def test_bad_settings(bad: dict[str, object]) -> None:
    with pytest.raises(SettingsError):
        DurakGame.from_settings(bad)


def test_settings_round_trip() -> None:
    g = game("0110", weights=[1, -2, 3, 4], draw_rule=True, first=1)
    assert DurakGame.from_settings(g.settings()) == g


@hsettings(max_examples=60, deadline=None)
@given(
    st.text(alphabet="01", min_size=2, max_size=14).filter(lambda s: "0" in s and "1" in s),
    st.booleans(),
    st.integers(0, 2**32),
)
def test_random_play_never_crashes(deal: str, draw_rule: bool, seed: int) -> None:
    g = game(deal, draw_rule=draw_rule)
    rng = random.Random(seed)
    state = g.initial_state()
    total = len(deal)
    while g.to_act(state) != TERMINAL:
        legal = g.legal_moves(state).moves
        assert legal
        state = g.check_move(state, g.parse_move(rng.choice(legal)))
        assert not isinstance(state, Rejection)
        assert g.state_from_json(g.state_to_json(state)) == state
        in_play = len(state.hands[0]) + len(state.hands[1]) + (state.table is not None)
        assert in_play <= total
    outcome = g.outcome(state)
    assert outcome is not None and outcome.scores is not None
    assert sum(outcome.scores) == 0


def test_bad_state_json_is_a_value_error() -> None:
    g = game("0110")
    for data in ({}, {"hands": [[1, 1], [2]], "attacker": 0}, {"hands": [[9], []], "attacker": 0}):
        with pytest.raises(ValueError):
            g.state_from_json(data)


def test_cards_given_as_a_number_are_refused_clearly() -> None:
    """10 would silently become the deal "10" (one card each): say what 'cards' is."""
    with pytest.raises(SettingsError, match=r"'cards' must be the deal as a string of 0s and 1s.*"
                                            r"not an integer 10"):
        DurakGame.from_settings({"cards": 10})
