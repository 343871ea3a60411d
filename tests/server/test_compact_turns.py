"""The ``compact-turns`` capability: the opponent's move rides on the next ``your_turn``."""

from __future__ import annotations

from clients.sdk import Turn

from .conftest import SUBST, stored_record


async def play_raw(arena, capabilities):
    """Seat 0 is a raw client (with `capabilities`) that plays the first legal move; seat
    1 an SDK random bot. Returns the messages the raw client got, and the record."""
    await arena.client("other", "random")
    token = await arena.add_bot("raw")
    raw = await arena.raw()
    assert (await raw.hello(token, capabilities=capabilities))["type"] == "welcome"
    live = arena.server.start_game("substitution", SUBST, ["raw", "other"], seed=5)
    received = []
    while True:
        message = await raw.recv()
        received.append(message)
        if message["type"] == "your_turn":
            legal = live.game.legal_moves(live.match.state, limit=1).moves
            await raw.send("move", game_id=live.id, turn=message["turn"], move=legal[0])
        if message["type"] == "game_over":
            break
    record = await stored_record(live, 5)
    return received, record


async def test_a_compact_client_gets_the_move_inside_its_next_turn(arena):
    received, record = await play_raw(arena, ["compact-turns"])
    turns = [m for m in received if m["type"] == "your_turn"]
    assert len(turns) == 12
    assert "last_move" not in turns[0]  # it opens the game: nothing was played before
    for message in turns[1:]:  # every later turn follows bob's move, which it carries
        played = record.turns[message["turn"] - 1]
        assert message["last_move"] == {"turn": message["turn"] - 1, "seat": 1,
                                        "move": played.move, "chance": played.chance}
    # bob's last move ends the game: no turn follows, so it comes as opponent_moved
    moved = [m for m in received if m["type"] == "opponent_moved"]
    assert [m["turn"] for m in moved] == [len(record.turns) - 1]
    assert received[-2]["type"] == "opponent_moved" and received[-1]["type"] == "game_over"


async def test_without_the_capability_every_move_comes_as_opponent_moved(arena):
    received, record = await play_raw(arena, ["resume"])
    moved = [m["turn"] for m in received if m["type"] == "opponent_moved"]
    assert moved == list(range(1, len(record.turns), 2))
    assert all("last_move" not in m for m in received if m["type"] == "your_turn")


async def test_the_sdk_asks_for_compact_turns_and_shows_the_last_move(arena):
    seen: list[Turn] = []

    def first_legal(turn: Turn) -> str:
        seen.append(turn)
        return turn.legal_moves(limit=1)[0]

    await arena.client("sdk", first_legal)
    await arena.client("other", "random")
    record = await arena.server.play_game("substitution", SUBST, ["other", "sdk"], seed=8)
    assert len(seen) == 12
    for turn in seen:  # seat 1: every turn follows the other side's move
        played = record.turns[turn.turn - 1]
        assert turn.last_move == {"turn": turn.turn - 1, "seat": 0, "move": played.move,
                                  "chance": played.chance}
