"""Sim on graphs other than K_n (the seed's footnote): settings, rules, solver, bots, board."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.errors import SettingsError
from arena.game import Rejection
from arena.games.sim import SimGame, _pysearch
from arena.games.sim.game import GRAPHS
from arena.games.sim.rules import automorphisms, edge_mask, geometry
from arena.games.sim.solver import SimSolver
from arena.match import play_match
from arena.registry import default_registry
from arena.validate import validate_record
from tests.games.sim.test_sim_solver import brute_value

BOWTIE = [[0, 1], [1, 2], [0, 2], [2, 3], [3, 4], [2, 4]]      # two triangles sharing vertex 2
C5 = [[k, (k + 1) % 5] for k in range(5)]


def test_settings_take_an_edge_list_and_name_what_is_wrong():
    game = SimGame.from_settings({"vertices": 5, "edges": BOWTIE})
    assert game.settings() == {"vertices": 5, "edges": sorted(sorted(e) for e in BOWTIE)}
    assert SimGame.from_settings(game.settings()) == game
    assert game != SimGame(5) and hash(game) != hash(SimGame(5))
    complete = [[a, b] for a in range(4) for b in range(a + 1, 4)]
    assert SimGame.from_settings({"vertices": 4, "edges": complete}) == SimGame(4)
    assert SimGame.from_settings({"vertices": 4, "edges": complete}).settings() == {"vertices": 4}
    for edges, message in [
        ([[0, 0]], "loop"), ([[0, 1], [1, 0]], "listed twice"), ([[0, 9]], "vertices are 0 to 4"),
        ([[0, 1, 2]], "not a pair"), ([], "at least one edge"), ("0-1", "must be a list"),
        ([[0, True]], "not a pair"),
    ]:
        with pytest.raises(SettingsError, match=message):
            SimGame.from_settings({"vertices": 5, "edges": edges})
    with pytest.raises(SettingsError, match="known: vertices, edges"):
        SimGame.from_settings({"vertices": 5, "graph": BOWTIE})


def test_only_the_graphs_edges_are_played():
    game = SimGame(5, BOWTIE)
    state = game.initial_state()
    assert sorted(game.legal_moves(state).moves) == sorted(f"{a} {b}" for a, b in sorted(map(sorted, BOWTIE)))
    rejection = game.check_move(state, game.parse_move("0 3"))
    assert isinstance(rejection, Rejection) and rejection.code == "not-an-edge"
    assert "0-3 is not an edge of the graph" in rejection.message
    with pytest.raises(ValueError, match="not an edge of the graph"):
        game.state_from_json({"vertices": 5, "red": [[0, 3]], "green": []})
    view = game.render(state)
    assert view["graph"] == sorted(sorted(e) for e in BOWTIE)
    assert len(view["options"]) == 6


def test_a_graph_without_triangles_always_ends_in_a_draw():
    game = SimGame.from_settings(GRAPHS["K3,3 (no triangle: always a draw)"])
    assert geometry(6, game.graph).triangles == ()
    bots = [default_registry().make_bot(game, "sim-random") for _ in range(2)]
    match = play_match(game, bots, seed=3)
    assert match.outcome.winner is None and match.state.moves_made == 9
    assert validate_record(match.record()) is None


def test_automorphism_groups():
    def count(vertices, edges):
        return len(automorphisms(vertices, edge_mask(vertices, edges)))

    assert count(5, C5) == 10                        # the dihedral group of the pentagon
    assert count(5, BOWTIE) == 8                     # swap within each triangle, swap them
    assert count(6, GRAPHS["K3,3 (no triangle: always a draw)"]["edges"]) == 72
    assert count(6, GRAPHS["octahedron K2,2,2"]["edges"]) == 48
    assert automorphisms(5, edge_mask(5, C5))[0] == (0, 1, 2, 3, 4)   # identity first


GRAPH_CASES = [(5, BOWTIE), (5, C5), (4, [[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]]),
               (5, [[0, 1], [0, 2], [0, 3], [0, 4], [1, 2], [2, 3], [3, 4], [4, 1]])]


@pytest.mark.parametrize(("vertices", "edges"), GRAPH_CASES)
def test_the_solver_agrees_with_brute_force_with_and_without_symmetry(vertices, edges):
    game = SimGame(vertices, edges)
    expected = brute_value(game)
    for symmetry in (True, False):
        solver = SimSolver(vertices, graph=game.graph, symmetry=symmetry)
        assert {"first": 1, "second": -1, "draw": 0}[solver.solve().value] == expected
    auts = automorphisms(vertices, game.graph)
    python = _pysearch.Searcher(vertices, True, -1, game.graph, auts)
    compiled = SimSolver(vertices, graph=game.graph)
    assert python.value(0, 0) == compiled.value(game.initial_state())
    assert len(python.table) == compiled.positions


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 6), st.data())
def test_move_values_match_brute_force_on_random_graphs(vertices, data):
    pairs = [[a, b] for a in range(vertices) for b in range(a + 1, vertices)]
    chosen = data.draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=9, unique_by=tuple))
    game = SimGame(vertices, chosen)
    solver = SimSolver(vertices, graph=game.graph)
    rng = random.Random(len(chosen))
    state = game.initial_state()
    for _ in range(data.draw(st.integers(0, 3))):
        moves = game.legal_moves(state).moves
        if not moves or game.outcome(state) is not None:
            break
        state = game.check_move(state, game.parse_move(rng.choice(moves)))
    if game.outcome(state) is not None:
        return
    for edge, value in solver.move_values(state).items():
        child = state.with_edge(edge)
        outcome = game.outcome(child)
        if outcome is not None:
            expected = 0 if outcome.winner is None else (1 if outcome.winner == state.seat_to_move else -1)
        else:
            expected = -brute_value(game, child)
        assert value == expected


@pytest.mark.parametrize("bot", ["sim-random", "sim-safe-random", "sim-mc:trials=20", "sim-perfect"])
def test_every_bot_plays_legal_games_on_a_graph(bot):
    game = SimGame.from_settings(GRAPHS["octahedron K2,2,2"])
    registry = default_registry()
    for seed in range(3):
        bots = [registry.make_bot(game, bot), registry.make_bot(game, "sim-safe-random")]
        record = play_match(game, bots, seed=seed, names=[bot, "safe"]).record()
        assert record.settings == game.settings()
        assert validate_record(record) is None


def test_perfect_play_wins_where_the_solver_says_so():
    game = SimGame.from_settings(GRAPHS["K6 minus an edge"])
    assert SimSolver(6, graph=game.graph).solve().value == "second"
    registry = default_registry()
    for seed in range(4):
        bots = [registry.make_bot(game, "sim-safe-random"), registry.make_bot(game, "sim-perfect")]
        assert play_match(game, bots, seed=seed).outcome.winner == 1


def test_the_lobby_offers_valid_graphs():
    lobby = SimGame.web_lobby()
    assert lobby["graphs"] == GRAPHS
    for name, graph in lobby["graphs"].items():
        game = SimGame.from_settings(graph)
        assert game.graph is not None, name


def test_solve_command_takes_an_edge_list():
    from arena.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["solve", "sim", "--vertices", "5", "--edges",
                                  "0-1 1-2 0-2, 2-3 3-4 2-4", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["edges"] == sorted(sorted(e) for e in BOWTIE)
    assert report["value"] == {1: "first", -1: "second", 0: "draw"}[brute_value(SimGame(5, BOWTIE))]
    text = runner.invoke(main, ["solve", "sim", "--vertices", "5", "--edges", "0-1 1-2 0-2"]).output
    assert "the graph on 5 vertices with 3 edges" in text
    result = runner.invoke(main, ["solve", "sim", "--vertices", "5", "--edges", "0-1 0-7"])
    assert result.exit_code == 2 and "vertices are 0 to 4" in result.output
    result = runner.invoke(main, ["solve", "sim", "--vertices", "5", "--edges", "0-1 x"])
    assert result.exit_code == 2 and "'x' is not an edge like 0-1" in result.output
