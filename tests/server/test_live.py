"""`LiveGame` without a server: what it asks to send (`Outgoing`, `HouseTurn`), and its
clocks, driven with given times (no test here waits), and its rebuilding from a
stored start (`LiveGame.restore`)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from arena.clock import TimeControl
from arena.game import TERMINAL, Game, Outcome, Termination
from arena.games.substitution import Settings
from arena.match import Match
from arena.record import MatchRecord
from arena.registry import default_registry
from arena.replay import DefectiveRecord
from arena.server.house import HouseBotKey
from arena.server.live import ClockState, HousePlayer, HouseTurn, LiveGame, Outgoing

from .conftest import FAST

T0 = 1000.0
"""Any time on the driver's clock: a game is given the time, it never reads one."""
CLOCK = TimeControl(move_ms=200, bank_ms=300, first_move_ms=1200, retries=0)


def sim_game(players: tuple[str, str] = ("alice", "bob"), control: TimeControl = FAST,
             **extra: Any) -> LiveGame:
    game = default_registry().load_game("sim", {})
    match: Match = Match(game, players, seed=1, match_id="g1")
    return LiveGame("g1", game, match, control, **extra)


def house_game(control: TimeControl = FAST) -> LiveGame:
    key = HouseBotKey((), False, "sim", "{}", "random")
    return sim_game(("alice", "house:random"), control, house={1: HousePlayer("random", key)})


def legal(live: LiveGame) -> str:
    return live.game.legal_moves(live.match.state).moves[0]


def types(effects: list[Any]) -> list[tuple[str | None, str]]:
    return [(e.to, e.type) for e in effects if isinstance(e, Outgoing)]


def message(effects: list[Any], type: str) -> dict[str, Any]:
    """The fields of the one message of `type` among `effects`."""
    found = [e.fields for e in effects if isinstance(e, Outgoing) and e.type == type]
    assert len(found) == 1, types(effects)
    return dict(found[0])


def test_begin_sends_game_start_to_each_player_then_the_first_turn() -> None:
    live = sim_game()
    assert live.wake_at is None  # nothing runs before the game begins
    effects = live.begin(T0)
    assert types(effects) == [("alice", "game_start"), ("bob", "game_start"),
                              ("alice", "your_turn")]
    turn = effects[-1]
    assert isinstance(turn, Outgoing) and turn.vital and turn.fields["turn"] == 0
    assert live.begin(T0 + 1) == []  # once only


def test_a_move_answers_the_mover_tells_the_opponent_and_the_spectators() -> None:
    live = sim_game()
    live.begin(T0)
    live.spectators.add(object())  # type: ignore[arg-type]  # any spectator: only counted
    move = legal(live)
    effects = live.submit(0, 0, move, T0 + 0.1)
    assert types(effects) == [("alice", "move_accepted"), ("bob", "opponent_moved"),
                              (None, "moved"), ("bob", "your_turn")]
    moved = effects[1]
    assert isinstance(moved, Outgoing)
    assert moved.fields == {"game_id": "g1", "turn": 0, "seat": 0, "move": move, "chance": None}
    assert live.turn == 1 and not live.over


def test_a_compact_turn_carries_the_opponents_move() -> None:
    live = sim_game(compact_turns={"bob"})
    live.begin(T0)
    move = legal(live)
    effects = live.submit(0, 0, move, T0 + 0.1)
    assert types(effects) == [("alice", "move_accepted"), ("bob", "your_turn")]
    turn = effects[-1]
    assert isinstance(turn, Outgoing) and turn.fields["last_move"]["move"] == move


def test_moves_out_of_turn_are_rejected_and_an_illegal_one_forfeits() -> None:
    live = sim_game()
    live.begin(T0)
    wrong = live.submit(1, 0, legal(live), T0)
    assert types(wrong) == [("bob", "move_rejected")]
    assert isinstance(wrong[0], Outgoing) and wrong[0].fields["code"] == "not-your-turn"
    stale = live.submit(0, 5, legal(live), T0)
    assert isinstance(stale[0], Outgoing) and stale[0].fields["code"] == "future-turn"
    illegal = live.submit(0, 0, "no such move", T0)  # FAST allows no retry
    assert types(illegal) == [("alice", "move_rejected")]
    assert isinstance(illegal[0], Outgoing) and illegal[0].fields["retries_left"] == -1
    assert live.over and live.wake_at is None  # the driver stores it: nothing to wake for
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.ILLEGAL_MOVE


def test_a_house_seat_to_move_is_a_house_turn_not_a_message() -> None:
    live = house_game()
    assert types(live.begin(T0)) == [("alice", "game_start"), ("alice", "your_turn")]
    effects = live.submit(0, 0, legal(live), T0 + 0.1)
    assert types(effects) == [("alice", "move_accepted")]
    assert effects[-1] == HouseTurn(seat=1, turn=1)


# -- the clock -------------------------------------------------------------------------------


def test_a_silent_mover_loses_on_time_at_its_deadline_and_not_before() -> None:
    live = sim_game(control=CLOCK)
    turn = message(live.begin(T0), "your_turn")
    assert turn["clock"] == {"limit_ms": 1200, "bank_ms": 300, "left_ms": 1500}
    assert live.wake_at == T0 + 1.5  # the first move's allowance and the bank
    live.wake(T0 + 1.499)  # a timer that fires early changes nothing
    assert not live.over and live.wake_at == T0 + 1.5
    live.wake(T0 + 1.5)
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT
    assert outcome.loser == 0 and outcome.winner == 1
    assert outcome.detail == "alice used 1200 ms and its 300 ms bank on turn 0"
    assert live.wake_at is None


def test_a_move_that_comes_after_the_deadline_is_too_late() -> None:
    live = sim_game(control=CLOCK)
    live.begin(T0)
    assert live.submit(0, 0, legal(live), T0 + 1.5) == []  # nobody is told: the game is over
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT
    assert live.turn == 0 and live.match.turn_count == 0


def test_the_first_move_has_its_own_allowance_and_overage_comes_out_of_the_bank() -> None:
    live = sim_game(control=TimeControl(move_ms=125, bank_ms=2000, first_move_ms=500))
    live.begin(T0)
    first = live.submit(0, 0, legal(live), T0 + 0.625)  # 125 ms over its 500 ms
    assert message(first, "move_accepted") == {"game_id": "g1", "turn": 0,
                                               "elapsed_ms": 625, "bank_ms": 1875}
    bobs = message(first, "your_turn")
    assert bobs["clock"] == {"limit_ms": 500, "bank_ms": 2000, "left_ms": 2500}
    assert bobs["clocks"] == [1875, 2000]
    assert live.wake_at == T0 + 0.625 + 2.5
    second = live.submit(1, 1, legal(live), T0 + 0.75)  # within its first 500 ms: no charge
    assert message(second, "move_accepted")["bank_ms"] == 2000
    alices = message(second, "your_turn")
    assert alices["clock"] == {"limit_ms": 125, "bank_ms": 1875, "left_ms": 2000}
    assert live.wake_at == T0 + 0.75 + 2.0
    third = live.submit(0, 2, legal(live), T0 + 1.0)  # 125 ms over its 125 ms
    accepted = message(third, "move_accepted")
    assert accepted["elapsed_ms"] == 250 and accepted["bank_ms"] == 1750
    assert [clock.bank_ms for clock in live.clocks] == [1750, 2000]


def test_a_bank_spent_on_earlier_moves_shortens_the_deadline() -> None:
    live = sim_game(control=TimeControl(move_ms=125, bank_ms=375, first_move_ms=125))
    live.begin(T0)
    live.submit(0, 0, legal(live), T0 + 0.375)  # 250 ms of the bank spent
    live.submit(1, 1, legal(live), T0 + 0.5)
    assert live.wake_at == T0 + 0.5 + 0.25  # 125 ms and the 125 ms left
    live.wake(T0 + 0.749)
    assert not live.over
    live.wake(T0 + 0.75)
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT
    assert outcome.detail == "alice used 125 ms and its 125 ms bank on turn 2"


def test_a_timer_due_at_an_old_deadline_does_nothing_once_the_turn_moved_on() -> None:
    live = sim_game(control=CLOCK)
    live.begin(T0)
    live.submit(0, 0, legal(live), T0 + 1.0)
    live.wake(T0 + 1.5)  # alice's old deadline: bob has 1.2 s and his bank from T0 + 1
    assert not live.over and live.wake_at == pytest.approx(T0 + 2.5)


def test_retries_correct_a_move_on_the_same_clock() -> None:
    live = sim_game(control=dataclasses.replace(CLOCK, retries=2))
    live.begin(T0)
    deadline = live.wake_at
    first = live.submit(0, 0, "no such move", T0 + 0.5)
    assert message(first, "move_rejected")["retries_left"] == 1
    again = message(first, "your_turn")  # the turn again, with the clock as it stands
    assert again["retries_left"] == 1 and again["clock"]["left_ms"] == 1000
    assert live.wake_at == deadline  # a rejected move does not stop the clock
    second = live.submit(0, 0, "no such move", T0 + 1.0)
    assert message(second, "move_rejected")["retries_left"] == 0
    accepted = live.submit(0, 0, legal(live), T0 + 1.2)
    assert message(accepted, "your_turn")["retries_left"] == 2  # a fresh turn, fresh retries
    live.submit(1, 1, "no such move", T0 + 1.3)
    live.submit(1, 1, "no such move", T0 + 1.3)
    last = live.submit(1, 1, "no such move", T0 + 1.3)
    assert message(last, "move_rejected")["retries_left"] == -1
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.ILLEGAL_MOVE
    assert outcome.loser == 1


def test_a_player_coming_back_gets_its_turn_with_the_time_left_now() -> None:
    live = sim_game(control=CLOCK)
    live.begin(T0)
    resumed = live.resume_messages("alice", T0 + 1.0)
    assert [m.type for m in resumed] == ["game_start", "game_state", "your_turn"]
    assert resumed[-1].fields["clock"]["left_ms"] == 500
    assert [m.type for m in live.resume_messages("bob", T0 + 1.0)] == ["game_start",
                                                                      "game_state"]


def test_a_house_seats_clock_stops_while_its_bot_is_prepared() -> None:
    live = house_game(CLOCK)
    live.begin(T0)
    live.submit(0, 0, legal(live), T0 + 0.1)  # the house seat's turn: 1.2 s and the bank
    assert live.wake_at == pytest.approx(T0 + 1.6)
    live.pause_clock(T0 + 0.2)  # a worker prepares the bot
    assert live.wake_at is None
    live.wake(T0 + 10)  # no timeout while the clock is stopped
    assert not live.over
    live.resume_clock(T0 + 5.2)  # 5 s of preparing, not charged
    assert live.wake_at == pytest.approx(T0 + 6.6)
    effects = live.submit(1, 1, legal(live), T0 + 5.3)  # 200 ms on its clock
    assert types(effects) == [("alice", "opponent_moved"), ("alice", "your_turn")]
    assert live.clocks[1].bank_ms == 300 and live.clocks[1].moves == 1


def test_a_house_seat_out_of_time_before_its_clock_stopped_loses_when_it_starts_again() -> None:
    live = house_game(CLOCK)
    live.begin(T0)
    live.submit(0, 0, legal(live), T0)  # the house seat's deadline: T0 + 1.5
    live.pause_clock(T0 + 2.0)  # its timer has not fired yet
    live.resume_clock(T0 + 3.0)
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT
    assert outcome.loser == 1 and outcome.detail == (
        "house:random used 1200 ms and its 300 ms bank on turn 1")


def test_a_house_seat_loses_on_time_like_anybody() -> None:
    """The server gives the worker the time left and, when it is killed at the
    deadline, wakes the game then."""
    live = house_game(CLOCK)
    live.begin(T0)
    live.submit(0, 0, legal(live), T0)
    assert live.wake_at == T0 + 1.5
    live.wake(T0 + 1.5)
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT
    assert outcome.loser == 1


CPU_CLOCK = dataclasses.replace(CLOCK, kind="cpu")
"""`CLOCK` in CPU time: alice's first move has 1.5 s of it, within a 11.5 s wall ceiling."""


def test_a_cpu_clock_times_its_cpu_players_by_the_cpu_time_they_are_given() -> None:
    live = sim_game(control=CPU_CLOCK, cpu_players={"alice"})
    turn = message(live.begin(T0), "your_turn")
    assert turn["clock"] == {"limit_ms": 1200, "bank_ms": 300, "left_ms": 1500}  # CPU time
    assert live.cpu_turn and live.deadline == T0 + 11.5  # 1.5 s and 10 s more, of wall time
    assert live.wake_at == pytest.approx(T0 + 0.05)  # its CPU time is looked at meanwhile
    live.wake(T0 + 5.0, 100.0)  # asleep: much wall time, little CPU time
    assert not live.over and live.wake_at == pytest.approx(T0 + 5.05)
    accepted = live.submit(0, 0, legal(live), T0 + 9.0, 1400.0)  # charged its CPU time
    assert message(accepted, "move_accepted") == {"game_id": "g1", "turn": 0,
                                                  "elapsed_ms": 1400, "bank_ms": 100}
    bobs = message(accepted, "your_turn")  # bob is no CPU player: wall time
    assert not live.cpu_turn and live.wake_at == T0 + 9.0 + 1.5
    assert bobs["clock"]["left_ms"] == 1500
    live.submit(1, 1, legal(live), T0 + 9.1)
    assert live.cpu_turn and live.deadline == pytest.approx(T0 + 9.1 + 10.3)  # 200 + 100 ms
    live.wake(T0 + 9.2, 301.0)  # past its allowance and bank of CPU time
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT
    assert outcome.loser == 0
    assert outcome.detail == "alice used 200 ms and its 100 ms bank of CPU time on turn 2"
    assert live.wake_at is None


def test_a_cpu_timed_move_that_sleeps_loses_at_its_wall_ceiling() -> None:
    live = sim_game(control=CPU_CLOCK, cpu_players={"alice"})
    live.begin(T0)
    live.wake(T0 + 11.49, 20.0)
    assert not live.over
    live.wake(T0 + 11.5)  # no reading this time: the last one stands
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT
    assert outcome.detail == ("alice took 11.5 s of wall time on turn 0, the ceiling of a "
                              "CPU-timed move (it used 20 ms of its 1500 ms of CPU time)")


def test_a_cpu_timed_move_over_its_cpu_time_is_too_late_and_a_retry_tells_the_cpu_left() -> None:
    live = sim_game(control=dataclasses.replace(CPU_CLOCK, retries=1), cpu_players={"alice"})
    live.begin(T0)
    again = message(live.submit(0, 0, "no such move", T0 + 4.0, 600.0), "your_turn")
    assert again["clock"]["left_ms"] == 900  # CPU time left, whatever the wall time
    assert live.submit(0, 0, legal(live), T0 + 4.5, 1501.0) == []
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT
    assert live.match.turn_count == 0


def test_a_wall_clock_or_a_player_not_measured_keeps_wall_time() -> None:
    for live in (sim_game(control=CLOCK, cpu_players={"alice"}), sim_game(control=CPU_CLOCK)):
        live.begin(T0)
        assert not live.cpu_turn and live.wake_at == T0 + 1.5
        accepted = live.submit(0, 0, legal(live), T0 + 1.25, 1.0)  # a reading changes nothing
        assert message(accepted, "move_accepted")["elapsed_ms"] == 1250


def test_forfeits_and_aborts_end_the_game_with_nothing_left_to_wake() -> None:
    live = sim_game()
    live.begin(T0)
    live.forfeit_player("bob", Termination.DISCONNECT, "bob stayed away")
    outcome = live.match.outcome
    assert outcome is not None and outcome.loser == 1 and live.wake_at is None
    live.abort("too late")  # the first end stays
    assert live.match.outcome is outcome
    aborted = sim_game()
    aborted.begin(T0)
    aborted.abort("x" * 5000)
    detail = aborted.match.outcome.detail  # type: ignore[union-attr]
    assert aborted.over and len(detail) == 1003 and detail.endswith("...")


# -- rebuilt from the stored start, moves and clocks ----------------------------------------

SUBST = Settings.preset("medium", 10).to_json()
RESTORE_CLOCK = TimeControl(move_ms=100, bank_ms=1000, first_move_ms=300, retries=2)


@dataclasses.dataclass
class Snapshot:
    """What the original game was at the start of one turn: what a server stores
    (the record so far, the clocks), the time, and what the mover was told."""

    record: MatchRecord
    clocks: ClockState
    now: float
    turn_fields: dict[str, Any]
    state: Any
    banks: list[float]
    moves: list[int]


def substitution() -> Game[Any, Any]:
    return default_registry().load_game("substitution", SUBST)


def fresh(game: Game[Any, Any], **extra: Any) -> LiveGame:
    match: Match = Match(game, ("alice", "bob"), seed=42, match_id="g7",
                         seed_commitment="commitment")
    return LiveGame("g7", game, match, RESTORE_CLOCK, **extra)


def stored(record: MatchRecord) -> MatchRecord:
    """The record as a server stores it while the game runs: no result yet."""
    return dataclasses.replace(record, outcome=None)


def play(live: LiveGame, script: list[tuple[float, str]], start: float,
         effects: list[Any]) -> list[Snapshot]:
    """Play `live` by `script` ((seconds taken, move) per submission), from `start`;
    a snapshot at the start of each turn (and after a rejected move)."""
    now = start
    snapshots = []
    for taken, move in script:
        turn = message(effects, "your_turn")
        snapshots.append(Snapshot(stored(live.match.record()), live.clock_state(), now, turn,
                                  live.state_json(), [c.bank_ms for c in live.clocks],
                                  [c.moves for c in live.clocks]))
        now += taken
        seat = live.match.to_act()
        effects = live.submit(seat, live.turn, move, now)
    return snapshots


def script_for(game: Game[Any, Any]) -> list[tuple[float, str]]:
    """A whole game's submissions: legal moves at varied speeds, two illegal ones."""
    live = fresh(game)
    live.begin(0.0)
    bot = default_registry().make_bot(game, "random")
    rng = random.Random(3)
    script: list[tuple[float, str]] = []
    now = 0.0
    while live.match.to_act() != TERMINAL:
        if len(script) in (3, 8):
            script.append((0.0625, "no such move"))
            live.submit(live.match.to_act(), live.turn, "no such move", now := now + 0.0625)
        move = bot.choose_move(game, live.match.state, rng)
        text = move if isinstance(move, str) else game.format_move(move)
        taken = rng.choice([0.0625, 0.125, 0.25])
        script.append((taken, text))
        live.submit(live.match.to_act(), live.turn, text, now := now + taken)
    return script


def test_a_game_rebuilt_at_any_turn_is_the_game_that_was_there() -> None:
    game = substitution()
    script = script_for(game)
    original = fresh(game, compact_turns=set())
    start_effects = original.begin(T0)
    snapshots = play(original, script, T0, start_effects)
    assert original.over and len(snapshots) == len(script) > 20
    assert any(s.clocks.retries_left < 2 for s in snapshots)  # some mid-turn, after a rejection
    assert any(s.banks != [1000, 1000] for s in snapshots)  # and some with banks spent
    for k, snapshot in enumerate(snapshots):
        rebuilt = LiveGame.restore(snapshot.record, game, RESTORE_CLOCK, snapshot.clocks)
        assert rebuilt.id == "g7" and rebuilt.turn == len(snapshot.record.turns)
        begun = rebuilt.begin(snapshot.now)
        assert [m.fields for m in begun if isinstance(m, Outgoing) and m.type == "game_start"] \
            == [m.fields for m in start_effects if m.type == "game_start"]
        turn = message(begun, "your_turn")
        expected = dict(snapshot.turn_fields)
        expected.pop("last_move", None)
        clock = turn["clock"]
        if snapshot.clocks.retries_left < RESTORE_CLOCK.retries:
            # taken after a rejected move: the turn starts again (`ClockState`)
            assert abs(clock["left_ms"] - clock["limit_ms"] - clock["bank_ms"]) <= 1
            expected["clock"] = {**expected["clock"], "left_ms": clock["left_ms"]}
        assert turn == expected, k
        assert rebuilt.state_json() == snapshot.state
        assert [c.bank_ms for c in rebuilt.clocks] == snapshot.banks
        assert [c.moves for c in rebuilt.clocks] == snapshot.moves
        assert rebuilt.wake_at == pytest.approx(snapshot.now + clock["left_ms"] / 1000, abs=1e-3)
    # played on from its middle, the rebuilt game ends as the original did
    middle = len(snapshots) // 2
    rebuilt = LiveGame.restore(snapshots[middle].record, game, RESTORE_CLOCK,
                               snapshots[middle].clocks)
    play(rebuilt, script[middle:], snapshots[middle].now,
         rebuilt.begin(snapshots[middle].now))
    assert rebuilt.match.record() == original.match.record()
    assert [c.bank_ms for c in rebuilt.clocks] == [c.bank_ms for c in original.clocks]


def test_a_game_stored_with_its_last_move_but_not_its_result_is_rebuilt_over() -> None:
    game = substitution()
    original = fresh(game)
    play(original, script_for(game), T0, original.begin(T0))
    rebuilt = LiveGame.restore(stored(original.match.record()), game, RESTORE_CLOCK,
                               original.clock_state())
    assert rebuilt.over and rebuilt.match.outcome == original.match.outcome
    assert types(rebuilt.begin(T0 + 60)) == [("alice", "game_start"), ("bob", "game_start")]
    assert rebuilt.wake_at is None  # the driver stores the result at once


def test_a_rebuilt_game_whose_time_runs_out_loses_on_time_like_the_original() -> None:
    game = substitution()
    live = fresh(game)
    live.begin(T0)
    record = stored(live.match.record())
    rebuilt = LiveGame.restore(record, substitution(), RESTORE_CLOCK, ClockState((40.0, 0.0), 2))
    rebuilt.begin(T0 + 50)
    assert rebuilt.wake_at == pytest.approx(T0 + 50 + 0.34)  # its first 300 ms and 40 ms bank
    rebuilt.wake(T0 + 50.34)
    outcome = rebuilt.match.outcome
    assert outcome is not None and outcome.termination is Termination.TIMEOUT


def test_a_rebuilt_game_with_a_house_seat_to_move_asks_for_its_move() -> None:
    game = substitution()
    key = HouseBotKey((), False, "substitution", "{}", "random")
    original = fresh(game)
    original.begin(T0)
    bot = default_registry().make_bot(game, "random")
    move = bot.choose_move(game, original.match.state, random.Random(1))
    original.submit(0, 0, move if isinstance(move, str) else game.format_move(move), T0 + 0.1)
    rebuilt = LiveGame.restore(stored(original.match.record()), substitution(), RESTORE_CLOCK,
                               original.clock_state(), house={1: HousePlayer("random", key)})
    assert rebuilt.begin(T0 + 1) == [Outgoing("alice", "game_start", rebuilt.start_message(0)),
                                     HouseTurn(seat=1, turn=1)]


def test_a_record_that_does_not_replay_is_not_rebuilt() -> None:
    game = substitution()
    live = fresh(game)
    live.begin(T0)
    bot = default_registry().make_bot(game, "random")
    rng = random.Random(2)
    for turn in range(4):
        move = bot.choose_move(game, live.match.state, rng)
        text = move if isinstance(move, str) else game.format_move(move)
        live.submit(live.match.to_act(), turn, text, T0 + turn)
    record = stored(live.match.record())
    clocks = live.clock_state()
    turns = list(record.turns)
    turns[2] = turns[2]._replace(chance=99)
    with pytest.raises(DefectiveRecord, match="turn 2") as bad_roll:
        LiveGame.restore(dataclasses.replace(record, turns=tuple(turns)), game,
                         RESTORE_CLOCK, clocks)
    assert bad_roll.value.defect.turn == 2 and "mismatch" in bad_roll.value.defect.code
    other_seed = dataclasses.replace(record, seed=43)
    with pytest.raises(DefectiveRecord, match="does not follow from seed 43"):
        LiveGame.restore(other_seed, game, RESTORE_CLOCK, clocks)
    over = dataclasses.replace(record, outcome=Outcome(1, None, Termination.RESIGNATION, loser=0))
    with pytest.raises(DefectiveRecord, match="game-over"):
        LiveGame.restore(over, game, RESTORE_CLOCK, clocks)
    with pytest.raises(ValueError, match="banks"):
        LiveGame.restore(record, game, RESTORE_CLOCK, ClockState((1.0,), 0))
    with pytest.raises(ValueError, match="retries"):
        LiveGame.restore(record, game, RESTORE_CLOCK, ClockState((1.0, 1.0), 3))
