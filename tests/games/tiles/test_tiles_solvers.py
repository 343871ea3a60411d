from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from arena.games.tiles.expected import solo_table
from arena.games.tiles.race import race_table
from arena.games.tiles.rules import ROLLS, move_options


def test_expected_turns_by_hand() -> None:
    # One tile (1): only a double one turns it down.
    assert solo_table(1).full == pytest.approx(36.0)
    # Tiles 1, 2: 1-2 finishes (2/36); 1-1 should take tile 2 (E = 18 for tile 1? no:
    # tile 1 alone needs 36 turns, tile 2 alone 18), and waiting beats turning down
    # tile 2 on 2-2: E = (36 + 2*0 + 1*18) / 3 = 18. Forced to move: 22.5.
    assert solo_table(2, voluntary_skip=True).full == pytest.approx(18.0)
    assert solo_table(2).full == pytest.approx(22.5)   # the seed's rules: the default


def fixed_point_solo(tiles: int, voluntary: bool) -> list[float]:
    """Plain value iteration, the slow reference."""
    size = 1 << tiles
    e = [0.0] * size
    for _ in range(20000):
        new = [0.0] * size
        for board in range(1, size):
            total = 1.0
            for roll, w in ROLLS:
                options = [e[a] for a in move_options(board, roll).values()]
                if voluntary or not options:
                    options.append(e[board])
                total += w / 36 * min(options)
            new[board] = total
        if max(abs(a - b) for a, b in zip(new, e)) < 1e-11:
            return new
        e = new
    raise AssertionError("no convergence")


@pytest.mark.parametrize("voluntary", [True, False])
def test_solo_table_is_the_fixed_point(voluntary: bool) -> None:
    expected = fixed_point_solo(3, voluntary)
    table = solo_table(3, voluntary)
    assert table.expected == pytest.approx(expected, abs=1e-7)


def test_twelve_tiles_the_seeds_optimum_and_skip_helps() -> None:
    # The seed's rules (no voluntary pass) are the default: its formula's 48.30630.
    assert solo_table(12).full == pytest.approx(48.3063, abs=5e-5)
    assert solo_table(12, voluntary_skip=True).full == pytest.approx(46.5624203, abs=1e-6)
    assert solo_table(12).voluntary_skip is False
    assert all(e >= 1 for e in solo_table(6).expected[1:])


def test_race_one_tile_exact() -> None:
    # p = 1/36 per turn: W = p / (1 - (1 - p)^2) = 36/71.
    assert race_table(1).first_player == pytest.approx(36 / 71)


def value_iteration_race(tiles: int, voluntary: bool) -> np.ndarray:
    size = 1 << tiles
    w = np.full((size, size), 0.5)
    for _ in range(20000):
        new = w.copy()
        for a in range(1, size):
            for b in range(1, size):
                total = 0.0
                for roll, weight in ROLLS:
                    values = [
                        1.0 if after == 0 else 1.0 - w[b, after]
                        for after in move_options(a, roll).values()
                    ]
                    if voluntary or not values:
                        values.append(1.0 - w[b, a])
                    total += weight / 36 * max(values)
                new[a, b] = total
        if np.abs(new - w).max() < 1e-12:
            return new
        w = new
    raise AssertionError("no convergence")


@pytest.mark.parametrize("voluntary", [True, False])
def test_race_table_matches_value_iteration(voluntary: bool) -> None:
    reference = value_iteration_race(2, voluntary)
    table = race_table(2, voluntary).wins
    assert np.allclose(table[1:, 1:], reference[1:, 1:], atol=1e-8)


def test_race_table_is_a_fixed_point() -> None:
    tiles = 4
    table = race_table(tiles)
    w = table.wins
    for a in range(1, 1 << tiles):
        for b in range(1, 1 << tiles):
            total = sum(
                weight / 36 * max(table.option_values(a, b, roll).values())
                for roll, weight in ROLLS
            )
            assert math.isclose(total, w[a, b], abs_tol=1e-9)


def test_cli_solo_and_race() -> None:
    from arena.cli import main

    runner = CliRunner()
    report = json.loads(runner.invoke(main, ["solve", "tiles", "--tiles", "3", "--json"]).output)
    assert report["expected_turns"] == pytest.approx(solo_table(3).full)
    assert len(report["policy"]) == 7 and len(report["policy"]["1,2,3"]) == 21
    race = json.loads(
        runner.invoke(main, ["solve", "tiles", "--tiles", "1", "--race", "--json"]).output
    )
    assert race["first_player_wins"] == pytest.approx(36 / 71)
    text = runner.invoke(main, ["solve", "tiles", "--tiles", "2"]).output
    assert "22.5" in text
    text = runner.invoke(main, ["solve", "tiles", "--tiles", "2", "--voluntary-skip"]).output
    assert "18.0" in text
    report = json.loads(runner.invoke(main, ["solve", "tiles", "--tiles", "12", "--json"]).output)
    assert report["voluntary_skip"] is False
    assert report["expected_turns"] == pytest.approx(48.3063, abs=5e-5)


def test_compare_command(tmp_path) -> None:
    from arena.cli import main

    result = CliRunner().invoke(
        main, ["compare-tiles", "--games", "30", "--tiles", "4", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tiles-turns.png").stat().st_size > 1000
    summary = json.loads((tmp_path / "tiles-compare.json").read_text())
    assert set(summary["strategies"]) == {"tiles-random", "tiles-probability", "tiles-zermelo"}
    assert summary["voluntary_skip"] is False
    assert summary["optimal_expected_turns"] == pytest.approx(solo_table(4).full)
    result = CliRunner().invoke(main, ["compare-tiles", "--games", "5", "--tiles", "4",
                                       "--voluntary-skip", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "tiles-compare.json").read_text())
    assert summary["voluntary_skip"] is True
    assert summary["optimal_expected_turns"] == pytest.approx(solo_table(4, True).full)
