"""Sim's rules through the game API: settings, move codec, judging, ends, JSON."""

from __future__ import annotations

import random
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import MalformedMove, SettingsError
from arena.game import TERMINAL, Rejection
from arena.games.sim import SimGame, SimMove, SimPosition, geometry
from arena.referee import Referee


def play(game: SimGame, moves: list[str]) -> SimPosition:
    state = game.initial_state()
    for text in moves:
        result = game.check_move(state, game.parse_move(text))
        assert not isinstance(result, Rejection), (text, result)
        state = result
    return state


@pytest.mark.parametrize("n", range(3, 9))
def test_geometry_counts(n: int) -> None:
    geo = geometry(n)
    assert geo.num_edges == comb(n, 2)
    assert len(geo.triangles) == comb(n, 3)
    assert all(len(pairs) == n - 2 for pairs in geo.closing_pairs)


@pytest.mark.parametrize("bad", [2, 9, 0, -1, "6", 6.0, True, None])
def test_bad_vertices_are_settings_errors(bad: object) -> None:
    with pytest.raises(SettingsError, match="vertices"):
        SimGame.from_settings({"vertices": bad})


def test_settings_round_trip_and_unknown_key() -> None:
    game = SimGame.from_settings({"vertices": 5})
    assert SimGame.from_settings(game.settings()) == game
    assert SimGame.from_settings({}).vertices == 6
    with pytest.raises(SettingsError, match="unknown settings"):
        SimGame.from_settings({"vertices": 6, "colour": "red"})


@pytest.mark.parametrize(
    "text, expected",
    [("0 3", SimMove(0, 3)), ("3 0", SimMove(0, 3)), ("  2   5 \n", SimMove(2, 5)),
     ("4\t1", SimMove(1, 4))],
)
def test_parse_move_tolerates_order_and_spaces(text: str, expected: SimMove) -> None:
    assert SimGame().parse_move(text) == expected


@pytest.mark.parametrize("text", ["", "0", "0 1 2", "a b", "0,1", "0-1", "1.0 2", "01x 2"])
def test_malformed_moves(text: str) -> None:
    with pytest.raises(MalformedMove, match="Sim move"):
        SimGame().parse_move(text)


@pytest.mark.parametrize(
    "moves, text, code",
    [([], "2 2", "same-vertex"), ([], "0 6", "vertex-out-of-range"),
     ([], "-1 3", "vertex-out-of-range"), (["0 1"], "1 0", "edge-taken"),
     (["0 1", "2 3"], "3 2", "edge-taken")],
)
def test_rejections_have_stable_codes(moves: list[str], text: str, code: str) -> None:
    game = SimGame()
    state = play(game, moves)
    result = game.check_move(state, game.parse_move(text))
    assert isinstance(result, Rejection) and result.code == code
    assert Referee(game).check(state, text).rejection == result


def test_referee_reports_malformed_and_turn() -> None:
    game = SimGame()
    referee = Referee(game)
    assert referee.check(game.initial_state(), "x").rejection.code == "malformed"  # type: ignore[union-attr]
    assert referee.check(game.initial_state(), "0 1", player=1).rejection.code == "not-your-turn"  # type: ignore[union-attr]


def test_own_triangle_loses() -> None:
    game = SimGame()
    # red: 0-1, 1-2, then 0-2 closes red's triangle; green plays elsewhere
    state = play(game, ["0 1", "3 4", "1 2", "3 5", "2 0"])
    assert game.to_act(state) == TERMINAL
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == 1 and outcome.result == "second"
    assert "0-1-2" in outcome.detail
    assert game.facts(state) == {"triangle": [0, 1, 2]}
    assert game.check_move(state, SimMove(4, 5)) == Rejection("game-over", "the game is already over")


def test_other_colour_does_not_count() -> None:
    game = SimGame()
    state = play(game, ["0 1", "1 2", "0 2"])  # red, green, red: mixed triangle
    assert game.to_act(state) == 1 and game.outcome(state) is None


def test_draw_on_k5() -> None:
    game = SimGame(5)
    red = ["0 1", "1 2", "2 3", "3 4", "0 4"]  # the pentagon
    green = ["0 2", "0 3", "1 3", "1 4", "2 4"]  # the pentagram
    state = play(game, [m for pair in zip(red, green) for m in pair])
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner is None and outcome.result == "draw"
    assert game.legal_moves(state).moves == ()


def test_legal_moves_and_limit() -> None:
    game = SimGame(4)
    state = play(game, ["0 1"])
    assert game.legal_moves(state).moves == ("0 2", "0 3", "1 2", "1 3", "2 3")
    cut = game.legal_moves(state, limit=2)
    assert cut.moves == ("0 2", "0 3") and not cut.complete


@given(st.integers(3, 8), st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_random_play_never_crashes(n: int, rnd: random.Random) -> None:
    game = SimGame(n)
    state = game.initial_state()
    while game.to_act(state) != TERMINAL:
        assert game.to_act(state) == state.moves_made % 2
        legal = game.legal_moves(state).moves
        text = rnd.choice(legal) if rnd.random() < 0.9 else rnd.choice(["0 0", "9 1", "x", "0 1"])
        try:
            move = game.parse_move(text)
        except MalformedMove:
            continue
        result = game.check_move(state, move)
        if text in legal:
            assert not isinstance(result, Rejection)
        if isinstance(result, Rejection):
            continue
        state = result
        assert game.state_from_json(game.state_to_json(state)) == state
        game.render(state)
    assert game.outcome(state) is not None


@given(st.integers(3, 8), st.data())
def test_move_codec_round_trip(n: int, data: st.DataObject) -> None:
    game = SimGame(n)
    a = data.draw(st.integers(0, n - 1))
    b = data.draw(st.integers(0, n - 1).filter(lambda v: v != a))
    move = game.parse_move(f"{a} {b}")
    assert game.parse_move(game.format_move(move)) == move
    assert game.edge_move(game.move_edge(move)) == move


@pytest.mark.parametrize(
    "data",
    [{"vertices": 5, "red": [], "green": []}, {"vertices": 6, "red": [[0, 0]], "green": []},
     {"vertices": 6, "red": [[0, 1]], "green": [[0, 1]]},
     {"vertices": 6, "red": [], "green": [[0, 1]]},
     {"vertices": 6, "red": [[0, 7]], "green": []}, {"vertices": 6, "red": ["01"], "green": []}],
)
def test_state_from_json_rejects_bad_data(data: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(ValueError):
        SimGame(6).state_from_json(data)
