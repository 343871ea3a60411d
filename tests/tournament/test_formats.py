"""Gauntlets and Swiss tournaments: who meets whom, seats, byes, determinism."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament import Pairing, TournamentSpec, run_tournament, to_json
from arena.tournament.formats import swiss_round, swiss_standings, tiebreak_order
from arena.tournament.results import CellResult, SwissRound, TournamentResult

SIM = {"vertices": 5}
SIM_BOTS = ("sim-random", "sim-perfect", "sim-safe-random", "sim-perfect:budget=100",
            "sim-mc:trials=5", "sim-mc:trials=20")


def swiss(bots=SIM_BOTS, rounds=3, seed=4, games=3):
    return TournamentSpec("sim", SIM, tuple(bots), games, seed, format="swiss", rounds=rounds)


def test_a_gauntlet_plays_the_first_bot_against_each_other():
    spec = TournamentSpec("sim", SIM, ("sim-perfect", "sim-random", "sim-mc"), 4, 1,
                          format="gauntlet")
    assert spec.pairings() == [Pairing(0, 1), Pairing(0, 2)]
    result = run_tournament(spec, processes=1)
    assert set(result.cells) == {(0, 1), (1, 0), (0, 2), (2, 0)}
    assert all(cell.games == 4 for cell in result.cells.values())
    data = to_json(result)
    assert data["format"] == "gauntlet" and len(data["pairings"]) == 2
    assert data["summary"]["sim-perfect"]["games"] == 16


def test_swiss_rounds_pair_everyone_without_rematches_and_balance_seats():
    result = run_tournament(swiss(), processes=2)
    assert [r.number for r in result.rounds] == [1, 2, 3]
    seen = Counter(p for r in result.rounds for p in r.pairings)
    assert len(seen) == 9 and set(seen.values()) == {1}  # 3 pairings a round, no rematch
    for r in result.rounds:
        assert sorted(b for p in r.pairings for b in (p.low, p.high)) == list(range(6))
        assert r.bye is None
    for bot in range(6):
        first = sum(c.games for (f, _), c in result.cells.items() if f == bot)
        second = sum(c.games for (_, s), c in result.cells.items() if s == bot)
        assert first == second == 3 * 3  # three rounds of three pairs, each seat once a pair
    assert result.games() == swiss().total_games() == 3 * 3 * 2 * 3


def test_swiss_is_deterministic_from_the_seed():
    one = to_json(run_tournament(swiss(), processes=1))
    two = to_json(run_tournament(swiss(), processes=2))
    assert one == two
    order = tiebreak_order(6, 4)
    first_round = one["rounds"][0]["pairings"]
    # everybody has 0 points: round 1 pairs the seeded order top-down
    assert first_round == [sorted(order[i:i + 2]) for i in (0, 2, 4)]
    assert tiebreak_order(6, 5) != order


def fake(points: list[float], rounds: list[SwissRound], games: int = 1) -> TournamentResult:
    """A Swiss in progress with the given game points (as wins against bot 0's column)."""
    spec = TournamentSpec("sim", SIM, tuple(f"b{i}" for i in range(len(points))), games, 0,
                          format="swiss", rounds=(len(points) + 1) // 2)
    result = TournamentResult(spec)
    for bot, p in enumerate(points):
        cell = result.cells.setdefault((bot, (bot + 1) % len(points)), CellResult())
        cell.first_wins += int(p)
        cell.draws += round(2 * (p - int(p)))
        cell.games += int(p) + round(2 * (p - int(p)))
    result.rounds = rounds
    return result


def test_swiss_pairs_by_score():
    # after (0, 1) and (2, 3): bot 0 leads with 3, then 2, 1, 3
    result = fake([3, 1, 2, 0], [SwissRound(1, (Pairing(0, 1), Pairing(2, 3)))])
    assert [b for b, _ in swiss_standings(result)] == [0, 2, 1, 3]
    assert swiss_round(result) == SwissRound(2, (Pairing(0, 2), Pairing(1, 3)))


def test_swiss_backtracks_rather_than_pair_a_rematch():
    # 0 has met 1; pairing 0 with 2 would leave 1 with 3, 4, 5, all met already
    met = (Pairing(0, 1), Pairing(1, 3), Pairing(1, 4), Pairing(1, 5))
    result = fake([5, 4, 3, 2, 1, 0], [SwissRound(i + 1, (p,)) for i, p in enumerate(met)])
    assert swiss_round(result).pairings == (Pairing(0, 3), Pairing(1, 2), Pairing(4, 5))


def test_an_odd_swiss_gives_byes_to_the_lowest_placed_bot_without_one():
    result = fake([0, 1, 2, 3, 4], [SwissRound(1, (Pairing(1, 2), Pairing(3, 4)), bye=0)], games=2)
    standings = dict(swiss_standings(result))
    assert standings[0] == 0 + 2  # a bye scores half of the round's 2 × games games
    this = swiss_round(result)
    assert this.bye == 1  # lowest placed (1 point) without a bye; 0 has 2 points but had one
    assert Pairing(1, 2) not in this.pairings


def test_a_five_bot_swiss_runs_with_distinct_byes():
    bots = ("sim-random", "sim-perfect", "sim-mc:trials=20", "sim-safe-random", "sim-mc:trials=5")
    result = run_tournament(swiss(bots, rounds=3, games=2), processes=1)
    byes = [r.bye for r in result.rounds]
    assert None not in byes and len(set(byes)) == 3
    assert len({p for r in result.rounds for p in r.pairings}) == 6


def test_swiss_rounds_are_checked():
    with pytest.raises(ValueError, match="1 to 3 rounds"):
        swiss(rounds=4)
    with pytest.raises(ValueError, match="1 to 3 rounds"):
        swiss(rounds=0)
    with pytest.raises(ValueError, match="rounds are for a Swiss"):
        TournamentSpec("sim", SIM, SIM_BOTS, 1, rounds=2)


def test_the_cli_runs_a_swiss(tmp_path):
    out = tmp_path / "swiss"
    result = CliRunner().invoke(main, [
        "tournament", "--game", "sim", "--settings", json.dumps(SIM), "--format", "swiss",
        "--rounds", "2", "--bots", "sim-random,sim-perfect,sim-mc:trials=10,sim-safe-random",
        "--games", "2", "--jobs", "1", "--quiet", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "| rank | bot | points | byes |" in result.output
    data = json.loads((out / "tournament.json").read_text())
    assert data["format"] == "swiss" and len(data["rounds"]) == 2
    assert data["standings"][0]["bot"] == "sim-perfect"
    bad = CliRunner().invoke(main, ["tournament", "--game", "sim", "--settings", json.dumps(SIM),
                                    "--format", "swiss", "--bots", "sim-random,sim-perfect"])
    assert bad.exit_code == 2 and "1 to 1 rounds" in bad.output
    twice = CliRunner().invoke(main, ["tournament", "--game", "sim", "--bots",
                                      "sim-random,sim-perfect,sim-random"])
    assert twice.exit_code == 2 and "'sim-random' is listed twice" in twice.output
