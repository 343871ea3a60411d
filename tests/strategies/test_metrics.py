"""The metrics' worked examples from thesis sections 4.3 and 4.6."""

from __future__ import annotations

import pytest

from arena.games.substitution import Grammar, preset
from bots.substitution.metrics import DEFAULT_TOLERANCE, Metrics


def test_default_tolerance_is_the_thesis_delta():
    assert DEFAULT_TOLERANCE == 0.05


def test_m2_first_example():
    metrics = Metrics(Grammar.of(["S->A", "A->BB|aA", "B->b"], (1, 1, 1)))
    (s_a,), (a_bb, a_aa), (b_b,) = metrics.m2.productions
    assert round(s_a, 6) == 0.037037
    assert round(a_bb, 6) == 0.111111
    assert round(a_aa, 6) == 0.037037
    assert b_b == 1


def test_m2_second_example_needs_a_tight_tolerance():
    grammar = Grammar.of(["S->A", "A->BB|aA", "B->b", "A->a"], (1, 1, 1, 1))
    (s_a,), (a_bb, a_aa), (b_b,), (a_a,) = Metrics(grammar, tolerance=1e-5).m2.productions
    assert f"{s_a:.6f}" == "0.333329"
    assert a_bb == 0.0625
    assert f"{a_aa:.6f}" == "0.333329"
    assert b_b == a_a == 1
    # With the thesis's delta 0.05 the same sweep stops early.
    (s_a,), _, _, _ = Metrics(grammar).m2.productions
    assert s_a == pytest.approx(0.31640625)


def test_m2_and_m3_of_the_section_4_6_grammar():
    metrics = Metrics(Grammar.of(["S->AA|DD", "A->BB", "D->ee", "C->DD", "B->CC"], (1, 2, 3, 2, 1)))
    m2_aa, m2_dd = metrics.m2.productions[0]
    assert m2_aa == pytest.approx(1.03988e-18, rel=1e-4)
    assert m2_dd == pytest.approx(0.11111, rel=1e-4)
    m3_aa, m3_dd = metrics.m3.productions[0]
    assert m3_aa == pytest.approx(0.00011, rel=0.05)
    assert f"{m3_dd:.5f}" == "0.16667"
    assert m3_dd / m3_aa == pytest.approx(1458)


def test_m3_example_ratios():
    # Section 4.6 says the difference "was 8748 times, after the square root about 93.53":
    # those are 1/M3(S->AA) and its root; the two productions differ 1458x, 38.2x.
    metrics = Metrics(Grammar.of(["S->AA|DD", "A->BB", "D->ee", "C->DD", "B->CC"], (1, 2, 3, 2, 1)))
    m3_aa, m3_dd = metrics.m3.productions[0]
    assert m3_aa == pytest.approx(1 / 8748) and m3_dd == pytest.approx(1 / 6)
    assert 1 / m3_aa == pytest.approx(8748) and (1 / m3_aa) ** 0.5 == pytest.approx(93.53, abs=0.005)
    assert m3_dd / m3_aa == pytest.approx(1458) and (m3_dd / m3_aa) ** 0.5 == pytest.approx(38.18, abs=0.005)


def test_m1_counts_nonterminals():
    metrics = Metrics(Grammar.of(["S->A", "A->BB|aA", "B->b", "A->a"], (1, 1, 1, 1)))
    assert metrics.m1.productions == ((1.0,), (2.0, 1.0), (0.0,), (0.0,))
    assert metrics.m1.groups == (1.0, 1.0, 0.0, 0.0)
    assert metrics.m1.text("aABB") == 3


def test_useless_nonterminals_are_worth_zero():
    metrics = Metrics(preset("trap"))
    s_group = metrics.m2.productions[0]
    assert s_group[-1] == 0  # S->T: T heads no group
    assert metrics.m3.productions[0][-1] == 0
    assert all(0 <= v <= 1 for row in metrics.m2.productions for v in row)


def test_cycles_and_empty_alternatives_terminate():
    metrics = Metrics(Grammar.of(["S->S|", "A->AA", "S->AS"], (1, 1, 1)))
    assert metrics.m2.productions[1] == (0.0,)
    assert metrics.m2.productions[0][1] == 1.0


def test_tolerance_must_be_positive():
    with pytest.raises(ValueError):
        Metrics(preset("medium"), tolerance=0)
