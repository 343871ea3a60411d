"""Every rule of the substitution game, one at a time, on tiny grammars."""

from __future__ import annotations

import pytest

from arena.game import CHANCE, TERMINAL
from arena.games.substitution import Derivation
from tests.substitution.tiny import judge, state, texts, tiny_game

# 0: S->AB  1: A->a  2: B->b  3: A->aA  4: S->  (empty alternative)  5: C->c
GAME = tiny_game(["S->AB", "A->a", "B->b", "A->aA", "S->|a", "C->c"])


def accepted(before, move):
    verdict = judge(GAME, before, move)
    assert verdict.rejection is None, verdict.rejection
    return verdict.state


def rejected(before, move, code):
    verdict = judge(GAME, before, move)
    assert verdict.rejection is not None, f"{move!r} was accepted"
    assert verdict.rejection.code == code, verdict.rejection
    return verdict.rejection


class TestRolledSGroup:
    def test_starts_a_new_derivation(self):
        after = accepted(state(GAME, roll=0), "-1 0 0")
        assert texts(after) == ("AB",)
        assert after.turn == 1 and after.roll is None

    def test_must_be_applied_even_without_derivations(self):
        rejection = rejected(state(GAME, roll=0), "", "rolled-group-unapplied")
        assert "S group" in rejection.message

    def test_rewrites_an_s_inside_a_derivation(self):
        after = accepted(state(GAME, ["aSb"], roll=0), "0 0 0")
        assert texts(after) == ("aABb",)

    def test_cannot_rewrite_a_derivation_without_s(self):
        rejected(state(GAME, ["AB"], roll=0), "0 0 0", "nonterminal-missing")

    def test_empty_alternative_makes_an_empty_word_worth_three(self):
        after = accepted(state(GAME, roll=4), "-1 4 0")
        assert texts(after) == ("",)
        assert after.derivations[0][0].finished
        assert after.scores() == (3, 0)


class TestRolledOtherGroup:
    def test_goes_to_the_bank_when_nothing_holds_its_nonterminal(self):
        after = accepted(state(GAME, ["B"], roll=1), "")
        assert after.bank == (0, 1, 0, 0, 0, 0)
        assert texts(after) == ("B",)

    def test_must_be_applied_when_a_derivation_holds_it(self):
        rejection = rejected(state(GAME, ["bA"], roll=1), "", "rolled-group-unapplied")
        assert "derivation 0" in rejection.message

    def test_cannot_start_a_new_derivation(self):
        rejected(state(GAME, ["A"], roll=1), "-1 1 0", "new-derivation-not-s")

    def test_bank_is_not_used_in_a_turn_whose_roll_went_to_the_bank(self):
        # Bank group 1 (A->a) applies to "A", but the roll (C->c) fits nowhere: the turn
        # ends at once; using the bank is not even allowed.
        before = state(GAME, ["A"], bank=[0, 1, 0, 0, 0, 0], roll=5)
        after = accepted(before, "")
        assert after.bank == (0, 1, 0, 0, 0, 1)
        rejected(before, "0 1 0", "not-rolled-group")

    def test_replaces_the_leftmost_occurrence(self):
        after = accepted(state(GAME, ["BAB"], roll=2), "0 2 0")
        assert texts(after) == ("bAB",)

    def test_player_chooses_among_derivations(self):
        after = accepted(state(GAME, ["A", "xA"], roll=1), "1 1 0")
        assert texts(after) == ("A", "xa")


class TestFirstStep:
    def test_must_be_the_rolled_group(self):
        rejected(state(GAME, ["AB"], bank=[0, 0, 1, 0, 0, 0], roll=1), "0 2 0", "not-rolled-group")

    @pytest.mark.parametrize(
        ("move", "code"),
        [
            ("0 9 0", "group-out-of-range"),
            ("0 -1 0", "group-out-of-range"),
            ("0 1 5", "production-out-of-range"),
            ("0 1 -1", "production-out-of-range"),
            ("3 1 0", "word-out-of-range"),
            ("-2 1 0", "word-out-of-range"),
            ("1 1 0", "nonterminal-missing"),
            ("0 1", "malformed"),
            ("0 1 0,", "malformed"),
            ("zero 1 0", "malformed"),
            ("0,1,0", "malformed"),
        ],
    )
    def test_bad_steps_are_rejected_with_a_code(self, move, code):
        rejection = rejected(state(GAME, ["A", "b"], roll=1), move, code)
        if code != "malformed":
            assert rejection.step == 0
            assert f"step 0 ({move})" in rejection.message

    def test_surrounding_whitespace_is_tolerated(self):
        accepted(state(GAME, ["A"], roll=1), "  0 1 0 \n")
        accepted(state(GAME, ["A"], roll=1), "0  1\t0")


class TestBank:
    BEFORE = state(GAME, ["AB"], bank=[0, 1, 0, 0, 0, 0], roll=2)

    def test_applicable_bank_group_must_be_used(self):
        rejection = rejected(self.BEFORE, "0 2 0", "bank-group-applicable")
        assert "bank group 1 (A->a)" in rejection.message

    def test_using_it_removes_one_copy(self):
        after = accepted(self.BEFORE, "0 2 0, 0 1 0")
        assert texts(after) == ("ab",)
        assert after.bank == (0, 0, 0, 0, 0, 0)

    def test_group_not_in_the_bank(self):
        rejection = rejected(self.BEFORE, "0 2 0, 0 3 0", "not-in-bank")
        assert rejection.step == 1

    def test_group_no_longer_in_the_bank_within_the_turn(self):
        before = state(GAME, ["AAB"], bank=[0, 1, 0, 0, 0, 0], roll=2)
        rejection = rejected(before, "0 2 0, 0 1 0, 0 1 0", "not-in-bank")
        assert "any more" in rejection.message and rejection.step == 2

    def test_player_chooses_the_bank_group(self):
        before = state(GAME, ["AB"], bank=[0, 1, 0, 2, 0, 0], roll=2)
        # A->aA then A->a: both bank groups apply; any order is the player's choice
        after = accepted(before, "0 2 0, 0 3 0, 0 1 0")
        assert texts(after) == ("aab",) and after.bank == (0, 0, 0, 1, 0, 0)
        # ...but after A->aA the bank still holds A->aA and A->a, and "aA" holds A
        rejected(before, "0 2 0, 0 3 0", "bank-group-applicable")

    def test_bank_groups_apply_to_derivations_made_this_turn(self):
        before = state(GAME, bank=[0, 1, 1, 0, 0, 0], roll=0)
        after = accepted(before, "-1 0 0, 0 1 0, 0 2 0")
        assert texts(after) == ("ab",)

    def test_bank_cannot_start_a_new_derivation(self):
        before = state(GAME, bank=[1, 0, 0, 0, 0, 0], roll=4)
        rejected(before, "-1 4 1, -1 0 0", "new-derivation-from-bank")

    def test_a_bank_group_for_an_absent_nonterminal_may_stay(self):
        before = state(GAME, ["A"], bank=[0, 0, 3, 0, 0, 0], roll=1)
        after = accepted(before, "0 1 0")
        assert after.bank == (0, 0, 3, 0, 0, 0)

    def test_only_the_movers_derivations_count(self):
        before = state(GAME, ["A"], theirs=["B"], bank=[0, 0, 1, 0, 0, 0], roll=1)
        accepted(before, "0 1 0")
        rejected(before, "0 1 0, 0 2 0", "nonterminal-missing")


class TestRejectionLeavesStateAlone:
    def test_state_is_untouched(self):
        before = state(GAME, ["AB"], bank=[0, 1, 0, 0, 0, 0], roll=2)
        snapshot = repr(before)
        judge(GAME, before, "0 2 0")
        assert repr(before) == snapshot


class TestScoringAndFlow:
    def test_scores_count_finished_words_only(self):
        game = tiny_game(["S->AB", "A->a"], moves=1)
        final = state(game, ["ab", "aB", "abc"], theirs=["xyz"])
        final = type(final).create(2, 2, (["ab", "aB", "abc"], ["xyz"]))
        outcome = game.outcome(final)
        assert outcome.scores == (5 + 6, 6)
        assert outcome.winner == 0

    def test_equal_scores_are_a_draw(self):
        game = tiny_game(["S->AB"], moves=1)
        final = type(state(game)).create(1, 2, (["ab"], ["ba"]))
        assert game.outcome(final).winner is None
        assert game.outcome(final).result == "draw"

    def test_players_alternate_and_the_game_ends_after_n_turns_each(self):
        game = tiny_game(["S->a"], moves=2)
        current = game.initial_state()
        seen = []
        while (seat := game.to_act(current)) != TERMINAL:
            if seat == CHANCE:
                current = game.apply_chance(current, 0)
                continue
            seen.append(seat)
            verdict = judge(game, current, "-1 0 0")
            current = verdict.state
        assert seen == [0, 1, 0, 1]
        assert game.outcome(current).scores == (8, 8)

    def test_a_nonterminal_without_group_never_finishes(self):
        after = accepted(state(GAME, ["A"], roll=3), "0 3 0")
        assert texts(after) == ("aA",)
        word = Derivation("aTb")
        assert not word.finished and word.score == 0 and word.count("T") == 1


class TestRefereeGuards:
    def test_wrong_player(self):
        from arena.referee import Referee

        verdict = Referee(GAME).check(state(GAME, ["A"], roll=1), "0 1 0", player=1)
        assert verdict.rejection.code == "not-your-turn"

    def test_roll_not_made(self):
        verdict = judge(GAME, state(GAME, ["A"]), "0 1 0")
        assert verdict.rejection.code == "missing-roll"

    def test_roll_given_to_the_referee(self):
        from arena.referee import Referee

        verdict = Referee(GAME).check(state(GAME, ["A"]), "0 1 0", player=0, chance=1)
        assert verdict.accepted and texts(verdict.state) == ("a",)
        verdict = Referee(GAME).check(state(GAME, ["A"]), "0 1 0", chance=17)
        assert verdict.rejection.code == "bad-roll"

    def test_game_over(self):
        game = tiny_game(["S->a"], moves=1)
        final = type(state(game)).create(1, 2, ((), ()))
        assert judge(game, final, "").rejection.code == "game-over"

    def test_non_string_garbage_is_a_rejection(self):
        from arena.referee import Referee

        for garbage in ("\x00\xff", "1 2 3 " * 10, "9" * 50 + " 0 0", "٣ 1 0"):
            verdict = Referee(GAME).check(state(GAME, ["A"], roll=1), garbage)
            assert verdict.rejection is not None


class TestLegalOptions:
    def test_first_steps_of_an_s_roll(self):
        turn = GAME.turn(state(GAME, ["xS", "A"], roll=0))
        assert turn.legal_steps() == [(-1, 0, 0), (0, 0, 0)]
        assert not turn.can_end()

    def test_first_steps_when_the_roll_fits_nowhere(self):
        turn = GAME.turn(state(GAME, ["B"], roll=1))
        assert turn.legal_steps() == []
        assert turn.can_end()

    def test_next_steps_come_from_the_bank(self):
        turn = GAME.turn(state(GAME, ["AB"], bank=[0, 1, 0, 1, 0, 0], roll=2))
        turn.apply(0, 2, 0)
        assert turn.legal_steps() == [(0, 1, 0), (0, 3, 0)]
        assert not turn.can_end()
        assert turn.end_problem().code == "bank-group-applicable"
        turn.apply(0, 1, 0)
        assert turn.legal_steps() == [] and turn.can_end()
        assert texts(turn.finish()) == ("ab",)

    def test_undo_restores_everything(self):
        turn = GAME.turn(state(GAME, ["AB"], bank=[0, 1, 0, 1, 0, 0], roll=2))
        turn.apply(0, 2, 0)
        turn.apply(0, 3, 0)
        turn.undo()
        turn.undo()
        assert turn.applied == () and turn.bank == (0, 1, 0, 1, 0, 0)
        assert [w.text for w in turn.derivations] == ["AB"]
        with pytest.raises(IndexError):
            turn.undo()

    def test_illegal_apply_raises_with_the_reason(self):
        turn = GAME.turn(state(GAME, ["AB"], roll=2))
        with pytest.raises(ValueError, match="rolled group 2"):
            turn.apply(0, 1, 0)

    def test_legal_moves_lists_whole_turns(self):
        options = GAME.legal_moves(state(GAME, ["AB"], bank=[0, 1, 0, 1, 0, 0], roll=2))
        assert set(options.moves) == {"0 2 0, 0 1 0", "0 2 0, 0 3 0, 0 1 0"}
        assert options.complete
