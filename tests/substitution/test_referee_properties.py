"""Property tests: legal play is always accepted; every rule-breaking edit is rejected
with the right code; the state is never changed by a rejection."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.game import CHANCE, TERMINAL, Termination
from arena.games.substitution import GameState, SubstitutionGame, random_turn
from arena.games.substitution.movestring import MoveString
from arena.match import play_match
from arena.referee import Referee
from arena.registry import default_registry
from tests.substitution.strategies import games

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_random_legal_play_is_always_accepted(game: SubstitutionGame, seed: int) -> None:
    bots = [default_registry().make_bot(game, "random") for _ in range(2)]
    match = play_match(game, bots, seed=seed)
    assert match.outcome is not None
    assert match.outcome.termination is Termination.NORMAL, match.outcome.detail
    assert len(match.turns) == 2 * game.moves


def positions(game: SubstitutionGame, seed: int):
    """Each position of a random game (with its roll) and the random move made there."""
    rng = random.Random(seed)
    state = game.initial_state()
    referee = Referee(game)
    while (seat := game.to_act(state)) != TERMINAL:
        if seat == CHANCE:
            state = game.apply_chance(state, rng.randrange(game.compiled.n_groups))
            continue
        steps = random_turn(game.compiled, state, rng.random)
        yield state, steps
        verdict = referee.check(state, MoveString(steps))
        assert verdict.state is not None
        state = verdict.state


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_the_state_sent_is_every_word_the_bank_and_the_scores(game: SubstitutionGame,
                                                             seed: int) -> None:
    """`GameState.json_parts` (the core builds what `state_to_json` sends) says what the
    state's own parts say, and a player scores 3 + length for each finished word."""
    for state, _ in positions(game, seed):
        sent = game.state_to_json(state)
        assert sent["derivations"] == [[word.text for word in words]
                                       for words in state.derivations]
        assert sent["bank"] == list(state.bank)
        assert sent["scores"] == list(state.scores()) == [
            sum(3 + len(word.text) for word in words if word.finished)
            for words in state.derivations]
        assert game.state_from_json(sent) == state


def replay_prefix(game: SubstitutionGame, state: GameState, steps) -> tuple[list[str], list[int]]:
    """Derivation texts and bank after applying `steps` (all legal) in a turn."""
    turn = game.turn(state)
    for step in steps:
        turn.apply(*step)
    return [w.text for w in turn.derivations], list(turn.bank)


def expect(game: SubstitutionGame, state: GameState, steps, code: str) -> None:
    snapshot = repr(state)
    verdict = Referee(game).check(state, MoveString(tuple(steps)))
    assert verdict.rejection is not None, f"{steps} accepted, expected {code}"
    assert verdict.rejection.code == code, (steps, verdict.rejection)
    assert repr(state) == snapshot


@SETTINGS
@given(games(), st.integers(0, 2**32), st.data())
def test_every_mutation_is_rejected_with_its_code(game: SubstitutionGame, seed: int, data) -> None:
    n = game.compiled.n_groups
    groups = game.grammar.groups
    for state, steps in positions(game, seed):
        roll = state.roll
        player = state.turn % 2
        words = [w.text for w in state.derivations[player]]
        if not steps:
            # The roll fits nowhere: the only legal move is empty. Anything else is wrong.
            if words:
                expect(game, state, [(0, roll, 0)], "nonterminal-missing")
            expect(game, state, [(-1, roll, 0)], "new-derivation-not-s")
            continue
        # An applicable roll left unapplied.
        expect(game, state, [], "rolled-group-unapplied")
        k = data.draw(st.integers(0, len(steps) - 1), label="step")
        word, group, production = steps[k]
        before_words, before_bank = replay_prefix(game, state, steps[:k])
        # Index out of range.
        expect(game, state, [*steps[:k], (word, n + data.draw(st.integers(0, 5)), production)], "group-out-of-range")
        expect(game, state, [*steps[:k], (word, group, len(groups[group].alternatives))], "production-out-of-range")
        expect(game, state, [*steps[:k], (len(before_words) + data.draw(st.integers(0, 3)), group, production)], "word-out-of-range")
        # The first step must be the rolled group.
        if k == 0 and n > 1:
            other = data.draw(st.sampled_from([g for g in range(n) if g != roll]))
            expect(game, state, [(word, other, 0)], "not-rolled-group")
        # A derivation without the nonterminal.
        left = groups[group].left
        lacking = [i for i, text in enumerate(before_words) if left not in text]
        if lacking:
            expect(game, state, [*steps[:k], (lacking[0], group, production)], "nonterminal-missing")
        if k > 0:
            # A bank step that starts a new derivation; a group the bank does not hold.
            expect(game, state, [*steps[:k], (-1, group, production)], "new-derivation-from-bank")
            absent = [g for g in range(n) if before_bank[g] == 0]
            if absent:
                expect(game, state, [*steps[:k], (word, absent[0], 0)], "not-in-bank")
        elif left != "S":
            expect(game, state, [(-1, group, production)], "new-derivation-not-s")
        # Stopping early: the step just dropped was mandatory.
        if k > 0:
            expect(game, state, list(steps[:k]), "bank-group-applicable")


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_legal_steps_agree_with_the_referee(game: SubstitutionGame, seed: int) -> None:
    for state, steps in positions(game, seed):
        turn = game.turn(state)
        for step in steps:
            options = turn.legal_steps()
            assert step in options
            for option in options[:20]:
                assert turn.check(*option) is None
            turn.apply(*step)
        assert turn.can_end()
