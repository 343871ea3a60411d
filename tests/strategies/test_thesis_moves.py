"""The moves shown in thesis sections 4.2-4.4."""

from __future__ import annotations

from bots.substitution.search import SearchBot
from bots.substitution.shortwords import ShortWordsBot
from tests.strategies.examples import FOUR, THREE, play, position, texts_along


def test_stupid_short_words_section_4_2():
    # S->A[0], A->BB|aA[2], B->b[2], A->a[1]; derivation A, roll group 2 (0-based 1)
    game, state = position(FOUR, [0, 2, 2, 1])
    move, after = play(game, ShortWordsBot(game, "M1"), state)
    # The thesis writes "A => aA => a": the productions A->aA then A->a (from the bank);
    # applied to the derivation that gives aA, then aa.
    assert move.steps == ((0, 1, 1), (0, 3, 0))
    assert texts_along(game, state, move) == ["aA", "aa"]
    assert after == ("aa",)


def test_stupid_short_words_without_a_to_a_loops():
    game, state = position(FOUR, [0, 2, 2, 0])
    move, _ = play(game, ShortWordsBot(game, "M1"), state)
    # the thesis's "A => aA => aaA => aaaaA" (sic): A->aA three times
    assert texts_along(game, state, move) == ["aA", "aaA", "aaaA"]


def test_short_words_section_4_3_first_example():
    game, state = position(THREE, [0, 1, 2])
    move, _ = play(game, ShortWordsBot(game, "M2"), state)
    assert texts_along(game, state, move) == ["BB", "bB", "bb"]  # A => BB => bB => bb


def test_short_words_section_4_3_second_example():
    game, state = position(FOUR, [0, 1, 2, 0])
    move, _ = play(game, ShortWordsBot(game, "M2"), state)
    assert texts_along(game, state, move) == ["aA", "aaA"]  # A -> aA -> aaA


def test_search_depth_4_section_4_4():
    game, state = position(FOUR, [0, 1, 2, 0], mine=(), roll=0)
    move, after = play(game, SearchBot(game, 4), state)
    assert texts_along(game, state, move) == ["A", "BB", "bB", "bb"]  # S => A => BB => bB => bb
    assert after == ("bb",)


def test_search_prefers_the_word_with_the_best_metric():
    game, state = position(FOUR, [0, 0, 2, 0], mine=("BaA", "aA"), roll=3)
    move, _ = play(game, SearchBot(game, 2), state)
    assert move.steps[0][0] == 1  # "aA" has the larger M2 than "BaA"
