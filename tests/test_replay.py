"""The one replay path (`arena.replay`): validation, the web viewer's frames and the
compiled accelerator all judge a log the same way."""

from __future__ import annotations

import dataclasses

import pytest

from arena.games.substitution import Settings
from arena.match import play_match
from arena.record import MatchRecord
from arena.registry import default_registry
from arena.replay import Defect, Replay
from arena.validate import validate_record
from arena.web.replay import frames

CASES = [
    ("substitution", Settings.preset("medium", moves=6).to_json(), ["random", "random"]),
    ("tiles", {"tiles": 5, "players": 2}, ["tiles-race-perfect", "tiles-probability"]),
    ("durak", {"cards": "0110001111"}, ["durak-perfect", "durak-greedy"]),
    ("sim", {"vertices": 5}, ["sim-random", "sim-random"]),
]


def played(name: str, settings: dict, bots: list[str], seed: int = 5) -> MatchRecord:
    registry = default_registry()
    game = registry.load_game(name, settings)
    match = play_match(game, [registry.make_bot(game, b) for b in bots], seed=seed, names=bots)
    return match.record()


@pytest.mark.parametrize(("name", "settings", "bots"), CASES, ids=[c[0] for c in CASES])
def test_a_played_game_replays_to_its_recorded_result(name: str, settings: dict,
                                                       bots: list[str]) -> None:
    record = played(name, settings, bots)
    game = default_registry().load_game(name, settings)
    replay = Replay(record, game)
    steps = list(replay)
    assert [step.index for step in steps] == list(range(len(record.turns)))
    assert replay.defect is None and replay.check() is None
    assert game.outcome(replay.state) == record.outcome
    view = frames(record, default_registry())
    assert len(view["frames"]) == len(record.turns) + 1 and view["error"] is None
    assert view["frames"][-1]["state"] == game.state_to_json(steps[-1].state)


def _edit_turn(record: MatchRecord, index: int, **changes: object) -> MatchRecord:
    turns = list(record.turns)
    turns[index] = turns[index]._replace(**changes)
    return dataclasses.replace(record, turns=tuple(turns))


def _first_chance_turn(record: MatchRecord) -> int:
    return next(i for i, turn in enumerate(record.turns) if turn.chance is not None)


@pytest.mark.parametrize("name", ["substitution", "tiles"])
def test_a_roll_the_seed_does_not_give_stops_validation_and_the_viewer_at_that_turn(
        name: str) -> None:
    _, settings, bots = next(c for c in CASES if c[0] == name)
    record = played(name, settings, bots)
    index = _first_chance_turn(record)
    game = default_registry().load_game(name, settings)
    before = Replay(dataclasses.replace(record, turns=record.turns[:index]), game)
    for _ in before:
        pass
    real = record.turns[index].chance
    other = next(value for value, _ in game.chance_outcomes(before.state) if value != real)
    edited = _edit_turn(record, index, chance=other)
    defect = validate_record(edited)
    chance_name = game.type.chance_name
    assert defect == validate_record(edited, accelerate=False)
    assert defect is not None and defect.code == f"{chance_name}-mismatch"
    assert defect.turn == index
    view = frames(edited, default_registry())
    assert view["error_turn"] == index + 1 and f"({chance_name}-mismatch)" in view["error"]
    assert (view["error_code"], view["error_move"]) == (f"{chance_name}-mismatch", None)
    assert len(view["frames"]) == index + 1


def test_a_recorded_fact_that_is_not_the_referees_is_the_defect_of_its_turn() -> None:
    name, settings, bots = CASES[0]
    record = played(name, settings, bots)
    bank = list(record.turns[2].facts["bank"])
    bank[0] += 1
    edited = _edit_turn(record, 2, facts={"bank": bank})
    for accelerate in (True, False):
        assert validate_record(edited, accelerate=accelerate) == Defect(
            "bank-mismatch", f"the log says bank {bank!r}, the referee "
            f"{list(record.turns[2].facts['bank'])!r}", 2, record.turns[2].player)
    assert frames(edited, default_registry())["error_turn"] == 3


def test_a_rejected_move_is_named_with_its_move_and_the_referees_reason() -> None:
    name, settings, bots = CASES[1]
    record = played(name, settings, bots)
    edited = _edit_turn(record, 1, move="flip")
    defect = validate_record(edited)
    assert defect is not None and (defect.code, defect.move, defect.turn) == ("malformed", "flip", 1)
    assert str(defect).startswith(f"turn 1, player {record.turns[1].player}: malformed: move 'flip': ")
    view = frames(edited, default_registry())
    assert view["error"] == (f"turn 2: {record.players[record.turns[1].player]} played 'flip': "
                             f"{defect.message}")
    assert (view["error_code"], view["error_seat"], view["error_move"]) == (
        "malformed", record.turns[1].player, "flip")


def test_the_accelerated_replay_ends_where_the_referee_does() -> None:
    name, settings, bots = CASES[0]
    for seed in range(5):
        record = played(name, settings, bots, seed)
        game = default_registry().load_game(name, settings)
        fast = Replay(record, game, accelerate=True)
        slow = Replay(record, game)
        assert fast.turns_replayed == len(record.turns)  # the compiled replay vouched for all
        assert fast.check() is None and slow.check() is None
        assert game.to_act(fast.state) == game.to_act(slow.state)
        assert game.outcome(fast.state) == game.outcome(slow.state) == record.outcome
