from __future__ import annotations

import itertools
import json
import random
from functools import cache

import pytest
from click.testing import CliRunner

from arena.games.durak._search import PySearch
from arena.games.durak.rules import (
    DurakSettings,
    DurakState,
    apply_move,
    initial_state,
    legal_moves,
    result,
)
from arena.games.durak.solver import COMPILED, DurakSolver, Position
from arena.games.durak.store import SolutionStore
from arena.games.durak.values import decode


def encoded_for_seat0(settings: DurakSettings, state: DurakState) -> int:
    end = result(settings, state)
    assert end is not None
    payoff = end.payoffs[0]
    if end.winner is None:
        return 0
    if payoff == 0:
        return 1 if end.winner == 0 else -1
    return 2 * payoff


def brute_value(settings: DurakSettings) -> int:
    """Plain minimax over the rules' own states, every reply: the reference."""

    @cache
    def value(state: DurakState) -> int:
        if state.over:
            return encoded_for_seat0(settings, state)
        values = [value(apply_move(state, m)) for m in legal_moves(settings, state)]
        return max(values) if state.to_move == 0 else min(values)

    return value(initial_state(settings))


def random_deals(count: int, low: int, high: int, seed: int, weighted: bool):
    rng = random.Random(seed)
    while count:
        n = rng.randint(low, high)
        deal = "".join(rng.choice("01") for _ in range(n))
        if "0" in deal and "1" in deal:
            weights = tuple(rng.randint(-4, 4) for _ in range(n)) if weighted else None
            yield deal, weights
            count -= 1


@pytest.mark.parametrize("draw_rule", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_solver_matches_brute_force(draw_rule: bool, weighted: bool) -> None:
    solver = DurakSolver()
    for deal, weights in random_deals(30, 2, 7, seed=7 + weighted, weighted=weighted):
        settings = DurakSettings(deal, weights, draw_rule)
        position, _ = Position.from_hands(settings.hand(0), settings.hand(1), weights, draw_rule)
        assert solver.value(position) == brute_value(settings), (deal, weights)


@pytest.mark.parametrize("draw_rule", [False, True])
def test_compiled_and_python_searches_agree(draw_rule: bool) -> None:
    for deal, weights in random_deals(30, 2, 10, seed=3, weighted=False):
        position = Position(deal, weights, draw_rule)
        remaining, mover = position.masks()
        expected = PySearch(len(deal), None, draw_rule).value(remaining, mover)
        assert DurakSolver().value(position) == expected
    for deal, weights in random_deals(20, 2, 9, seed=4, weighted=True):
        position = Position(deal, weights, draw_rule)
        remaining, mover = position.masks()
        expected = PySearch(len(deal), list(weights), draw_rule).value(remaining, mover)
        assert DurakSolver().value(position) == expected


def test_weight_class_keys_agree_with_plain_keys() -> None:
    from arena.games.durak._core import CSearch

    for deal, weights in random_deals(12, 8, 12, seed=21, weighted=True):
        position = Position(deal, weights)
        remaining, mover = position.masks()
        plain = CSearch(len(deal), list(weights), False, compress=False)
        assert DurakSolver().value(position) == plain.value(remaining, mover)


def test_the_extension_is_built() -> None:
    assert COMPILED, "build it: python setup.py build_ext --inplace"


@pytest.mark.parametrize("draw_rule", [False, True])
def test_smallest_beating_card_is_always_an_optimal_beat_without_weights(
    draw_rule: bool,
) -> None:
    """The seed's program only tries the smallest beating card. Without weights that is
    safe: over every position of up to 9 cards and every card laid, no other beat is
    better than the smallest one (checked to 14 cards in docs/games/durak.md)."""
    solver = DurakSolver()
    for size in range(2, 10):
        for owners in map("".join, itertools.product("01", repeat=size)):
            if "0" not in owners or "1" not in owners:
                continue
            position = Position(owners, None, draw_rule)
            for card in position.mover_cards():
                beats = position.beats(card)
                if len(beats) < 2:
                    continue
                values = [solver.reply_value(position, card, b) for b in beats]
                assert min(values) == values[0], (owners, card, beats, values)


def test_smallest_beating_card_can_be_a_mistake_with_weights() -> None:
    # Player 1 (the mover, cards 2,3,7..10 after flipping) lays 2: beating with 4 or 5
    # leaves the layer 22, beating with 6 only 21.
    position = Position("1001110000", (1, 2, 3, 4, 5, 6, 7, 8, 9, -10))
    solver = DurakSolver()
    values = {b: solver.reply_value(position, 2, b) for b in position.beats(2)}
    assert values == {4: 44, 5: 44, 6: 42}


def test_report_of_the_seed_deal() -> None:
    solution = DurakSolver().solve(Position("0110001111"))
    report = solution.to_json()
    assert report["winner"] == "opponent" and report["score"] == 4
    assert report["optimal_moves"] == [4, 5, 6]
    assert report["catch_pass"] == 5 and report["catch_take"] is None
    assert report["replies"]["4"]["best"] == ["beat 7", "beat 8", "beat 9", "beat 10"]


def test_tricky_moves_mean_what_they_say() -> None:
    solver = DurakSolver()
    seen_take = seen_pass = 0
    for deal, _ in random_deals(60, 4, 10, seed=11, weighted=False):
        solution = solver.solve(Position(deal))
        lays = {lay.card: lay for lay in solution.lays}
        if solution.catch_take is not None:
            seen_take += 1
            lay = lays[solution.catch_take]
            assert lay.value == solution.value
            assert lay.replies[0] == lay.value
            assert all(v > lay.value for r, v in lay.replies.items() if r)
        if solution.catch_pass is not None:
            seen_pass += 1
            lay = lays[solution.catch_pass]
            assert lay.value == solution.value and lay.replies[0] > lay.value
        for lay in solution.lays:
            assert lay.value == min(lay.replies.values())
        assert solution.value == max(lay.value for lay in solution.lays)
    assert seen_take and seen_pass


def test_decode() -> None:
    assert decode(1).winner == "mover" and decode(1).score == 0
    assert decode(-1).winner == "opponent" and decode(-1).score == 0
    assert decode(0).winner == "draw"
    assert decode(-8).payoff == -4 and decode(6).score == 3


def test_store_round_trip_and_cli(tmp_path) -> None:
    from arena.cli import main

    db = tmp_path / "durak.sqlite"
    runner = CliRunner()
    args = ["solve", "durak", "--cards", "0110001111", "--db", str(db), "--json"]
    first = json.loads(runner.invoke(main, args, catch_exceptions=False).output)
    second = json.loads(runner.invoke(main, args, catch_exceptions=False).output)
    assert not first["from_db"] and second["from_db"]
    first.pop("seconds"), second.pop("seconds"), first.pop("from_db"), second.pop("from_db")
    assert first == second
    assert first["winner"] == 1 and first["score"] == 4
    flipped = json.loads(
        runner.invoke(
            main, ["solve", "durak", "--cards", "1001110000", "--first", "1", "--no-db", "--json"]
        ).output
    )
    assert flipped["winner"] == 0 and flipped["optimal_moves"] == first["optimal_moves"]
    with SolutionStore(db) as store:
        assert store.count() == 1
        assert store.get(Position("0110001111")).value == -8


def test_cli_rejects_bad_deals() -> None:
    from arena.cli import main

    result = CliRunner().invoke(main, ["solve", "durak", "--cards", "01x", "--no-db"])
    assert result.exit_code != 0 and "0s and 1s" in result.output
    result = CliRunner().invoke(
        main, ["solve", "durak", "--cards", "01", "--weights", "1", "--no-db"]
    )
    assert result.exit_code != 0 and "weights" in result.output


def test_precompute(tmp_path) -> None:
    from arena.cli import main

    db = tmp_path / "d.sqlite"
    result = CliRunner().invoke(main, ["solve", "durak", "--precompute", "5", "--db", str(db)])
    assert result.exit_code == 0, result.output
    with SolutionStore(db) as store:
        assert store.count() == sum(2**n - 2 for n in range(2, 6))


def test_the_compiled_search_is_in_use() -> None:
    """Its speed (a 20-card deal in milliseconds) is measured by bench/bench_durak.py."""
    from arena.games.durak import solver

    assert solver.COMPILED


def test_cli_accepts_played_cards_as_dots() -> None:
    from arena.cli import main

    runner = CliRunner()
    dotted = json.loads(
        runner.invoke(main, ["solve", "durak", "--cards", "0.1.0", "--no-db", "--json"]).output
    )
    plain = json.loads(
        runner.invoke(main, ["solve", "durak", "--cards", "010", "--no-db", "--json"]).output
    )
    assert dotted["value"] == plain["value"]
    assert dotted["optimal_moves"] == [{1: 1, 3: 5}[c] for c in plain["optimal_moves"]]
    result = runner.invoke(main, ["solve", "durak", "--cards", "0..0", "--no-db"])
    assert result.exit_code != 0 and "needs a card" in result.output
