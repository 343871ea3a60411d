from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.errors import MalformedMove
from arena.games.substitution.movestring import MoveString

steps = st.lists(st.tuples(st.integers(-1, 10**6), st.integers(0, 10**6), st.integers(0, 10**6)), max_size=20)


@given(steps)
def test_round_trip(items):
    move = MoveString(tuple(items))
    assert MoveString.parse(str(move)) == move
    assert eval(repr(move), {"MoveString": MoveString}) == move


def test_thesis_layout():
    assert str(MoveString(((-1, 0, 1), (0, 3, 0)))) == "-1 0 1, 0 3 0"
    assert MoveString.parse("-1 0 1,0 3 0") == MoveString.parse(" -1 0 1 ,  0 3 0 ")
    assert MoveString.parse("") == MoveString.parse("  \t") == MoveString(())


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("0 1", "has 2 field(s)"),
        ("0 1 2 3", "has 4 field(s)"),
        ("0 1 2,", "step 1 is empty"),
        (",0 1 2", "step 0 is empty"),
        ("0 x 2", "group 'x' is not an integer"),
        ("0 1 +2", "production '+2' is not an integer"),
        ("0 1 2.0", "is not an integer"),
        ("0 1 1234567890", "more than 9 digits"),
        ("٣ 1 0", "not an integer"),
        ("0;1;2", "has 1 field(s)"),
    ],
)
def test_malformed_moves_say_why(text, reason):
    with pytest.raises(MalformedMove) as caught:
        MoveString.parse(text)
    assert reason in str(caught.value)


@given(st.text(max_size=60) | st.text(alphabet="0123456789- ,\t", max_size=40))
def test_any_text_parses_or_raises_malformed(text):
    """Text is read into exactly the numbers it holds, or refused naming the step."""
    try:
        move = MoveString.parse(text)
    except MalformedMove as error:
        assert str(error).startswith("step ")
        return
    assert [n for step in move.steps for n in step] == [int(n) for n in re.findall(r"-?[0-9]+", text)]
    assert MoveString.parse(str(move)) == move
