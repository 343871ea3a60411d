"""The thesis experiment end to end on tiny settings."""

from __future__ import annotations

import json

import pytest

from arena.games.substitution import preset
from arena.tournament.experiments import run_thesis, trap_of


def test_trap_grammar_adds_a_useless_t_to_the_s_groups():
    trap = trap_of(preset("medium"))
    assert trap == preset("trap")


def test_thesis_experiment_writes_every_table_and_the_figure(tmp_path):
    path = run_thesis(tmp_path, games=1, moves=5, reports=("second",), processes=2, logs=False)
    text = path.read_text(encoding="utf-8")
    for title in ("Table 6.1", "Table 6.2", "Table 6.3", "Table A.1", "Table A.2", "Figure 9"):
        assert title in text
    assert (tmp_path / "second" / "figure-9.png").stat().st_size > 1000
    summary = json.loads((tmp_path / "second" / "summary.json").read_text())
    assert len(summary["figure-9"]["search"]) == 20
    # a second run reuses the finished tables
    assert run_thesis(tmp_path, games=1, moves=5, reports=("second",), processes=1, logs=False) == path


def test_omegas_option_reads_ranges_and_lists():
    from arena.tournament.experiments import parse_omegas

    assert parse_omegas("1-60") == tuple(range(1, 61))
    assert parse_omegas("1,5,10-12,5") == (1, 5, 10, 11, 12)
    assert parse_omegas("1-20,25-60/5") == (*range(1, 21), 25, 30, 35, 40, 45, 50, 55, 60)
    for bad in ("0-5", "5-1", "x", "1-2-3", "1-9/0", "1-9/x"):
        with pytest.raises(ValueError):
            parse_omegas(bad)


def test_program_rule_report_sets_both_rules_side_by_side(tmp_path):
    strict_dir = tmp_path / "strict-run"
    run_thesis(strict_dir, games=1, moves=5, reports=("second",), processes=1, logs=False,
               omegas=(1, 2, 21))
    out = tmp_path / "program"
    path = run_thesis(out, games=1, moves=5, reports=("second",), processes=1, logs=False,
                      rules="thesis-program", omegas=(1, 2, 21), strict_from=strict_dir)
    text = path.read_text(encoding="utf-8")
    for title in ("Table 6.1", "Table 6.2", "Table 6.3", "Table A.1", "Table A.2", "Figure 9"):
        assert title in text
    assert "win rate, strict (95% CI) | win rate, program (95% CI)" in text
    assert "The program's rule, its strategies as written" in text
    assert "turns skipping a bank group, `medium`" in text
    # every conclusion of the thesis, judged under both rules (tests/tournament/test_thesis_claims)
    assert "### The thesis's conclusions under each rule" in text
    assert "| strict rules | the program's rule | depends on the rule |" in text
    assert "Hold only under the program's rule: " in text
    assert (out / "second-figure-9-rules.png").stat().st_size > 1000
    # the strict tables came from the earlier run, not played again
    assert not (out / "strict" / "second" / "table-6.1").exists()
    program = json.loads((out / "thesis-program" / "second" / "table-6.1" / "tournament.json").read_text())
    assert program["settings"]["bank_rule"] == "thesis-program"
    assert all(bot.startswith("thesis-") for bot in program["bots"])
    # figure 9 in blocks: 1-2 and 21 are cached apart
    assert (out / "thesis-program" / "second" / "figure-9-search-omega-1-21").is_dir()
    summary = json.loads((out / "thesis-program" / "second" / "summary.json").read_text())
    assert summary["figure-9-omegas"] == [1, 2, 21] and len(summary["figure-9"]["search"]) == 3


def test_bank_skips_counts_the_turns_the_strict_rule_would_refuse():
    from arena.games.substitution import Grammar
    from arena.tournament.thesis_rules import bank_skips

    grammar = Grammar.of(["S->A", "A->BB|aA", "B->b", "A->a"], (1, 1, 1, 1))
    found = bank_skips(grammar, 20, ["stupid-short-words", "search:depth=4"], 5)
    ssw = found["stupid-short-words"]
    assert ssw.turns == 5 * 2 * 20
    # A->aA leaves its A uncounted (the sign slip): the A->a in the bank is skipped.
    assert ssw.skips > 0 and ssw.strict_bank_steps == ssw.bank_steps + ssw.skips
    assert 0 < ssw.rate < 1
    # the depth-4 search finishes the word it works on within the search itself
    assert found["search:depth=4"].skips == 0
