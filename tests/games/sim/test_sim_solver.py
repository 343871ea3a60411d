"""The Sim solver against brute force, against itself without symmetry, and known values."""

from __future__ import annotations

import functools
import json
import random
from collections import Counter

import pytest
from click.testing import CliRunner

from arena.game import TERMINAL, Rejection
from arena.games.sim import SimGame, SimPosition, _pysearch, geometry
from arena.games.sim.solver import BudgetExceeded, CountMemoryExceeded, SimSolver, compiled


def brute_value(n: int | SimGame, start: SimPosition | None = None) -> int:
    """Negamax through the game API with a memo on the raw position (no symmetry): the
    value of `start` (the empty board by default) for the player to move."""
    game = n if isinstance(n, SimGame) else SimGame(n)

    @functools.cache
    def value(state: SimPosition) -> int:  # for the player to move
        outcome = game.outcome(state)
        if outcome is not None:
            if outcome.winner is None:
                return 0
            return 1 if outcome.winner == state.seat_to_move else -1
        best = -1
        for text in game.legal_moves(state).moves:
            child = game.check_move(state, game.parse_move(text))
            assert not isinstance(child, Rejection)
            best = max(best, -value(child))
        return best

    return value(game.initial_state() if start is None else start)


def brute_sequences(n: int) -> tuple[Counter[int], int]:
    """Every complete game through the game API, one by one."""
    game = SimGame(n)
    lengths: Counter[int] = Counter()
    draws = 0

    def walk(state: SimPosition) -> None:
        nonlocal draws
        if game.to_act(state) == TERMINAL:
            lengths[state.moves_made] += 1
            outcome = game.outcome(state)
            draws += outcome is not None and outcome.winner is None
            return
        for text in game.legal_moves(state).moves:
            child = game.check_move(state, game.parse_move(text))
            assert not isinstance(child, Rejection)
            walk(child)

    walk(game.initial_state())
    return lengths, draws


@pytest.mark.parametrize("n, expected", [(3, "draw"), (4, "draw"), (5, "draw"), (6, "second")])
def test_known_values(n: int, expected: str) -> None:
    assert SimSolver(n).solve().value == expected


@pytest.mark.parametrize("n", [3, 4, 5])
def test_value_matches_brute_force(n: int) -> None:
    assert SimSolver(n).value(SimGame(n).initial_state()) == brute_value(n)


@pytest.mark.parametrize("n", [7, 8])
def test_k7_and_k8_second_player_wins(n: int) -> None:
    if not compiled:
        pytest.skip("slow without the compiled core")
    solution = SimSolver(n).solve()
    assert solution.value == "second" and solution.positions > 0


@pytest.mark.parametrize("n", [3, 4])
def test_sequence_counts_match_brute_force(n: int) -> None:
    lengths, draws = brute_sequences(n)
    counted = SimSolver(n).count_sequences()
    assert counted.by_length == dict(lengths)
    assert counted.draws == draws
    assert counted.total == sum(lengths.values())


@pytest.mark.parametrize("n", [4, 5])
def test_sequence_counts_same_without_symmetry(n: int) -> None:
    with_symmetry = SimSolver(n).count_sequences()
    without = SimSolver(n, symmetry=False).count_sequences()
    assert with_symmetry.by_length == without.by_length
    assert with_symmetry.draws == without.draws
    assert with_symmetry.positions < without.positions


def test_k6_sequence_figures() -> None:
    counted = SimSolver(6).count_sequences()
    assert counted.draws == 0  # R(3,3) = 6: a full K6 always holds a one-coloured triangle
    assert min(counted.by_length) == 5 and max(counted.by_length) == 15
    assert counted.total == 109_132_115_040


def random_position(n: int, rnd: random.Random) -> SimPosition:
    game = SimGame(n)
    state = game.initial_state()
    for _ in range(rnd.randrange(geometry(n).num_edges)):
        if game.to_act(state) == TERMINAL:
            break
        options = game.legal_moves(state).moves
        child = game.check_move(state, game.parse_move(rnd.choice(options)))
        assert not isinstance(child, Rejection)
        state = child
    return state


def test_positions_agree_across_implementations() -> None:
    rnd = random.Random(6)
    fast, plain = SimSolver(6), SimSolver(6, symmetry=False)
    python = _pysearch.Searcher(6)
    for _ in range(40):
        state = random_position(6, rnd)
        if state.is_over():
            continue
        value = fast.value(state)
        assert value == plain.value(state)
        mine, theirs = (state.red, state.green) if state.seat_to_move == 0 else (state.green, state.red)
        assert python.value(mine, theirs) == value
        assert max(fast.move_values(state).values()) == value


@pytest.mark.parametrize("n, python", [(6, True), (6, False), (7, False)])
def test_canonical_form_is_invariant_under_relabelling(n: int, python: bool) -> None:
    rnd = random.Random(n)
    searcher = _pysearch.Searcher(n) if python else SimSolver(n)._searcher
    geo = geometry(n)
    for _ in range(30):
        state = random_position(n, rnd)
        perm = list(range(n))
        rnd.shuffle(perm)

        def relabel(mask: int, perm: list[int] = perm) -> int:
            out = 0
            for e, (a, b) in enumerate(geo.edges):
                if mask >> e & 1:
                    out |= 1 << geo.edge_index[perm[a]][perm[b]]
            return out

        assert searcher.canon(state.red, state.green) == searcher.canon(
            relabel(state.red), relabel(state.green)
        )


def test_budget_stops_and_keeps_table_valid() -> None:
    solver = SimSolver(6, budget=5)
    with pytest.raises(BudgetExceeded):
        solver.solve()
    solver.budget = -1
    assert solver.solve().value == "second"


def test_cli_json() -> None:
    from arena.cli import main

    result = CliRunner().invoke(main, ["solve", "sim", "--vertices", "5", "--count-sequences", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["value"] == "draw" and data["positions"] > 0 and data["seconds"] >= 0
    assert data["sequences"]["draws"] == 172_800
    assert data["sequences"]["total"] == sum(data["sequences"]["by_length"].values())
    bad = CliRunner().invoke(main, ["solve", "sim", "--vertices", "9"])
    assert bad.exit_code != 0 and "3<=x<=8" in bad.output


# -- the compiled game count (128-bit vectors in a C hash table) ---------------------

# Complete games and draws from the empty board (docs/games/sim.md), with the number of
# positions up to symmetry the count visits.
KNOWN_COUNTS = {
    3: (6, 6, 3),
    4: (720, 432, 17),
    5: (2_074_680, 172_800, 135),
    6: (109_132_115_040, 0, 2_250),
    7: (98_089_338_407_980_500, 0, 77_608),
}


@pytest.mark.parametrize("n", sorted(KNOWN_COUNTS))
def test_known_sequence_counts(n: int) -> None:
    total, draws, positions = KNOWN_COUNTS[n]
    counted = SimSolver(n).count_sequences()
    assert (counted.total, counted.draws, counted.positions) == (total, draws, positions)
    assert counted.total == sum(counted.by_length.values())
    if compiled:
        assert counted.table_bytes > 0


@pytest.mark.parametrize("n", [5, 6, 7])
def test_shortest_games_by_combinatorics(n: int) -> None:
    """5 moves: red's three edges are a triangle; 6 moves: green's are, red's are not."""
    edges = n * (n - 1) // 2
    triangles = n * (n - 1) * (n - 2) // 6
    by_length = SimSolver(n).count_sequences().by_length
    assert min(by_length) == 5
    assert by_length[5] == triangles * 6 * (edges - 3) * (edges - 4)
    # red's three edges avoid the green triangle's and are not a triangle themselves:
    # the triangles with no edge of it are all but itself and 3 (n - 3) others
    red_sets = (edges - 3) * (edges - 4) * (edges - 5) // 6 - (triangles - 1 - 3 * (n - 3))
    assert by_length[6] == triangles * 6 * red_sets * 6


def play(n: int, moves: int, seed: int) -> tuple[int, int]:
    """(mover's edges, opponent's edges) after `moves` random safe moves."""
    rnd = random.Random(seed)
    game = SimGame(n)
    state = game.initial_state()
    geo = geometry(n)
    for _ in range(moves):
        mine = state.red if state.seat_to_move == 0 else state.green
        safe = [m for m in game.legal_moves(state).moves
                if not geo.closes_triangle(mine, geo.edge_index[int(m.split()[0])][int(m.split()[1])])]
        child = game.check_move(state, game.parse_move(rnd.choice(safe)))
        assert not isinstance(child, Rejection) and not child.is_over()
        state = child
    return (state.red, state.green) if state.seat_to_move == 0 else (state.green, state.red)


@pytest.mark.parametrize("n, moves", [(6, 3), (7, 9), (8, 15), (8, 17)])
def test_counts_from_positions_agree_with_python(n: int, moves: int) -> None:
    for seed in range(3):
        mine, theirs = play(n, moves, seed)
        fast = SimSolver(n)._searcher.count(mine, theirs)
        assert fast == _pysearch.Searcher(n).count(mine, theirs)
        assert fast == SimSolver(n, symmetry=False)._searcher.count(mine, theirs)


def test_count_table_persists_and_is_released() -> None:
    searcher = SimSolver(6)._searcher
    first = searcher.count(0, 0)
    assert searcher.counted == 2_250 and searcher.count_bytes > 0
    assert searcher.count(0, 0) == first  # answered from the table
    assert searcher.counted == 2_250
    searcher.release_counts()
    assert searcher.counted == 0 and searcher.count_bytes == 0
    assert searcher.count(0, 0) == first


@pytest.mark.parametrize("python", [False, True])
def test_count_memory_limit_stops_cleanly(python: bool) -> None:
    solver = SimSolver(6)
    expected: type[MemoryError] = CountMemoryExceeded
    if python:
        solver._searcher = _pysearch.Searcher(6)  # type: ignore[assignment]
        expected = _pysearch.CountMemoryExceeded
    with pytest.raises(expected, match="needs more than the 1e-05 GB allowed"):
        solver.count_sequences(max_bytes=10_000)
    assert solver._searcher.counted == 0  # the table is freed after a failure too
    assert solver.count_sequences().total == 109_132_115_040


def test_count_progress_reports() -> None:
    reports: list[tuple[int, int]] = []
    counted = SimSolver(7).count_sequences(
        progress=lambda positions, size: reports.append((positions, size)), progress_every=0.0
    )
    assert reports and all(0 < p <= counted.positions for p, _ in reports)
    assert [p for p, _ in reports] == sorted(p for p, _ in reports)


def test_cli_count_memory_error() -> None:
    from arena.cli import main

    result = CliRunner().invoke(
        main, ["solve", "sim", "-n", "7", "--count-sequences", "--max-memory", "0.001"]
    )
    assert result.exit_code == 1
    assert "needs more than the 0.001 GB allowed" in result.output
    assert "--max-memory" in result.output and "Traceback" not in result.output
