"""Both log formats round-trip; validation finds planted defects; garbage never crashes."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.errors import LogFormatError
from arena.games.substitution import Settings, SubstitutionGame
from arena.games.substitution.thesis_log import read_thesis_log, write_thesis_log
from arena.match import play_match
from arena.record import Note, TurnRecord, jsonl_lines, read_jsonl, to_jsonl, turn_line
from arena.registry import default_registry
from arena.validate import parse_log, validate_record
from tests.substitution.strategies import games

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_record(game: SubstitutionGame, seed: int):
    bots = [default_registry().make_bot(game, "random") for _ in range(2)]
    return play_match(game, bots, seed=seed, names=["random", "random"], match_id=f"g{seed}").record()


MEDIUM = SubstitutionGame(Settings.preset("medium", moves=40))


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_jsonl_round_trip(game, seed):
    record = random_record(game, seed)
    assert read_jsonl(to_jsonl(record).splitlines()) == record


JSON_MODULE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@SETTINGS
@given(games(), st.integers(0, 2**32), st.text(), st.integers(0, 2**128 - 1))
def test_jsonl_is_written_as_the_json_module_writes_it(game, seed, note, dice_seed):
    """msgspec writes the log (arena.record): byte for byte the json module's text, a
    bot's note of any text (a lone surrogate too) and a 128-bit seed included."""
    record = replace(random_record(game, seed), notes=(Note(1, 0, note),), seed=dice_seed)
    assert to_jsonl(record) == "".join(JSON_MODULE(line) + "\n" for line in jsonl_lines(record))


def test_a_log_msgspec_cannot_write_is_written_by_the_json_module():
    record = replace(random_record(MEDIUM, 1), notes=(Note(0, 1, "half a pair: \ud800"),))
    text = to_jsonl(record)
    assert text == "".join(JSON_MODULE(line) + "\n" for line in jsonl_lines(record))
    assert read_jsonl(text.splitlines()).notes[0].text == "half a pair: \ud800"


def test_a_turn_line_the_server_stores_is_the_logs_line():
    """The line stored for each accepted move (`turn_line`) is the log's own; one
    msgspec cannot write is the json module's, non-ASCII escaped (any database takes it)."""
    record = random_record(MEDIUM, 2)
    lines = to_jsonl(record).splitlines()
    assert [turn_line(record, turn) for turn in record.turns] == lines[1:1 + len(record.turns)]
    odd = TurnRecord(turn=3, player=1, move="0 0 0", facts={"said": "half a pair: \ud800"})
    text = turn_line(record, odd)
    assert text.isascii() and json.loads(text)["said"] == "half a pair: \ud800"


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_thesis_log_round_trip(game, seed):
    record = random_record(game, seed)
    back = read_thesis_log(write_thesis_log(record))
    assert back.settings == record.settings
    assert back.players == record.players
    assert back.turns == record.turns
    assert back.outcome == record.outcome
    assert write_thesis_log(back) == write_thesis_log(record)


def test_thesis_log_layout():
    record = random_record(MEDIUM, 5)
    text = write_thesis_log(record)
    lines = text.splitlines()
    end = lines.index("</GameSettings>")
    assert lines[0] == '<GameSettings NumberOfMoves="40">'
    assert lines[end + 1 : end + 4] == ["", "Игрок 1: random", "Игрок 2: random"]
    first = record.turns[0]
    assert lines[end + 4] == f"Индекс выпавшей продукции: {first.chance}"
    assert lines[end + 5] == "Номер хода:1, Игрок: 0"
    assert lines[end + 6] == f"Ход:{first.move}"
    assert lines[end + 7] == "Банк: " + "".join(f"{c} " for c in first.facts["bank"])
    assert lines[end + 9] == "Номер хода:1, Игрок: 1"
    assert lines[-3:] == ["Результаты:", f"Счёт игрока 0: {record.outcome.scores[0]}",
                          f"Счёт игрока 1: {record.outcome.scores[1]}"]


@SETTINGS
@given(games(), st.integers(0, 2**32))
def test_untouched_logs_are_valid(game, seed):
    record = random_record(game, seed)
    assert validate_record(record) is None
    assert validate_record(parse_log(write_thesis_log(record))) is None
    assert validate_record(parse_log(to_jsonl(record))) is None


def edit_line(text: str, predicate, change) -> str:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if predicate(line):
            lines[index] = change(line)
            return "\n".join(lines) + "\n"
    raise AssertionError("nothing to edit")


def first_nonempty_move_turn(record):
    return next(t for t in record.turns if t.move)


class TestPlantedDefects:
    record = random_record(MEDIUM, 11)

    def jsonl_with(self, turn_index, **changes):
        lines = to_jsonl(self.record).splitlines()
        data = json.loads(lines[turn_index + 1])
        data.update(changes)
        lines[turn_index + 1] = json.dumps(data)
        return "\n".join(lines)

    def test_illegal_step(self):
        turn = first_nonempty_move_turn(self.record)
        defect = validate_record(parse_log(self.jsonl_with(turn.turn, move="0 0 99")))
        assert defect.turn == turn.turn and defect.player == turn.player
        assert defect.code in {"production-out-of-range", "not-rolled-group"}

    def test_skipped_mandatory_move(self):
        turn = first_nonempty_move_turn(self.record)
        defect = validate_record(parse_log(self.jsonl_with(turn.turn, move="")))
        assert (defect.turn, defect.code) == (turn.turn, "rolled-group-unapplied")

    def test_edited_bank(self):
        bank = list(self.record.turns[7].facts["bank"])
        bank[3] += 1
        defect = validate_record(parse_log(self.jsonl_with(7, bank=bank)))
        assert (defect.turn, defect.code) == (7, "bank-mismatch")

    def test_edited_roll_against_the_seed(self):
        roll = self.record.turns[3].chance
        defect = validate_record(parse_log(self.jsonl_with(3, roll=(roll + 1) % 11)))
        assert (defect.turn, defect.code) == (3, "roll-mismatch")

    def test_edited_score(self):
        lines = to_jsonl(self.record).splitlines()
        result = json.loads(lines[-1])
        result["scores"][1] += 1
        lines[-1] = json.dumps(result)
        defect = validate_record(parse_log("\n".join(lines)))
        assert defect.code == "score-mismatch" and defect.turn is None

    def test_truncated_log(self):
        lines = to_jsonl(self.record).splitlines()
        defect = validate_record(parse_log("\n".join(lines[:-5] + lines[-1:])))
        assert defect.code == "unfinished"
        defect = validate_record(parse_log("\n".join(lines[:-1])))
        assert defect.code == "no-result"

    def test_thesis_log_edited_bank_line_and_score(self):
        text = write_thesis_log(self.record)
        edited = edit_line(text, lambda l: l.startswith("Банк: "), lambda l: "Банк: 9" + l[7:])
        defect = validate_record(parse_log(edited))
        assert (defect.turn, defect.code) == (0, "bank-mismatch")
        edited = edit_line(text, lambda l: l.startswith("Счёт игрока 1:"), lambda l: l + "0")
        assert validate_record(parse_log(edited)).code == "score-mismatch"

    def test_thesis_log_illegal_step(self):
        text = write_thesis_log(self.record)
        turn = first_nonempty_move_turn(self.record)
        target = f"Ход:{turn.move}"
        edited = edit_line(text, lambda l: l == target, lambda l: "Ход:5 5 5")
        defect = validate_record(parse_log(edited))
        assert defect.turn <= turn.turn and defect.code in {
            "not-rolled-group", "word-out-of-range", "group-out-of-range", "nonterminal-missing"}


def test_thesis_program_habits_are_reported():
    """The thesis program let a non-S step with a bad word index through (dropping it) and
    never ran its end-of-turn bank check; such logs are invalid here."""
    game = SubstitutionGame(Settings.preset("medium", moves=2))
    record = random_record(game, 3)
    text = write_thesis_log(record)
    turn = first_nonempty_move_turn(record)
    _word, group, production = turn.move.split(", ")[0].split()
    bad = f"Ход:{7} {group} {production}"
    edited = edit_line(text, lambda l: l == f"Ход:{turn.move}", lambda l: bad)
    defect = validate_record(parse_log(edited))
    assert defect.code in {"word-out-of-range", "bank-mismatch"}


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "\n\n",
        "hello",
        "{",
        "[1, 2]",
        '{"format": "arena-log", "version": 99}',
        '{"format": "arena-log", "version": 1, "game": "substitution", "settings": {}, "players": []}\n{"turn": "x"}',
        "<GameSettings",
        '<GameSettings NumberOfMoves="5"></GameSettings>\nИгрок 1: a\n',
    ],
)
def test_garbage_is_a_log_format_error(garbage):
    with pytest.raises(LogFormatError) as error:
        parse_log(garbage)
    assert error.value.reason and 0 <= error.value.line <= len(garbage.splitlines())


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_random_text_never_crashes_the_reader(text):
    """Random text is refused with a reason and a line in the text, or read into a record
    that validation finds wrong (random text is no valid game)."""
    try:
        record = parse_log(text)
    except LogFormatError as error:
        assert error.reason and 0 <= error.line <= len(text.splitlines())
        return
    assert validate_record(record) is not None


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["game", "settings", "players", "seed", "turn", "player", "move", "roll", "bank", "result", "scores", "winner"]),
                       st.one_of(st.none(), st.integers(-3, 30), st.text(max_size=5), st.lists(st.integers(-1, 3), max_size=12), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)),
                       max_size=8),
       st.integers(0, 2))
def test_random_json_lines_never_crash_validation(line, position):
    """A stray line in a valid log is refused at that line or after it, or the record read
    is found wrong: never an exception, never a valid game."""
    lines = to_jsonl(random_record(SubstitutionGame(Settings.preset("medium", moves=2)), 1)).splitlines()
    index = min(position + 1, len(lines))
    lines.insert(index, json.dumps(line))
    try:
        record = parse_log("\n".join(lines))
    except LogFormatError as error:
        assert error.reason and index + 1 <= error.line <= len(lines)
        return
    assert validate_record(record) is not None


# -- the compiled replay accelerates validation but never changes a verdict ------------


def mutate(record, data):
    """A copy of `record` with one random turn edited in one random way."""
    import dataclasses

    turns = list(record.turns)
    if not turns:
        return record
    index = data.draw(st.integers(0, len(turns) - 1), label="turn")
    turn = turns[index]
    kind = data.draw(st.sampled_from(["move", "roll", "bank", "player", "number", "drop", "facts"]), label="kind")
    if kind == "move":
        move = data.draw(st.sampled_from(["", "0 0 0", "-1 0 0", turn.move + ", 0 0 0", " " + turn.move + "\u2003",
                                          turn.move.replace("0", "1"), "1 2", "x"]), label="move")
        turn = turn._replace(move=move)
    elif kind == "roll":
        turn = turn._replace(chance=data.draw(st.sampled_from([None, -1, 0, 3, 10, 11, "2", 2.0, True])))
    elif kind == "bank":
        bank = list(turn.facts["bank"])
        bank[data.draw(st.integers(0, len(bank) - 1))] += data.draw(st.sampled_from([-1, 1]))
        turn = turn._replace(facts={"bank": bank})
    elif kind == "facts":
        turn = turn._replace(facts=data.draw(st.sampled_from([{}, {"bank": None}, {"bank": []}, {"bank": "x"}])))
    elif kind == "player":
        turn = turn._replace(player=1 - turn.player)
    elif kind == "number":
        turn = turn._replace(turn=turn.turn + 1)
    if kind == "drop":
        del turns[index]
    else:
        turns[index] = turn
    return dataclasses.replace(record, turns=tuple(turns))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(max_moves=6), st.integers(0, 2**32), st.booleans(), st.data())
def test_acceleration_never_changes_the_verdict(game, seed, keep_seed, data):
    import dataclasses

    record = random_record(game, seed)
    if not keep_seed:
        record = dataclasses.replace(record, seed=None)
    edited = mutate(record, data)
    assert validate_record(edited, accelerate=True) == validate_record(edited, accelerate=False)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="0123456789- ,\t\n", max_size=30))
def test_fast_parser_agrees_with_the_move_string_parser(text):
    from arena.games.substitution._core import fast_parse
    from arena.games.substitution.movestring import MoveString

    fast = fast_parse(text)
    if fast is None:
        return  # left to the real parser
    assert isinstance(fast, tuple)
    assert MoveString.parse(text).steps == fast  # raises MalformedMove if fast accepted junk


def test_fast_parser_reads_ordinary_moves():
    from arena.games.substitution._core import fast_parse

    assert fast_parse("") == ()
    assert fast_parse("-1 0 1, 0 3 0") == ((-1, 0, 1), (0, 3, 0))
    assert fast_parse("0 1 2,") is None and fast_parse("0 1\u20032") is None


def test_log_from_a_referee_without_the_end_of_turn_bank_check_is_invalid():
    """The thesis program never ran its end-of-turn bank check, so its logs contain turns
    that stop while a bank group still applies; the bank line then keeps that group."""
    import dataclasses

    for seed in range(200):
        record = random_record(MEDIUM, seed)
        long_turn = next((t for t in record.turns if t.move.count(",") >= 1), None)
        if long_turn is not None:
            break
    else:  # pragma: no cover
        raise AssertionError("no turn with a bank step in 200 games")
    steps = long_turn.move.split(", ")
    dropped_group = int(steps[-1].split()[1])
    bank = list(long_turn.facts["bank"])
    bank[dropped_group] += 1  # the unused group stays in the bank
    edited_turn = long_turn._replace(move=", ".join(steps[:-1]), facts={"bank": bank})
    turns = list(record.turns)
    turns[long_turn.turn] = edited_turn
    edited = dataclasses.replace(record, turns=tuple(turns))
    defect = validate_record(parse_log(write_thesis_log(edited)))
    assert (defect.turn, defect.player, defect.code) == (long_turn.turn, long_turn.player, "bank-group-applicable")


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="0123456789- ,\t\n\u2003x", max_size=40) | st.text(max_size=20)
       | st.lists(st.tuples(st.integers(-1, 9), st.integers(0, 99), st.integers(0, 9)),
                  max_size=5000).map(lambda steps: ", ".join(f"{w} {g} {p}" for w, g, p in steps)))
def test_the_game_reads_a_move_as_the_move_string_parser_does(text):
    """`parse_move` (the core's parser first, on every move the server receives) gives
    the move string parser's steps, or its very error."""
    from arena.errors import MalformedMove
    from arena.games.substitution.movestring import MoveString

    try:
        expected = MoveString.parse(text)
    except MalformedMove as error:
        with pytest.raises(MalformedMove) as raised:
            MEDIUM.parse_move(text)
        assert str(raised.value) == str(error)
    else:
        move = MEDIUM.parse_move(text)
        assert type(move) is MoveString and move == expected
        assert MEDIUM.format_move(move) == str(expected)  # the core writes it back


@given(st.lists(st.tuples(st.integers(), st.integers(), st.integers() | st.booleans()),
                max_size=5))
def test_the_game_writes_any_move_as_the_move_string_does(steps):
    """`format_move` (the core's writer first) writes what `str(MoveString)` writes, for
    steps beyond C's integers too."""
    from arena.games.substitution.movestring import MoveString

    move = MoveString(tuple(steps))
    assert MEDIUM.format_move(move) == str(move)
