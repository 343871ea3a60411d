"""`arena match A B`: game pairs until the pentanomial SPRT decides."""

from __future__ import annotations

import json

from click.testing import CliRunner

from arena.cli import main
from arena.games.substitution import Settings
from arena.record import read_jsonl
from arena.tournament import iter_game_logs
from arena.tournament.matchup import MatchSpec, run_match
from arena.tournament.stats import SPRT

GAME = ["--grammar", "classic", "--moves", "20", "--seed", "3"]
SIM = ["--game", "sim", "--settings", '{"vertices": 6}', "--seed", "1"]
SPRT_50 = "elo0=0,elo1=50,alpha=0.05,beta=0.05"


def match(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["match", *args], catch_exceptions=False)
    return result.exit_code, result.output


def test_a_stronger_bot_is_accepted_with_the_fields_the_issue_names(tmp_path):
    code, output = match("sim-perfect", "sim-random", *SIM, "--sprt", SPRT_50,
                         "--jobs", "2", "--json", str(tmp_path / "m.json"))
    assert code == 0, output
    assert "H1 accepted" in output and "ptnml(0-2) [" in output and "LLR " in output
    data = json.loads((tmp_path / "m.json").read_text())
    assert {"pentanomial", "llr", "lower_bound", "upper_bound", "decision", "elo",
            "elo_ci"} <= set(data)
    assert data["decision"] == "H1" and data["llr"] >= data["upper_bound"] == 2.9444
    assert data["lower_bound"] == -2.9444
    assert len(data["pentanomial"]) == 5 and sum(data["pentanomial"]) * 2 == data["games"]
    low, high = data["elo_ci"]
    assert data["elo"] > 200 and low < data["elo"]
    assert high is None or high > data["elo"]  # None: the interval reaches a score of 1
    # the same decision after the same number of games with one process
    code, _ = match("sim-perfect", "sim-random", *SIM, "--sprt", SPRT_50,
                    "--jobs", "1", "--json", str(tmp_path / "one.json"))
    assert code == 0 and json.loads((tmp_path / "one.json").read_text()) == data


def test_a_weaker_bot_is_rejected():
    code, output = match("sim-random", "sim-mc:trials=20", *SIM, "--sprt", SPRT_50, "--jobs", "1")
    assert code == 0 and "H0 accepted" in output


def test_the_match_stops_at_the_first_pair_that_crosses_a_bound(tmp_path):
    sprt = SPRT(0, 50)
    spec = MatchSpec("substitution", Settings.preset("classic", 20).to_json(),
                     ("search:depth=4", "search:depth=1"), seed=3, sprt=sprt)
    result = run_match(spec, out=tmp_path, processes=2)
    assert result.decision is not None
    logs = dict(iter_game_logs(tmp_path))
    assert len(logs) == 2 * result.pairs  # only the games counted are kept
    counts = [0] * 5
    for i in range(result.pairs):
        a_first = read_jsonl(logs[f"0-1-{i}"].splitlines()).outcome
        a_second = read_jsonl(logs[f"1-0-{i}"].splitlines()).outcome
        assert a_first is not None and a_second is not None
        points = sum(0.5 if o.winner is None else float(o.winner == seat)
                     for o, seat in ((a_first, 0), (a_second, 1)))
        counts[int(2 * points)] += 1
        llr = sprt.llr(counts)
        if i < result.pairs - 1:
            assert sprt.decision(llr) is None, f"the test had decided at pair {i}"
    assert counts == result.pentanomial
    assert sprt.decision(sprt.llr(counts)) == result.decision
    assert json.loads((tmp_path / "match.json").read_text())["pairs"] == result.pairs


def test_the_game_limit_ends_an_undecided_match(tmp_path):
    code, output = match("random", "smart-random", *GAME, "--sprt", "elo0=-1,elo1=1",
                         "--max-games", "20", "--jobs", "1", "--json", str(tmp_path / "m.json"))
    assert code == 0 and "no decision" in output
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["decision"] == "none" and data["games"] == 20


def test_a_fixed_length_match_without_sprt(tmp_path):
    code, output = match("sim-perfect", "sim-random", "--game", "sim", "--settings",
                         '{"vertices": 5}', "--games", "6", "--jobs", "1",
                         "--json", str(tmp_path / "m.json"))
    assert code == 0, output
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["games"] == 12 and data["llr"] is None and data["decision"] == "none"
    assert data["losses"] == 0  # the perfect player never loses


def test_bad_options_are_clear_errors():
    code, output = match("random", "random", "--sprt", "elo0=5,elo1=1")
    assert code == 2 and "elo0 (5) must be below elo1 (1)" in output
    code, output = match("random", "random", "--max-games", "10")
    assert code == 2 and "--max-games is for --sprt" in output
    code, output = match("random", "nosuchbot")
    assert code == 2 and "unknown substitution bot 'nosuchbot'" in output
