"""Round robins on tiny settings: table shape, reproducibility, paired dice, stored logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games.substitution import Settings
from arena.record import read_jsonl
from arena.tournament import (
    TournamentSpec,
    iter_game_logs,
    markdown_table,
    read_game_log,
    run_tournament,
    summarise,
    to_json,
    wilson,
)
from arena.validate import validate_record

ROOT = Path(__file__).resolve().parents[2]
BOTS = ("random", "short-words", "search:depth=1")


def spec(games=4, seed=5, moves=12, bots=BOTS, pairs=None):
    return TournamentSpec("substitution", Settings.preset("classic", moves).to_json(), bots, games,
                          seed, pairs)


def test_table_shape_and_totals(tmp_path):
    result = run_tournament(spec(), out=tmp_path, processes=1)
    data = to_json(result)
    assert data["bots"] == list(BOTS) and data["games"] == 4
    assert set(data["table"]) == set(BOTS)
    for first in BOTS:
        assert set(data["table"][first]) == set(BOTS)
        for second in BOTS:
            cell = data["table"][first][second]
            assert cell["first_wins"] + cell["second_wins"] + cell["draws"] == 4
    assert set(data["summary"]) == set(BOTS)
    for name in ("tournament.md", "tournament.csv", "tournament.json"):
        assert (tmp_path / name).is_file()
    assert json.loads((tmp_path / "tournament.json").read_text())["table"] == data["table"]
    table = markdown_table(result)
    assert table.splitlines()[0] == "| first \\ second | random | short-words | search:depth=1 |"
    summary = {s.bot: s for s in summarise(result)}
    assert summary["random"].games == 16  # 2 opponents x 2 seats x 4 games, no self-play


def test_reproducible_and_independent_of_processes():
    one = to_json(run_tournament(spec(games=6), processes=1))
    two = to_json(run_tournament(spec(games=6), processes=2))
    assert one == two
    other_seed = to_json(run_tournament(spec(games=6, seed=6), processes=1))
    assert other_seed["cells"] != one["cells"]


def test_both_seats_meet_the_same_dice(tmp_path):
    run_tournament(spec(games=3), out=tmp_path, processes=1)
    for index in range(3):
        a = read_jsonl(read_game_log(tmp_path, f"0-2-{index}").splitlines())
        b = read_jsonl(read_game_log(tmp_path, f"2-0-{index}").splitlines())
        assert a.seed == b.seed
        assert [t.chance for t in a.turns] == [t.chance for t in b.turns]


def test_every_stored_game_replays_and_validates(tmp_path):
    run_tournament(spec(games=3, pairs=((0, 1), (2, 2))), out=tmp_path, processes=1)
    ids = []
    for game_id, text in iter_game_logs(tmp_path):
        ids.append(game_id)
        record = read_jsonl(text.splitlines())
        assert record.id == game_id
        assert validate_record(record) is None
    assert sorted(ids) == ["0-1-0", "0-1-1", "0-1-2", "2-2-0", "2-2-1", "2-2-2"]
    with pytest.raises(KeyError):
        read_game_log(tmp_path, "0-1-9")


def test_wilson_interval():
    low, high = wilson(60, 100)
    assert 0.50 < low < 0.51 and 0.69 < high < 0.70
    assert wilson(0, 0) == (0.0, 1.0)


def test_cli_round_robin_show_and_validate(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "t"
    run = [sys.executable, "-m", "arena", "tournament"]
    text = subprocess.run(
        run + ["--grammar", "low-s", "--moves", "10", "--games", "2", "--bots",
               "random,adaptive-random:omega=2,finish=short-words", "--seed", "3", "--out", str(out),
               "--json", str(tmp_path / "t.json"), "--jobs", "2", "--quiet"],
        capture_output=True, text=True, env=env, check=True).stdout
    assert "| **adaptive-random:omega=2,finish=short-words** |" in text
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["bots"] == ["random", "adaptive-random:omega=2,finish=short-words"]
    shown = subprocess.run(run + ["show", str(out), "1-0-1"], capture_output=True, text=True,
                           env=env, check=True).stdout
    assert shown.startswith('{"format":"arena-log"') and '"id":"1-0-1"' in shown
    checked = subprocess.run(run + ["validate", str(out)], capture_output=True, text=True,
                             env=env, check=True).stdout
    assert "8 games checked, 0 with defects" in checked
