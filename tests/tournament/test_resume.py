"""`--resume DIR` after a real ``kill -9``: the same tables as an uninterrupted run; every
result stored once, every stored result with its log."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ArenaError
from arena.games.substitution import Settings
from arena.record import read_jsonl
from arena.tournament import TournamentSpec, iter_game_logs, play_batch, run_tournament
from arena.tournament.batch import Batch
from arena.tournament.spec import Pairing
from arena.tournament.store import RESULTS_FILE, ResultStore
from arena.validate import validate_record

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--grammar", "classic", "--moves", "12", "--games", "200", "--seed", "7",
        "--bots", "random,short-words,smart-random", "--quiet"]
TOTAL = 200 * (3 * 2 + 3)  # three pairings in both seat orders, three self-plays


def stored_rows(directory: Path) -> int:
    path = directory / RESULTS_FILE
    if not path.is_file():
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM results").fetchone()[0])
    except sqlite3.OperationalError:  # the table is not made yet
        return 0
    finally:
        db.close()


def wait_for(condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_resume_after_kill_9_gives_the_uninterrupted_tables(tmp_path):
    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", *ARGS, "--jobs", "2", "--out", str(killed)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: stored_rows(killed) >= 200 or process.poll() is not None)
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the driver and its worker processes
        process.wait()
        if process.stderr:
            process.stderr.close()
    at_kill = stored_rows(killed)
    assert 200 <= at_kill < TOTAL
    assert not (killed / "tournament.json").exists()  # no report of an unfinished run
    shown = CliRunner().invoke(main, ["tournament", "show", str(killed)])
    assert shown.exit_code == 2 and "--resume" in shown.output

    resumed = CliRunner().invoke(main, ["tournament", "--resume", str(killed), "--jobs", "2",
                                        "--quiet"], catch_exceptions=False)
    assert resumed.exit_code == 0, resumed.output
    assert f"{TOTAL} games" in resumed.output
    assert stored_rows(killed) == TOTAL  # each game once: (pairing, pair, seat) is the key

    whole = tmp_path / "whole"
    uninterrupted = CliRunner().invoke(main, ["tournament", *ARGS, "--jobs", "1",
                                              "--out", str(whole)], catch_exceptions=False)
    assert uninterrupted.exit_code == 0, uninterrupted.output
    for name in ("tournament.json", "tournament.md", "tournament.csv", "pairings.csv", "bots.csv"):
        assert (killed / name).read_text() == (whole / name).read_text(), name
    logs = dict(iter_game_logs(killed))
    assert len(logs) == TOTAL and logs == dict(iter_game_logs(whole))
    for text in list(logs.values())[::97]:
        assert validate_record(read_jsonl(text.splitlines())) is None


def spec(games: int = 4) -> TournamentSpec:
    return TournamentSpec("substitution", Settings.preset("classic", 8).to_json(),
                          ("random", "short-words"), games, 3)


def test_a_result_is_written_once(tmp_path):
    store = ResultStore(tmp_path, spec())
    done = play_batch(Batch(spec(), Pairing(0, 1), 0, 2, logs=True))
    store.add(done, done.results)
    with pytest.raises(sqlite3.IntegrityError):
        store.add(done, done.results[:1])
    assert len(store.results()) == 4  # the failed batch left nothing behind
    store.close()


def test_a_directory_holds_one_tournament(tmp_path):
    run_tournament(spec(), out=tmp_path, processes=1)
    with pytest.raises(ArenaError, match="already holds this tournament: continue it with --resume"):
        run_tournament(spec(), out=tmp_path, processes=1)
    with pytest.raises(ArenaError, match="holds another tournament"):
        run_tournament(spec(games=5), out=tmp_path, processes=1, resume=True)
    # resuming a finished tournament plays nothing and gives the same tables
    before = json.loads((tmp_path / "tournament.json").read_text())
    run_tournament(spec(), out=tmp_path, processes=1, resume=True)
    assert json.loads((tmp_path / "tournament.json").read_text()) == before


def test_resume_options_are_checked(tmp_path):
    result = CliRunner().invoke(main, ["tournament", "--resume", str(tmp_path / "none")])
    assert result.exit_code == 2 and "holds no tournament to resume" in result.output
    run_tournament(spec(), out=tmp_path, processes=1)
    result = CliRunner().invoke(main, ["tournament", "--resume", str(tmp_path), "--bots", "random",
                                       "--games", "3"])
    assert result.exit_code == 2
    assert "takes the tournament from DIR; leave out --games, --bots" in result.output
    again = CliRunner().invoke(main, ["tournament", "--grammar", "classic", "--moves", "8",
                                      "--games", "4", "--seed", "3", "--bots",
                                      "random,short-words", "--out", str(tmp_path)])
    assert again.exit_code == 1 and "--resume" in again.output
