"""Hypothesis strategies: random grammars with every awkward feature the rules allow."""

from __future__ import annotations

from hypothesis import strategies as st

from arena.games.substitution import Grammar, ProductionGroup, Settings, SubstitutionGame

LEFTS = "SABCT"          # T often has no group: a useless nonterminal
SYMBOLS = "SABCTab"      # cycles (A->aA, S->S), terminals, empty alternatives


@st.composite
def grammars(draw: st.DrawFn, max_groups: int = 7) -> Grammar:
    count = draw(st.integers(1, max_groups))
    groups = []
    for _ in range(count):
        left = draw(st.sampled_from(LEFTS))
        alternatives = draw(
            st.lists(st.text(SYMBOLS, min_size=0, max_size=4), min_size=1, max_size=3)
        )
        groups.append(ProductionGroup(left, tuple(alternatives)))
    weights = draw(st.lists(st.integers(1, 6), min_size=count, max_size=count))
    return Grammar(tuple(groups), tuple(weights))


@st.composite
def games(draw: st.DrawFn, max_moves: int = 12) -> SubstitutionGame:
    return SubstitutionGame(Settings(draw(grammars()), draw(st.integers(1, max_moves))))
