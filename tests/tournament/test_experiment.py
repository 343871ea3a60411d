"""The thesis experiment end to end on tiny settings."""

from __future__ import annotations

import json

from arena.games.substitution import preset
from bots.substitution.experiments import run_thesis, trap_of


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
