"""What the server tells bots (issue 13): legal moves on the wire, a fresh turn after a
rejected move, clear rejection codes and handshake errors, the ladder in `welcome`,
and debug lines stored with the game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.record import read_jsonl
from arena.registry import default_registry
from arena.server import LadderConfig, TimeControl
from arena.server.aids import LogLimits
from arena.web.replay import frames
from protocol import PROTOCOL_VERSION, Encoding

from .conftest import SUBST

ROOT = Path(__file__).resolve().parents[2]
SLOW = TimeControl(move_ms=20_000, bank_ms=20_000, first_move_ms=20_000, retries=2)
PYTHON_TYPES = re.compile(r"\b(str|int|bytes|dict|list|NoneType|ExtType|ValueError|TypeError)\b")


async def bot(arena, name, *, capabilities=("legal-moves",), games=None, encoding=Encoding.JSON):
    token = await arena.add_bot(name)
    raw = await arena.raw(encoding)
    fields = {"capabilities": list(capabilities)}
    if games is not None:
        fields["games"] = games
    welcome = await raw.hello(token, **fields)
    assert welcome["type"] == "welcome", welcome
    return raw, welcome


async def test_legal_moves_only_for_clients_that_ask(arena):
    asks, _ = await bot(arena, "asks")
    plain, _ = await bot(arena, "plain", capabilities=())
    arena.server.start_game("sim", {"vertices": 5}, ["asks", "plain"], seed=1, time_control=SLOW)
    turn = await asks.expect("your_turn")
    sim = default_registry().load_game("sim", {"vertices": 5})
    assert turn["legal"] == list(sim.legal_moves(sim.initial_state()).moves)
    assert turn["legal_count"] == 10 and "legal_steps" not in turn  # sim is not step-built
    await asks.send("move", game_id=turn["game_id"], turn=0, move=turn["legal"][0])
    other = await plain.expect("your_turn")
    assert not {"legal", "legal_count", "legal_steps"} & set(other)


async def test_a_list_longer_than_max_legal_is_null_with_its_count(make_arena):
    arena = await make_arena(max_legal=3)
    raw, welcome = await bot(arena, "few")
    await arena.client("other", "sim-random")
    assert welcome["limits"]["max_legal"] == 3
    arena.server.start_game("sim", {"vertices": 5}, ["few", "other"], seed=1, time_control=SLOW)
    turn = await raw.expect("your_turn")
    assert turn["legal"] is None and turn["legal_count"] == 10


async def test_substitution_turns_carry_legal_steps_and_answer_legal_requests(make_arena):
    arena = await make_arena(max_legal=1)
    raw, _ = await bot(arena, "steps")
    await arena.client("other", "random")
    live = arena.server.start_game("substitution", SUBST, ["steps", "other"], seed=7,
                                   time_control=SLOW)  # a first roll with steps to take
    turn = await raw.expect("your_turn")
    game = live.game
    assert not game.legal_moves(live.match.state, 1).complete
    assert turn["legal"] is None and turn["legal_count"] is None  # too many to count
    steps = turn["legal_steps"]
    expected = game.legal_steps(live.match.state, "")
    assert steps == {"steps": list(expected.steps), "can_end": expected.can_end,
                     "problem": expected.problem, "separator": ", "}
    first = steps["steps"][0]
    await raw.send("legal", game_id=live.id, turn=0, steps=first)
    answer = await raw.expect("legal_steps")
    after = game.legal_steps(live.match.state, first)
    assert answer["prefix"] == first and answer["legal_steps"]["steps"] == list(after.steps)
    # wrong requests get clear errors, and cost nothing
    for steps_text, turn_number, code in (("-1 99 0", 0, "illegal-steps"),
                                          (first, 1, "future-turn"), ("x", 0, "illegal-steps")):
        await raw.send("legal", game_id=live.id, turn=turn_number, steps=steps_text)
        error = await raw.expect("error")
        assert error["code"] == code and error["game_id"] == live.id, error
        assert not PYTHON_TYPES.search(error["message"]), error["message"]
    await raw.send("legal", game_id=live.id, turn=0, steps="-1 99 0")
    assert "step 0" in (await raw.expect("error"))["message"]  # 0-based, as move_rejected.step


async def test_a_legal_request_in_a_game_not_built_in_steps(arena):
    raw, _ = await bot(arena, "simmer")
    await arena.client("other", "sim-random")
    live = arena.server.start_game("sim", {}, ["simmer", "other"], seed=1, time_control=SLOW)
    await raw.expect("your_turn")
    await raw.send("legal", game_id=live.id, turn=0, steps="")
    assert (await raw.expect("error"))["code"] == "not-step-built"


async def test_after_a_retryable_rejection_a_fresh_turn_comes(arena):
    raw, _ = await bot(arena, "retry")
    await arena.client("other", "sim-random")
    live = arena.server.start_game("sim", {}, ["retry", "other"], seed=1, time_control=SLOW)
    turn = await raw.expect("your_turn")
    assert turn["retries_left"] == 2
    await raw.send("move", game_id=live.id, turn=0, move="0 0")
    rejected = await raw.expect("move_rejected")
    assert rejected["code"] == "same-vertex" and rejected["retries_left"] == 1
    again = await raw.recv()  # at once, nothing in between
    assert again["type"] == "your_turn" and again["turn"] == 0 and again["retries_left"] == 1
    assert again["state"] == turn["state"] and again["legal"] == turn["legal"]
    assert 0 < again["clock"]["left_ms"] <= turn["clock"]["left_ms"]
    await raw.send("move", game_id=live.id, turn=0, move=again["legal"][0])
    assert (await raw.expect("move_accepted"))["turn"] == 0


async def test_moves_for_other_turns_get_codes_that_say_so(arena):
    raw, _ = await bot(arena, "codes")
    other, _ = await bot(arena, "waits")  # a raw opponent: it moves when told
    live = arena.server.start_game("sim", {}, ["codes", "waits"], seed=1, time_control=SLOW)
    turn = await raw.expect("your_turn")
    await raw.send("move", game_id=live.id, turn=3, move="0 1")
    future = await raw.expect("move_rejected")
    assert future["code"] == "future-turn" and "turn 3 has not begun" in future["message"]
    await raw.send("move", game_id=live.id, turn=0, move=turn["legal"][0])
    await raw.expect("move_accepted")
    await raw.send("move", game_id=live.id, turn=0, move="0 2")  # again: turn 0 is over
    stale = await raw.expect("move_rejected")
    assert stale["code"] == "stale-turn" and "turn 0 is over" in stale["message"], stale
    await raw.send("move", game_id=live.id, turn=1, move="0 2")  # the opponent's turn
    mine = await raw.expect("move_rejected")
    assert mine["code"] == "not-your-turn" and "seat 1 is to move" in mine["message"]
    assert live.turn == 1 and live.retries_left == 2  # none of it cost the mover anything
    assert (await other.expect("your_turn"))["turn"] == 1
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    for code in ("stale-turn", "future-turn", "not-your-turn"):
        assert f"`{code}`" in doc


async def test_a_hello_without_a_token_is_told_so(arena):
    raw = await arena.raw()
    await raw.send("hello", protocol=PROTOCOL_VERSION, role="bot")
    error = await raw.recv()
    assert error["code"] == "unauthorized" and "needs a 'token'" in error["message"]


async def test_welcome_names_the_ladder_and_warns_a_bot_of_another_game(make_arena):
    arena = await make_arena(ladder=LadderConfig(game="sim", settings={"vertices": 6},
                                                 interval=60))
    _, welcome = await bot(arena, "fine", games=["sim"])
    assert welcome["ladder"] == {"game": "sim", "settings": {"vertices": 6}}
    assert welcome["in_progress"] == welcome["games"] == []
    token = await arena.add_bot("elsewhere")
    raw = await arena.raw()
    assert (await raw.hello(token, games=["durak", "chess"]))["type"] == "welcome"
    errors = [await raw.expect("error"), await raw.expect("error")]
    codes = {error["code"]: error["message"] for error in errors}
    assert "chess" in codes["unknown-game-name"]
    assert "ladder plays 'sim'" in codes["no-ladder-game"]
    assert all(error["fatal"] is False for error in errors)
    await raw.send("ping", id=5)
    assert (await raw.expect("pong"))["id"] == 5  # still connected


async def test_log_lines_are_bounded_and_stored_with_the_game(make_arena):
    arena = await make_arena(log_limits=LogLimits(max_log_bytes=20, max_logs_per_turn=2,
                                                  max_logs_per_game=3))
    raw, welcome = await bot(arena, "chatty")
    assert welcome["limits"]["max_logs_per_turn"] == 2
    await arena.client("other", "sim-random")
    live = arena.server.start_game("sim", {}, ["chatty", "other"], seed=1, time_control=SLOW)
    turn = await raw.expect("your_turn")
    await raw.send("log", game_id=live.id, text="x" * 21)
    assert (await raw.expect("error"))["code"] == "log-too-long"
    for text in ("first", "second", "third", "fourth"):
        await raw.send("log", game_id=live.id, text=text)
    limit = await raw.expect("error")
    assert limit["code"] == "log-limit"  # said once a turn, not per line
    await raw.send("move", game_id=live.id, turn=0, move=turn["legal"][0])
    while (data := await raw.recv())["type"] != "game_over":
        if data["type"] == "your_turn":
            await raw.send("log", game_id=live.id, text=f"turn {data['turn']}")
            await raw.send("move", game_id=live.id, turn=data["turn"], move=data["legal"][0])
    record = read_jsonl(live.log.splitlines())
    assert [(note.turn, note.player, note.text) for note in record.notes] == [
        (0, 0, "first"), (0, 0, "second"), (2, 0, "turn 2")]  # 3 a game at most
    replay = frames(record, default_registry())
    assert replay["frames"][1]["notes"] == [{"player": 0, "text": "first"},
                                            {"player": 0, "text": "second"}]
    assert replay["frames"][3]["notes"] == [{"player": 0, "text": "turn 2"}]


@pytest.mark.parametrize("encoding", list(Encoding))
async def test_wire_errors_name_no_python_types(arena, encoding):
    raw, _ = await bot(arena, "typed", encoding=encoding)
    bad = [{"type": "ping", "id": "1"}, {"type": "ping", "id": None},
           {"type": "move", "game_id": "g", "turn": 0, "move": 5}]
    for data in bad:
        await raw.send(data["type"], **{k: v for k, v in data.items() if k != "type"})
        error = await raw.expect("error")
        assert not PYTHON_TYPES.search(error["message"]), error["message"]
    frame = b"\x82\xa4type\xa4ping\xa2id\xc4\x01x" if encoding is Encoding.MSGPACK \
        else '{"type": "ping", "id": NaN}'
    await raw.send_raw(frame)
    error = await raw.expect("error")
    assert not PYTHON_TYPES.search(error["message"]), error["message"]
    assert "binary data" in error["message"] or "NaN" in error["message"]
