"""Tournaments work for every game of the registry (one game API)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from arena.cli import main
from arena.record import read_jsonl
from arena.tournament import iter_game_logs
from arena.validate import validate_record


def test_a_sim_round_robin(tmp_path):
    out = tmp_path / "sim"
    result = CliRunner().invoke(main, [
        "tournament", "--game", "sim", "--settings", '{"vertices": 5}', "--bots",
        "sim-random,sim-perfect", "--games", "6", "--seed", "2", "--quiet", "--jobs", "1",
        "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    table = json.loads((out / "tournament.json").read_text())
    assert table["bots"] == ["sim-random", "sim-perfect"]
    perfect_vs_random = table["table"]["sim-perfect"]["sim-random"]
    assert perfect_vs_random["second_wins"] == 0  # the perfect player never loses
    logs = dict(iter_game_logs(out))
    assert len(logs) == 4 * 6
    assert all(validate_record(read_jsonl(text.splitlines())) is None for text in logs.values())


def test_bad_settings_are_a_clear_error():
    result = CliRunner().invoke(main, ["tournament", "--game", "sim", "--settings", '{"vertices": 12}',
                                       "--bots", "sim-random", "--games", "1"])
    assert result.exit_code != 0 and "vertices" in result.output
