from __future__ import annotations

import pytest

from arena.bots import BotFactory, Param, parse_bot_list, parse_bot_spec
from arena.errors import BotSpecError


def test_spec_strings():
    assert str(parse_bot_spec("search:depth=4")) == "search:depth=4"
    spec = parse_bot_spec("adaptive-random:omega=10,finish=search")
    assert spec.params == (("omega", "10"), ("finish", "search"))
    assert parse_bot_spec("mixed:points=1,1,1,10").params == (("points", "1,1,1,10"),)
    assert parse_bot_spec("mixed:peaks").preset == "peaks"


def test_lists_split_on_known_names():
    specs = parse_bot_list("random,mixed:points=1,1,1,10,search:depth=1,random", ["random", "mixed", "search"])
    assert [str(s) for s in specs] == ["random", "mixed:points=1,1,1,10", "search:depth=1", "random"]


def test_typed_parameters_are_validated():
    factory = BotFactory(
        "x", "g", "test", create=lambda game, params: None,
        params=(Param("depth", "int", 4, "depth", minimum=0, maximum=8),
                Param("finish", "choice", "search", "finisher", choices=("search", "short-words")),
                Param("points", "ints", (1, 1), "points", minimum=0)),
    )
    assert parse_bot_spec("x:depth=2,points=3,4").resolve(factory) == {"depth": 2, "finish": "search", "points": (3, 4)}
    for bad, message in [("x:depth=9", "above the maximum"), ("x:depth=a", "not an integer"),
                         ("x:finish=foo", "not one of"), ("x:speed=1", "no parameter 'speed'"),
                         ("x:points=1,-1", "below the minimum"), ("x:nothing", "no preset")]:
        with pytest.raises(BotSpecError, match=message):
            parse_bot_spec(bad).resolve(factory)
    with pytest.raises(BotSpecError):
        parse_bot_spec("")
