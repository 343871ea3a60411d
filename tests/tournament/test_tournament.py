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
    Batch,
    GameKey,
    Pairing,
    TournamentSpec,
    iter_game_logs,
    markdown_table,
    play_batch,
    read_game_log,
    registry_bot,
    run_tournament,
    summarise,
    to_json,
    wilson,
)
from arena.tournament.stats import estimate
from arena.tournament.store import ResultStore
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
    run_tournament(spec(games=3, pairs=((0, 1), (1, 0), (2, 2))), out=tmp_path, processes=1)
    ids = []
    for game_id, text in iter_game_logs(tmp_path):
        ids.append(game_id)
        record = read_jsonl(text.splitlines())
        assert record.id == game_id
        assert validate_record(record) is None
    assert sorted(ids) == ["0-1-0", "0-1-1", "0-1-2", "1-0-0", "1-0-1", "1-0-2",
                           "2-2-0", "2-2-1", "2-2-2"]
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


def test_a_pairing_must_play_both_seat_orders():
    with pytest.raises(ValueError, match=r"\(0, 1\) is listed without \(1, 0\)"):
        spec(pairs=((0, 1),))


def test_pentanomial_counts_are_the_pairs_of_stored_games(tmp_path):
    result = run_tournament(spec(games=30, bots=("random", "short-words")), out=tmp_path,
                            processes=2)
    store = ResultStore(tmp_path, result.spec, resume=True)
    stored = store.results()
    store.close()
    assert len(stored) == 30 * 2 + 2 * 30  # the pairing (both seats) and two self-plays
    # pair i of random (bot 0) against short-words: random first in 0-1-i, second in 1-0-i
    expected = [0] * 5
    for i in range(30):
        a = stored[GameKey.of(0, 1, i)].points(0) + stored[GameKey.of(1, 0, i)].points(1)
        expected[int(2 * a)] += 1
    assert result.pentanomial[Pairing(0, 1)] == expected
    assert sum(expected) == 30
    data = to_json(result)
    [pairing] = data["pairings"]
    assert pairing["bots"] == ["random", "short-words"] and pairing["pentanomial"] == expected
    e = estimate(expected)
    assert e is not None and pairing["elo"] == round(e.elo, 2) and pairing["los"] == round(e.los, 5)
    # each bot's own view: short-words sees the same pairs from the other side
    assert data["summary"]["short-words"]["pentanomial"] == expected[::-1]
    for field in ("elo", "elo_ci", "nelo", "nelo_ci", "los"):
        assert field in data["summary"]["random"]


def test_reports_carry_the_elo_tables(tmp_path):
    run_tournament(spec(games=4), out=tmp_path, processes=1)
    table = (tmp_path / "tournament.md").read_text()
    assert "Elo (95% CI)" in table and "| random vs short-words | 4 |" in table
    pairings = (tmp_path / "pairings.csv").read_text().splitlines()
    assert pairings[0].startswith("bot,opponent,pairs,ptnml_0,ptnml_half,ptnml_1,ptnml_1half,"
                                  "ptnml_2,score,elo,elo_low,elo_high,nelo,nelo_low,nelo_high,los")
    assert len(pairings) == 1 + 3  # three pairings of distinct bots
    bots = (tmp_path / "bots.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in bots[1:]] == list(BOTS)


class Cheat:
    """Plays a move that is not a move: forfeits at its first turn."""

    def choose_move(self, game, state, rng):
        return "no such move"


def cheat_maker(game, spec):
    return Cheat() if spec == "cheat" else registry_bot(game, spec)


def test_a_forfeit_counts_as_a_loss_without_scores():
    result = run_tournament(
        TournamentSpec("substitution", Settings.preset("classic", 12).to_json(),
                       ("cheat", "random"), 3, 1, ((0, 1), (1, 0))),
        processes=1, maker=cheat_maker)
    cheat_first, cheat_second = result.cells[(0, 1)], result.cells[(1, 0)]
    assert cheat_first.second_wins == 3 and cheat_second.first_wins == 3
    assert cheat_first.forfeits == cheat_second.forfeits == 3
    assert cheat_first.scored == cheat_second.scored == 0  # no scores for forfeited games
    assert result.pentanomial[Pairing(0, 1)] == [3, 0, 0, 0, 0]
    summary = {s.bot: s for s in summarise(result)}
    assert summary["cheat"].mean_score == 0 and summary["cheat"].losses == 6


BUILT: list[object] = []


class Prepared:
    """Counts its `prepare` calls; plays random moves."""

    def __init__(self, game):
        self.inner = registry_bot(game, "random")
        self.prepares = 0

    def prepare(self, game):
        self.prepares += 1

    def choose_move(self, game, state, rng):
        assert self.prepares >= 1  # prepared before its first move
        return self.inner.choose_move(game, state, rng)


def counting_maker(game, spec):
    bot = Prepared(game) if spec == "prepared" else registry_bot(game, spec)
    BUILT.append(bot)
    return bot


def test_a_worker_builds_and_prepares_each_bot_once():
    BUILT.clear()
    s = TournamentSpec("substitution", Settings.preset("classic", 8).to_json(),
                       ("prepared", "random"), 4, 3)
    first = play_batch(Batch(s, Pairing(0, 1), 0, 2, counting_maker))
    assert sorted(first.built) == ["prepared", "random"] and len(BUILT) == 2
    prepared = BUILT[0]
    assert isinstance(prepared, Prepared) and prepared.prepares >= 1
    again = play_batch(Batch(s, Pairing(0, 1), 2, 4, counting_maker))
    assert again.built == () and len(BUILT) == 2  # kept for the next batch
    assert first.worker == again.worker


def test_a_batch_gives_the_same_games_wherever_it_runs(tmp_path):
    s = spec(games=8)
    run_tournament(s, processes=2, out=tmp_path)
    store = ResultStore(tmp_path, s, resume=True)
    stored = store.results()
    store.close()
    batch = play_batch(Batch(s, Pairing(1, 2), 3, 6))
    assert [r.key for r in batch.results] == [
        GameKey(Pairing(1, 2), i, seat) for i in range(3, 6) for seat in (0, 1)]
    assert all(stored[r.key] == r for r in batch.results)
