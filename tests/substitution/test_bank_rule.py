"""The `bank_rule` setting: ``thesis-program`` judges moves as the thesis program's
`Game.applyMoves` (appendix B) does; logs record the rule and are validated by it."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.errors import GrammarError, SettingsError
from arena.games.substitution import GameState, Settings, SubstitutionGame
from arena.games.substitution.settings import load_settings
from arena.games.substitution.thesis_log import read_thesis_log, write_thesis_log
from arena.match import play_match
from arena.record import read_jsonl, to_jsonl
from arena.registry import default_registry
from arena.validate import parse_log, validate_record
from tests.substitution.strategies import grammars
from tests.substitution.tiny import judge, state, texts, tiny_game

GRAMMAR = ["S->AB", "A->aA|a", "B->b", "A->Bc"]


def both(groups=GRAMMAR):
    return tiny_game(groups), tiny_game(groups, bank_rule="thesis-program")


# -- settings -------------------------------------------------------------------------------


def test_settings_record_the_rule_and_old_settings_mean_strict():
    program = Settings.preset("classic", 10, "thesis-program")
    data = program.to_json()
    assert data["bank_rule"] == "thesis-program"
    assert Settings.from_json(data) == program
    del data["bank_rule"]
    assert Settings.from_json(data).bank_rule == "strict"
    # strict is the default and is not written: older logs and messages are unchanged
    assert "bank_rule" not in Settings.preset("classic").to_json()
    assert Settings.from_json({**data, "bank_rule": "strict"}) == Settings.preset("classic", 10)
    with pytest.raises(SettingsError, match="bank_rule 'lenient' is not one of strict, thesis-program"):
        Settings.from_json({**data, "bank_rule": "lenient"})
    with pytest.raises(SettingsError, match="bank_rule must be one of"):
        Settings.from_json({**data, "bank_rule": 3})


def test_xml_carries_the_rule_only_when_it_is_the_programs():
    strict = Settings.preset("low-s", 7)
    program = Settings.preset("low-s", 7, "thesis-program")
    assert strict.to_xml().splitlines()[0] == '<GameSettings NumberOfMoves="7">'
    assert program.to_xml().splitlines()[0] == '<GameSettings NumberOfMoves="7" BankRule="thesis-program">'
    assert Settings.from_xml(program.to_xml()) == program
    assert Settings.from_xml(strict.to_xml()) == strict
    with pytest.raises(GrammarError, match="BankRule 'x' is not one of"):
        Settings.from_xml(strict.to_xml().replace('NumberOfMoves="7"', 'NumberOfMoves="7" BankRule="x"'))


def test_the_xml_number_of_moves_is_used_unless_a_command_says_otherwise(tmp_path):
    path = tmp_path / "seven.xml"
    path.write_text(Settings.preset("low-s", 7, "thesis-program").to_xml(), encoding="utf-8")
    assert load_settings(str(path)).moves == 7
    assert load_settings(str(path)).bank_rule == "thesis-program"
    assert load_settings(str(path), moves=30, bank_rule="strict") == Settings.preset("low-s", 30)
    assert load_settings("low-s").moves == 200


# -- the program's checks ---------------------------------------------------------------------


def test_the_end_of_turn_bank_obligation_is_not_enforced():
    strict, program = both()
    before = state(strict, mine=["aA"], bank=[0, 0, 1, 1], roll=1)   # B->b and A->Bc banked
    assert judge(strict, before, "0 1 0").rejection.code == "bank-group-applicable"
    after = judge(program, before, "0 1 0").state
    assert texts(after) == ("aaA",) and after.bank == (0, 0, 1, 1)
    # the rolled group still must be applied, as the program checks an empty move
    assert judge(program, before, "").rejection.code == "rolled-group-unapplied"


def test_an_out_of_range_word_starts_a_derivation_for_an_s_group_and_is_ignored_otherwise():
    strict, program = both()
    before = state(strict, mine=["aA"], bank=[0, 0, 1, 0], roll=0)
    assert judge(strict, before, "5 0 0").rejection.code == "word-out-of-range"
    assert texts(judge(program, before, "5 0 0").state) == ("aA", "AB")   # appended, not at 5
    assert texts(judge(program, before, "-7 0 0").state) == ("aA", "AB")
    # a non-S group with no such word: nothing happens, and the roll is used up (not banked)
    rolled = state(strict, mine=["aA"], bank=[0, 0, 1, 0], roll=1)
    after = judge(program, rolled, "9 1 0").state
    assert texts(after) == ("aA",) and after.bank == (0, 0, 1, 0)
    assert judge(program, rolled, "-1 1 0").state.bank == (0, 0, 1, 0)
    # from the bank: the group leaves the bank all the same
    after = judge(program, rolled, "0 1 1, 4 2 0").state
    assert texts(after) == ("aa",) and after.bank == (0, 0, 0, 0)


def test_an_s_group_from_the_bank_may_start_a_derivation():
    strict, program = both()
    before = state(strict, mine=["b"], bank=[1, 0, 0, 0], roll=2)
    assert judge(strict, before, "").state.bank == (1, 0, 1, 0)   # B->b applies nowhere
    assert judge(strict, before, "0 2 0, -1 0 0").rejection.code == "nonterminal-missing"
    rolled = state(strict, mine=["B"], bank=[1, 0, 0, 0], roll=2)
    assert judge(strict, rolled, "0 2 0, -1 0 0").rejection.code == "new-derivation-from-bank"
    after = judge(program, rolled, "0 2 0, -1 0 0").state
    assert texts(after) == ("b", "AB") and after.bank == (0, 0, 0, 0)


def test_out_of_range_groups_and_productions_are_refused_production_first():
    strict, program = both()
    before = state(strict, mine=["aA"], roll=1)
    for game in (strict, program):
        assert judge(game, before, "0 4 0").rejection.code == "group-out-of-range"
        assert judge(game, before, "0 -1 0").rejection.code == "group-out-of-range"
        assert judge(game, before, "0 1 2").rejection.code == "production-out-of-range"
    # the program reads the production before it compares the group with the roll
    assert judge(strict, before, "0 2 3").rejection.code == "not-rolled-group"
    assert judge(program, before, "0 2 3").rejection.code == "production-out-of-range"
    # ... and before it looks in the bank
    assert judge(strict, before, "0 1 0, 0 3 5").rejection.code == "not-in-bank"
    assert judge(program, before, "0 1 0, 0 3 5").rejection.code == "production-out-of-range"


def test_a_word_without_the_nonterminal_is_refused_under_both_rules():
    strict, program = both()
    before = state(strict, mine=["b", "aA"], roll=1)
    for game in (strict, program):
        assert judge(game, before, "0 1 0").rejection.code == "nonterminal-missing"


def test_group_0_in_the_bank_makes_the_programs_check_throw():
    # Group 0 is not an S group here, so it can be banked; the program's end-of-turn
    # loop then indexes a word's counts by the character 'A' and throws.
    strict, program = both(["A->a", "S->A", "B->b"])
    holding = state(strict, mine=["B"], bank=[1, 0, 0], roll=2)
    assert judge(strict, holding, "0 2 0").state.bank == (1, 0, 0)   # no A anywhere: fine
    rejection = judge(program, holding, "0 2 0").rejection
    assert rejection.code == "program-exception"
    assert "IndexOutOfRangeException" in rejection.message
    # the check looks at the derivations after the move: a new one counts ...
    empty = state(strict, mine=[], bank=[1, 0, 0], roll=1)
    assert judge(program, empty, "5 1 0").rejection.code == "program-exception"
    assert judge(program, empty, "-1 1 0, 0 0 0").state.bank == (0, 0, 0)   # (group 0 used)
    # ... and without any the loop over them never runs
    nothing = state(strict, mine=[], bank=[1, 0, 0], roll=2)
    after = judge(program, nothing, "3 2 0").state
    assert texts(after) == () and after.bank == (1, 0, 0)
    # an empty move is judged before that loop
    assert judge(program, state(strict, mine=["b"], bank=[1, 0, 0], roll=2), "").state.bank == (1, 0, 1)


def test_turns_undo_program_steps_exactly():
    _, program = both()
    before = state(program, mine=["aA"], bank=[1, 0, 1, 1], roll=1)
    turn = program.turn(before)
    turn.apply(7, 1, 0)
    assert (-1, 0, 0) in turn.legal_steps()          # the S group in the bank
    for step in [(3, 2, 0), (-1, 0, 0), (0, 3, 0)]:
        turn.apply(*step)
    assert [w.text for w in turn.derivations] == ["aBc", "AB"]
    assert turn.bank == (0, 0, 0, 0) and turn.can_end()
    for _ in range(4):
        turn.undo()
    assert [w.text for w in turn.derivations] == ["aA"] and turn.bank == (1, 0, 1, 1)
    assert not turn.holds("B")


# -- logs -------------------------------------------------------------------------------------


def program_record(seed: int, moves: int = 30):
    game = SubstitutionGame(Settings.preset("low-s", moves, "thesis-program"))
    registry = default_registry()
    bots = [registry.make_bot(game, spec) for spec in ("thesis-search:depth=1", "thesis-random")]
    return play_match(game, bots, seed=seed, names=["a", "b"], match_id=f"p{seed}").record()


def with_rule(record, rule):
    lines = to_jsonl(record).splitlines()
    header = json.loads(lines[0])
    if rule is None:
        header["settings"].pop("bank_rule", None)
    else:
        header["settings"]["bank_rule"] = rule
    lines[0] = json.dumps(header)
    return read_jsonl(lines)


def test_logs_are_judged_by_the_rule_they_record():
    record = program_record(3)
    assert record.settings["bank_rule"] == "thesis-program"
    assert record.outcome.termination.value == "normal"
    for accelerate in (True, False):
        assert validate_record(record, accelerate=accelerate) is None
        defect = validate_record(with_rule(record, "strict"), accelerate=accelerate)
        assert defect is not None and defect.code == "bank-group-applicable"
        # a log from before the setting is judged strictly
        assert validate_record(with_rule(record, None), accelerate=accelerate).code == "bank-group-applicable"
    strict_record = with_rule(record, None)
    assert validate_record(with_rule(strict_record, "thesis-program")) is None


def test_thesis_text_logs_keep_the_rule():
    record = program_record(3)
    text = write_thesis_log(record)
    assert text.startswith('<GameSettings NumberOfMoves="30" BankRule="thesis-program">')
    back = read_thesis_log(text)
    assert back.settings == record.settings
    assert validate_record(parse_log(text)) is None
    assert validate_record(parse_log(text.replace(' BankRule="thesis-program"', ""))) is not None


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(grammars(), st.integers(1, 10), st.integers(0, 2**32))
def test_strict_play_is_program_play_and_both_replays_agree(grammar, moves, seed):
    # Every strictly legal move is accepted by the program's rule, except where the
    # program throws (group 0 banked); the compiled replay agrees with the referee.
    strict = SubstitutionGame(Settings(grammar, moves))
    program = SubstitutionGame(Settings(grammar, moves, "thesis-program"))
    bots = [default_registry().make_bot(strict, "random") for _ in range(2)]
    record = play_match(strict, bots, seed=seed, names=["a", "b"]).record()
    as_program = with_rule(record, "thesis-program")
    fast, slow = validate_record(as_program), validate_record(as_program, accelerate=False)
    assert fast == slow
    if fast is not None:
        assert fast.code == "program-exception" and grammar.groups[0].left != "S"
    program_bots = [default_registry().make_bot(program, "thesis-random") for _ in range(2)]
    played = play_match(program, program_bots, seed=seed, names=["a", "b"]).record()
    assert validate_record(played) == validate_record(played, accelerate=False)


def test_game_state_from_json_is_rule_independent():
    strict, program = both()
    before = state(strict, mine=["aA"], roll=1)
    assert program.state_from_json(strict.state_to_json(before)) == before
    assert isinstance(before, GameState)
