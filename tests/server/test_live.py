"""`LiveGame` without a server: what it asks to send (`Outgoing`, `HouseTurn`)."""

from __future__ import annotations

from typing import Any

from arena.game import Termination
from arena.match import Match
from arena.registry import default_registry
from arena.server.house import HouseBotKey
from arena.server.live import HousePlayer, HouseTurn, LiveGame, Outgoing

from .conftest import FAST


def sim_game(players: tuple[str, str] = ("alice", "bob"), **extra: Any) -> LiveGame:
    game = default_registry().load_game("sim", {})
    match: Match = Match(game, players, seed=1, match_id="g1")
    return LiveGame("g1", game, match, FAST, **extra)


def legal(live: LiveGame) -> str:
    return live.game.legal_moves(live.match.state).moves[0]


def types(effects: list[Any]) -> list[tuple[str | None, str]]:
    return [(e.to, e.type) for e in effects if isinstance(e, Outgoing)]


async def test_begin_sends_game_start_to_each_player_then_the_first_turn() -> None:
    live = sim_game()
    effects = live.begin()
    assert types(effects) == [("alice", "game_start"), ("bob", "game_start"),
                              ("alice", "your_turn")]
    turn = effects[-1]
    assert isinstance(turn, Outgoing) and turn.vital and turn.fields["turn"] == 0
    assert live.begin() == []  # once only
    live.stop()


async def test_a_move_answers_the_mover_tells_the_opponent_and_the_spectators() -> None:
    live = sim_game()
    live.begin()
    live.spectators.add(object())  # type: ignore[arg-type]  # any spectator: only counted
    move = legal(live)
    effects = live.submit(0, 0, move)
    assert types(effects) == [("alice", "move_accepted"), ("bob", "opponent_moved"),
                              (None, "moved"), ("bob", "your_turn")]
    moved = effects[1]
    assert isinstance(moved, Outgoing)
    assert moved.fields == {"game_id": "g1", "turn": 0, "seat": 0, "move": move, "chance": None}
    assert live.turn == 1 and not live.over
    live.stop()


async def test_a_compact_turn_carries_the_opponents_move() -> None:
    live = sim_game(compact_turns={"bob"})
    live.begin()
    move = legal(live)
    effects = live.submit(0, 0, move)
    assert types(effects) == [("alice", "move_accepted"), ("bob", "your_turn")]
    turn = effects[-1]
    assert isinstance(turn, Outgoing) and turn.fields["last_move"]["move"] == move
    live.stop()


async def test_moves_out_of_turn_are_rejected_and_an_illegal_one_forfeits() -> None:
    live = sim_game()
    live.begin()
    wrong = live.submit(1, 0, legal(live))
    assert types(wrong) == [("bob", "move_rejected")]
    assert isinstance(wrong[0], Outgoing) and wrong[0].fields["code"] == "not-your-turn"
    stale = live.submit(0, 5, legal(live))
    assert isinstance(stale[0], Outgoing) and stale[0].fields["code"] == "future-turn"
    illegal = live.submit(0, 0, "no such move")  # FAST allows no retry
    assert types(illegal) == [("alice", "move_rejected")]
    assert isinstance(illegal[0], Outgoing) and illegal[0].fields["retries_left"] == -1
    assert live.over and live.ended.done()
    outcome = live.match.outcome
    assert outcome is not None and outcome.termination is Termination.ILLEGAL_MOVE


async def test_a_house_seat_to_move_is_a_house_turn_not_a_message() -> None:
    key = HouseBotKey((), False, "sim", "{}", "random")
    live = sim_game(("alice", "house:random"), house={1: HousePlayer("random", key)})
    assert types(live.begin()) == [("alice", "game_start"), ("alice", "your_turn")]
    effects = live.submit(0, 0, legal(live))
    assert types(effects) == [("alice", "move_accepted")]
    assert effects[-1] == HouseTurn(seat=1, turn=1)
    live.stop()
