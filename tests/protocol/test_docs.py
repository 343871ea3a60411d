"""The examples in docs/protocol.md follow the schema, and both encodings agree."""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

import msgpack

from arena.game import Outcome, Termination
from arena.record import MatchRecord, TurnRecord
from arena.registry import default_registry
from arena.seeds import parse_seed, seed_commitment
from arena.validate import validate_record
from protocol import SCHEMA, Encoding, Message

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def block(name: str) -> list[tuple[str, str]]:
    match = re.search(rf"```{name}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert match, f"docs/protocol.md has no {name} block"
    lines = []
    for line in match[1].splitlines():
        direction, _, payload = line.partition(" ")
        assert direction in (">", "<"), line
        lines.append((direction, payload))
    return lines


def session() -> list[tuple[str, Message]]:
    return [(d, Message.from_wire(json.loads(text), sender="client" if d == ">" else "server"))
            for d, text in block("arena-session-json")]


def test_json_session_follows_the_schema():
    messages = session()
    assert [m.type for _, m in messages][:3] == ["hello", "welcome", "game_start"]
    assert messages[-1][1].type == "game_over"


def test_msgpack_session_is_the_json_session():
    json_lines = block("arena-session-json")
    hex_lines = block("arena-session-msgpack")
    assert len(json_lines) == len(hex_lines)
    for (d1, text), (d2, hexed) in zip(json_lines, hex_lines, strict=True):
        assert d1 == d2
        frame = bytes.fromhex(hexed)
        data = Encoding.MSGPACK.decode(frame)
        assert data == json.loads(text)
        assert msgpack.packb(json.loads(text), use_bin_type=True) == frame
        assert Encoding.JSON.encode(data) == text


def test_the_example_game_is_a_real_game():
    """Rebuild the record from the session; the referee and the seed agree with it."""
    messages = [m for _, m in session()]
    start = next(m for m in messages if m.type == "game_start")
    over = messages[-1]
    turns = []
    for message in messages:
        if message.type == "move_accepted":
            move = next(m for m in reversed(messages[:messages.index(message)]) if m.type == "move")
            chance = next(m for m in messages if m.type == "your_turn")["chance"]
            turns.append((message["turn"], start["seat"], move["move"], chance))
        if message.type == "opponent_moved":
            turns.append((message["turn"], message["seat"], message["move"], message["chance"]))
    game = default_registry().load_game(start["game"], start["settings"])
    state = game.initial_state()
    records = []
    for number, seat, move, chance in sorted(turns):
        state = game.apply_chance(state, chance)
        state = game.check_move(state, game.parse_move(move))
        records.append(TurnRecord(number, seat, move, chance, game.facts(state)))
    outcome = game.outcome(state)
    assert outcome is not None and list(outcome.scores) == over["scores"]
    assert outcome.result == over["result"] and over["termination"] == "normal"
    record = MatchRecord(start["game"], start["settings"], tuple(start["players"]), tuple(records),
                         Outcome(outcome.winner, outcome.scores, Termination.NORMAL),
                         seed=parse_seed(over["seed"]), id=start["game_id"], chance_name="roll",
                         seed_commitment=start["seed_commitment"])
    assert validate_record(record) is None  # the rolls follow from the revealed seed


def seed_example() -> dict[str, str]:
    match = re.search(r"```arena-seed-example\n(.*?)```", DOC.read_text(encoding="utf-8"),
                      re.DOTALL)
    assert match, "docs/protocol.md has no arena-seed-example block"
    return {key: value.strip() for key, _, value in
            (line.partition(":") for line in match[1].splitlines())}


def test_the_worked_commitment_example_checks_by_hand():
    example = seed_example()
    seed = int(example["seed"])
    assert seed.bit_length() == 128  # a real server seed
    assert example["text"] == f"arena-seed-v1:{example['game_id']}:{example['seed']}"
    assert hashlib.sha256(example["text"].encode("utf-8")).hexdigest() == example["commitment"]
    assert seed_commitment(example["game_id"], seed) == example["commitment"]
    draw = random.Random(seed).random  # the rolls, as the document computes them
    assert " ".join(str(int(draw() * 2)) for _ in range(2)) == example["rolls"]
    # the example is the session's game: its commitment, then its revealed seed
    messages = [m for _, m in session()]
    start = next(m for m in messages if m.type == "game_start")
    assert start["game_id"] == example["game_id"]
    assert start["seed_commitment"] == example["commitment"]
    assert messages[-1]["seed"] == example["seed"]
    rolls = {m["turn"]: m["chance"] for m in messages if m.type in ("your_turn", "opponent_moved")}
    assert " ".join(str(rolls[turn]) for turn in sorted(rolls)) == example["rolls"]


def test_the_message_table_is_the_schema():
    text = DOC.read_text(encoding="utf-8")
    for spec in SCHEMA.values():
        fields = ", ".join(
            ("" if f.required else "?") + f"{f.name}: {f.kind}" + (" or null" if f.nullable else "")
            for f in spec.fields)
        assert f"| `{spec.type}` | {spec.sender} | {fields} |" in text, spec.type
