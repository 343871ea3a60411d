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
from arena.games.sim.solver import BudgetExceeded, SimSolver, compiled


def brute_value(n: int) -> int:
    """Negamax through the game API with a memo on the raw position (no symmetry)."""
    game = SimGame(n)

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

    return value(game.initial_state())


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
