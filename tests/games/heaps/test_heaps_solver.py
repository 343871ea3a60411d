"""The heap solver: the seed's expected output for EGE 49932, brute force, rules files."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.errors import SettingsError
from arena.games.heaps import HeapRules, solve_heaps
from arena.games.heaps.examples import example_rules
from arena.games.heaps.files import load_rules_file

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "heaps"


def rules_49932(target: int = 384) -> HeapRules:
    return HeapRules.from_mapping(example_rules("49932"), target=target)


def test_49932_counts_per_step_match_the_seed() -> None:
    steps = solve_heaps(rules_49932()).solution.steps()
    counts = [len(steps[t]) for t in range(1, 7)]
    assert counts == [649, 64, 87, 69, 68, 52]  # "1 649 64 / 2 87 69 / 3 68 52"


@pytest.mark.parametrize(
    "key, first, last",
    [("19-any", [(11, 13), (10, 15), (11, 14)], [(1, 189), (1, 190), (1, 191)]),
     ("20", [(8, 10), (7, 11), (9, 10)], [(1, 184), (1, 185), (1, 186)]),
     ("21", [(6, 9), (7, 8), (5, 11)], [(1, 179), (1, 180), (1, 181)])],
)
def test_49932_answers_match_the_seed(key: str, first: list, last: list) -> None:  # type: ignore[type-arg]
    report = solve_heaps(rules_49932())
    answer = sorted(report.solution.answers()[key], key=sum)
    # the seed orders positions of equal sum by insertion; compare sums and membership
    assert [sum(p) for p in answer[:3]] == [sum(p) for p in first]
    assert answer[-3:] == last
    assert all(p in answer for p in first)
    assert set(answer[:2]) == set(first[:2])


def test_summary_lines_start_like_the_seed() -> None:
    lines = solve_heaps(rules_49932()).summary_lines()
    assert lines[:3] == ["1 649 64", "2 87 69", "3 68 52"]


def brute_colour(rules: HeapRules):  # type: ignore[no-untyped-def]
    """Colours by the definition (mutual recursion on the game tree), for a check."""

    @functools.cache
    def colour(p: tuple[int, ...]) -> int:
        p = tuple(sorted(p))
        children = [q for _, q in rules.moves(p)]
        if any(rules.is_over(q) for q in children):
            return 1
        cs = [colour(q) for q in children]
        losing = [c for c in cs if c % 2 == 0]
        if losing:
            return min(losing) + 1
        return max(cs) + 1

    return colour


@pytest.mark.parametrize(
    "data",
    [example_rules("49932"),
     {"heaps": 1, "end": {"measure": "sum", "at_least": 77}, "moves": {"any": ["+1", "+4", "*3"]}},
     {"heaps": 2, "end": {"measure": "sum", "at_least": 60}, "moves": {"any": ["+1", "*2"]}},
     {"heaps": 2, "end": {"measure": "max", "at_least": 40}, "moves": {"larger": ["+1"], "smaller": ["*3"]}}],
)
def test_colouring_matches_the_definition(data: dict) -> None:  # type: ignore[type-arg]
    rules = HeapRules.from_mapping(data, target=None if data is not example_rules("49932") else 200)
    solution = solve_heaps(rules).solution
    colour = brute_colour(rules)
    assert not solution.draws
    for position, c in solution.colour.items():
        assert colour(position) == c, position


def test_draws_with_cycles() -> None:
    rules = HeapRules.from_mapping(
        {"heaps": 1, "end": {"measure": "sum", "at_least": 10}, "moves": {"any": ["+1", "-1"]}}
    )
    solution = solve_heaps(rules).solution
    # from 9 one reaches 10; below, either player can step back down for ever
    assert solution.colour_of((9,)) == 1
    assert solution.draws == tuple((k,) for k in range(1, 9))
    forced = HeapRules.from_mapping(
        {"heaps": 1, "end": {"measure": "sum", "at_least": 10}, "moves": {"any": ["+1"]}, "min_heap": 8}
    )
    # from 8 the only move (to 9) lets the opponent win
    assert solve_heaps(forced).solution.colour == {(9,): 1, (8,): 2}


def test_python_and_toml_rules_files_agree() -> None:
    base = solve_heaps(rules_49932()).solution.colour
    assert solve_heaps(load_rules_file(EXAMPLES / "49932.py")).solution.colour == base
    assert solve_heaps(load_rules_file(EXAMPLES / "49932.toml")).solution.colour == base
    other = solve_heaps(load_rules_file(EXAMPLES / "49932.toml", target=500)).solution.colour
    assert other == solve_heaps(rules_49932(500)).solution.colour


def test_bad_rules_files(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text("x")
    (tmp_path / "bad.toml").write_text("heaps = [")
    (tmp_path / "nofunc.py").write_text("TARGET = 5\n")
    (tmp_path / "boom.py").write_text("raise RuntimeError('no')\n")
    for name, message in [("r.yaml", "end in"), ("bad.toml", "not valid TOML"),
                          ("nofunc.py", "is_over"), ("boom.py", "failed to load"),
                          ("missing.toml", "cannot read")]:
        with pytest.raises(SettingsError, match=message):
            load_rules_file(tmp_path / name)


def test_cli_example_json() -> None:
    from arena.cli import main

    result = CliRunner().invoke(main, ["solve", "heaps", "--example", "49932", "--target", "384", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    steps = {s["step"]: s for s in data["steps"]}
    assert [steps[t]["count"] for t in range(1, 7)] == [649, 64, 87, 69, 68, 52]
    assert steps[2]["positions"] == sorted(steps[2]["positions"])
    assert len(steps[2]["positions"]) == 64
    assert data["answers"]["21"]["count"] == 69  # colour 4: "2 87 69"


def test_cli_rules_file_and_errors() -> None:
    from arena.cli import main

    runner = CliRunner()
    ok = runner.invoke(main, ["solve", "heaps", "--rules", str(EXAMPLES / "49932.py")])
    assert ok.exit_code == 0 and ok.output.startswith("1 649 64")
    both = runner.invoke(main, ["solve", "heaps"])
    assert both.exit_code != 0 and "either" in both.output
    unknown = runner.invoke(main, ["solve", "heaps", "--example", "1"])
    assert unknown.exit_code != 0 and "no built-in example" in unknown.output


def test_target_ten_thousand_is_fast() -> None:
    report = solve_heaps(rules_49932(10_000))
    assert report.solution.seconds < 3  # about 0.4 s alone; slack for a shared machine
    assert report.positions > 40_000


@pytest.mark.parametrize(
    "data, target",
    [(example_rules("49932"), 384), (example_rules("49932"), 2000),
     ({"heaps": 1, "end": {"measure": "sum", "at_least": 1}, "moves": {"any": ["+1", "+4", "*3"]}}, 300),
     ({"heaps": 2, "end": {"measure": "sum", "at_least": 1}, "moves": {"any": ["+1", "*2"]}}, 80),
     ({"heaps": 2, "end": {"measure": "max", "at_least": 1},
       "moves": {"larger": ["+2"], "smaller": ["*3"]}}, 60)],
)
def test_increasing_fast_path_matches_the_general_pass(data: dict, target: int) -> None:  # type: ignore[type-arg]
    rules = HeapRules.from_mapping(data, target=target)
    assert rules.increasing
    fast = solve_heaps(rules).solution
    general = solve_heaps(rules, starts=list(rules.start_positions())).solution
    assert fast.colour == general.colour
    assert fast.task19_some == general.task19_some
    assert fast.draws == general.draws == ()


def test_errors_in_python_rules_are_reported(tmp_path: Path) -> None:
    base = "TARGET = 10\ndef is_over(p, n):\n    return p[0] >= n\n"
    cases = {
        "raises.py": base + "def next_positions(p, n):\n    return [(p[0] // 0,)]\n"
                     "def start_positions(n):\n    return [(1,)]\n",
        "none.py": base + "def next_positions(p, n):\n    return None\n"
                   "def start_positions(n):\n    return [(1,)]\n",
        "junk.py": base + "def next_positions(p, n):\n    return ['x']\n"
                   "def start_positions(n):\n    return [(1,)]\n",
        "endless.py": "TARGET = 10\ndef is_over(p, n):\n    return False\n"
                      "def next_positions(p, n):\n    return [(p[0] + 1,)]\n"
                      "def start_positions(n):\n    return [(1,)]\n",
    }
    messages = {"raises.py": "ZeroDivisionError", "none.py": "not a list", "junk.py": "not a position",
                "endless.py": "more than 1000 positions"}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(SettingsError, match=messages[name]):
            solve_heaps(load_rules_file(tmp_path / name), max_positions=1000)
