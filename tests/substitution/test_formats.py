"""Grammar text format, the thesis's XML settings, presets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import GrammarError, SettingsError
from arena.games.substitution import (
    DICE_WEIGHTS,
    PRESETS,
    Grammar,
    ProductionGroup,
    Settings,
    load_grammar,
    preset,
)
from tests.substitution.strategies import grammars

MEDIUM_TEXT = """\
S->ABC
A->aA|B
A->bc|CA
A->a
S->AB|AC
B->b
B->BBB
C->AA|c
C->A|B|c
C->T|A
B->abacabade
"""


def test_medium_is_the_grammar_of_section_1():
    assert preset("medium").to_text() == MEDIUM_TEXT
    assert preset("medium").weights == DICE_WEIGHTS == (1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)


@pytest.mark.parametrize(
    ("name", "index", "text"),
    [
        ("low", 4, "A->AB|AC"),
        ("trap", 0, "S->ABC|T"),
        ("trap", 4, "S->AB|AC|T"),
        ("classic", 7, "C->CC|c"),
        ("low-s", 9, "C->B|A"),
        ("long-chain", 7, "J->KKefteme|Cabaka"),
    ],
)
def test_presets_differ_from_medium_where_the_thesis_says(name, index, text):
    grammar = preset(name)
    assert str(grammar.groups[index]) == text
    assert len(grammar.groups) == 11


def test_every_preset_loads():
    for name in PRESETS:
        assert load_grammar(name) == preset(name)


def test_text_format_tolerates_comments_blank_lines_and_spaces():
    grammar = Grammar.from_text("# mine\n\n  S -> AB | a \nA->\nweights: 2 3\n")
    assert [str(g) for g in grammar.groups] == ["S->AB|a", "A->"]
    assert grammar.groups[1].alternatives == ("",)
    assert grammar.weights == (2, 3)


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("S->A\nA a\n", 2, "no '->'"),
        ("S->A\nab->a\n", 2, "not one capital letter"),
        ("S->A\ns->a\n", 2, "not one capital letter"),
        ("S->A\n->a\n", 2, "not one capital letter"),
        ("S->A\nA->a b\n", 2, "whitespace"),
        ("S->A\nA->a\nweights: 1 2 3\n", 3, "3 weights for 2"),
        ("S->A\nweights: 1 0\nA->a\n", 2, "not a positive integer"),
        ("S->A\nweights: 1 x\n", 2, "not a positive integer"),
        ("# nothing\n\n", 0, "no production groups"),
        ("S->A\nB->->c\n", 2, "a second '->'"),
        ("S->a||b\n", 1, "empty alternative between two '|'"),
    ],
)
def test_text_errors_name_the_line_and_the_problem(text, line, reason):
    with pytest.raises(GrammarError) as caught:
        Grammar.from_text(text)
    assert caught.value.line == line
    assert reason in str(caught.value)


@settings(max_examples=200, deadline=None)
@given(grammars())
def test_text_round_trip(grammar):
    assert Grammar.from_text(grammar.to_text()) == grammar


def test_text_refuses_what_it_cannot_write():
    grammar = Grammar.of(["S->A"])
    from arena.games.substitution import ProductionGroup

    odd = Grammar((ProductionGroup("S", ("a b",)), ProductionGroup("A", ("x|y",))), (1, 1))
    assert grammar.to_text() == "S->A\n"
    with pytest.raises(GrammarError, match="whitespace"):
        odd.to_text()


XML = """<GameSettings NumberOfMoves="200">
  <Productions>
    <Production Left="S">
      <Right>ABC</Right>
    </Production>
    <Production Left="A">
      <Right>aA</Right>
      <Right></Right>
    </Production>
  </Productions>
  <RandomSettings TotalPossibility="3">
    <Possibilities>
      <Possibility>1</Possibility>
      <Possibility>2</Possibility>
    </Possibilities>
  </RandomSettings>
</GameSettings>"""


def test_xml_reads_the_thesis_layout_and_writes_it_back_identically():
    loaded = Settings.from_xml(XML)
    assert loaded.moves == 200
    assert [str(g) for g in loaded.grammar.groups] == ["S->ABC", "A->aA|"]
    assert loaded.grammar.weights == (1, 2)
    assert loaded.to_xml() == XML


@settings(max_examples=200, deadline=None)
@given(grammars(), st.integers(1, 1000), st.text(alphabet="<>&\"' |ab\tS", max_size=5))
def test_xml_round_trip_keeps_every_character(grammar, moves, odd):
    from arena.games.substitution import ProductionGroup

    groups = (*grammar.groups, ProductionGroup("B", (odd,)))
    tricky = Settings(Grammar(groups, (*grammar.weights, 1)), moves)
    assert Settings.from_xml(tricky.to_xml()) == tricky


@pytest.mark.parametrize(
    ("edit", "line", "reason"),
    [
        (lambda x: x.replace('NumberOfMoves="200"', 'NumberOfMoves="x"'), 1, "not an integer"),
        (lambda x: x.replace('NumberOfMoves="200"', 'NumberOfMoves="0"'), 1, "not from 1"),
        (lambda x: x.replace('Left="A"', 'Left="AB"'), 6, "not one capital letter"),
        (lambda x: x.replace('Left="A"', 'Left="a"'), 6, "not one capital letter"),
        (lambda x: x.replace(' Left="A"', ""), 6, "no Left attribute"),
        (lambda x: x.replace('TotalPossibility="3"', 'TotalPossibility="4"'), 11, "sum to 3, not TotalPossibility 4"),
        (lambda x: x.replace("      <Possibility>2</Possibility>\n", ""), 11, "1 possibilities for 2 productions"),
        (lambda x: x.replace("<Possibility>2<", "<Possibility>-2<"), 14, "not positive"),
        (lambda x: x.replace("</Productions>", "</Production>"), 10, "not well-formed"),
        (lambda x: x.replace("<GameSettings", "<Settings").replace("</GameSettings", "</Settings"), 1, "not <GameSettings>"),
        (lambda x: x.replace("<Right>ABC</Right>", "<Left>ABC</Left>"), 4, "<Left> inside <Production>"),
    ],
)
def test_xml_errors_name_the_line_and_the_problem(edit, line, reason):
    with pytest.raises(GrammarError) as caught:
        Settings.from_xml(edit(XML))
    assert reason in str(caught.value)
    assert caught.value.line == line


def test_xml_refuses_entities():
    bomb = '<?xml version="1.0"?><!DOCTYPE g [<!ENTITY a "aaaa">]><GameSettings NumberOfMoves="&a;"/>'
    with pytest.raises(GrammarError):
        Settings.from_xml(bomb)


def test_load_grammar_reads_both_file_formats(tmp_path):
    (tmp_path / "g.txt").write_text(MEDIUM_TEXT, encoding="utf-8")
    (tmp_path / "g.xml").write_text(Settings.preset("trap").to_xml(), encoding="utf-8")
    assert load_grammar(str(tmp_path / "g.txt")) == preset("medium")
    assert load_grammar(str(tmp_path / "g.xml")) == preset("trap")
    (tmp_path / "bad.txt").write_text("S->A\nA a\n", encoding="utf-8")
    with pytest.raises(GrammarError, match="line 2"):
        load_grammar(str(tmp_path / "bad.txt"))
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(GrammarError, match="not UTF-8"):
        load_grammar(str(tmp_path / "bin"))
    with pytest.raises(SettingsError, match="neither a grammar preset"):
        load_grammar(str(tmp_path / "missing"))


def test_settings_json_round_trip_and_errors():
    original = Settings.preset("low-s", moves=37)
    assert Settings.from_json(original.to_json()) == original
    for broken in ({}, {"groups": "S->A"}, {"groups": [{"left": "s", "alternatives": ["a"]}], "weights": [1], "moves": 3},
                   {"groups": [{"left": "S", "alternatives": ["a"]}], "weights": [0], "moves": 3},
                   {"groups": [{"left": "S", "alternatives": ["a"]}], "weights": [1], "moves": -1},
                   {"groups": [{"left": "S", "alternatives": [1]}], "weights": [1], "moves": 3}):
        with pytest.raises(SettingsError):
            Settings.from_json(broken)


def test_the_empty_word_first_last_or_as_epsilon():
    assert Grammar.from_text("S->|a\nA->aA|\nB->a|ε|b\n").groups == (
        ProductionGroup("S", ("", "a")), ProductionGroup("A", ("aA", "")),
        ProductionGroup("B", ("a", "", "b")))
    middle = Grammar((ProductionGroup("S", ("a", "", "b")),), (1,))
    assert middle.to_text() == "S->a|ε|b\n" and Grammar.from_text(middle.to_text()) == middle


def test_warnings_of_a_grammar_that_plays_badly():
    assert Grammar.from_text("S->AB\nA->a\nB->b\n").warnings() == []
    assert Grammar.from_text("S->aA\nA->bA\nB->b\n").warnings() == [(
        "no word can ever be finished: every derivation from S keeps a nonterminal that no "
        "group turns into terminals")]
    assert Grammar.from_text("A->a\n").warnings() == [
        "no group starts from S: no derivation can begin"]
