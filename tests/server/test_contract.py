"""The machine-readable contract: every frame of a full game of every game, in both
encodings, follows the JSON Schema that `arena schema --game NAME` prints (the game's
settings, states, chance outcomes and moves included), and the schema is strict enough
to catch what is wrong."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import jsonschema
import pytest

from arena.bot_check import default_opponent
from arena.games.substitution import Settings
from arena.registry import default_registry
from arena.schema import contract
from protocol import PROTOCOL_VERSION, Encoding

GAMES = {
    "substitution": Settings.preset("medium", 3).to_json(),
    "sim": {"vertices": 5},
    "heaps": {"example": "49932", "target": 384, "start": [7, 10]},
    "durak": {"cards": "01101001", "draw_rule": False, "first": 0},
    "tiles": {"tiles": 6, "players": 2},
}


def validator(game: str | None) -> jsonschema.Draft202012Validator:
    schema = contract(default_registry(), game)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


class Recorder:
    """A raw connection whose every frame, both ways, is checked against the schema."""

    def __init__(self, arena: Any, encoding: Encoding, check: jsonschema.Draft202012Validator,
                 name: str) -> None:
        self.arena, self.encoding, self.check, self.name = arena, encoding, check, name
        self.frames: list[dict[str, Any]] = []

    async def open(self) -> Recorder:
        self.raw = await self.arena.raw(self.encoding)
        return self

    def _checked(self, data: dict[str, Any], way: str) -> None:
        error = jsonschema.exceptions.best_match(self.check.iter_errors(data))
        assert error is None, f"{self.name} {way} {data}: {error.message} at " \
                              f"{list(error.absolute_path)}"

    async def send(self, type: str, /, *, check: bool = True, **fields: Any) -> None:
        data = {"type": type, **fields}
        if check:
            self._checked(data, "sent")
        await self.raw.send(type, **fields)

    async def recv(self) -> dict[str, Any]:
        data = await self.raw.recv(timeout=20)
        self._checked(data, "received")
        self.frames.append(data)
        return data

    async def expect(self, type: str) -> dict[str, Any]:
        while (data := await self.recv())["type"] != type:
            pass
        return data


async def build_by_steps(bot: Recorder, turn: dict[str, Any]) -> str:
    """A move of a step-built game, one `legal` request per step."""
    steps, options = "", turn["legal_steps"]
    while options["steps"]:
        steps = options["steps"][0] if not steps else steps + options["separator"] + options["steps"][0]
        await bot.send("legal", game_id=turn["game_id"], turn=turn["turn"], steps=steps)
        options = (await bot.expect("legal_steps"))["legal_steps"]
    assert options["can_end"]
    return steps


async def play_recorded(arena: Any, game: str, encoding: Encoding) -> dict[str, list[str]]:
    check = validator(game)
    registry = default_registry()
    operator_token = await arena.add_bot(f"op-{game}-{encoding.value}", operator=True)
    bot_name = f"bot-{game}-{encoding.value}"
    bot_token = await arena.add_bot(bot_name)
    operator = await Recorder(arena, encoding, check, "operator").open()
    bot = await Recorder(arena, encoding, check, "bot").open()
    watcher = await Recorder(arena, encoding, check, "spectator").open()
    await operator.send("hello", protocol=PROTOCOL_VERSION, role="operator", token=operator_token)
    await bot.send("hello", protocol=PROTOCOL_VERSION, role="bot", token=bot_token,
                   games=[game], capabilities=["legal-moves", "compact-turns"], client="test")
    await watcher.send("hello", protocol=PROTOCOL_VERSION, role="spectator")
    for client in (operator, bot, watcher):
        await client.expect("welcome")
    await operator.send("request_game", request_id="r1", game=game, settings=GAMES[game],
                        players=[bot_name, "house:" + default_opponent(registry, game)], seed=7,
                        time_control={"move_ms": 5000, "bank_ms": 5000, "first_move_ms": 5000,
                                      "retries": 1})
    game_id = (await operator.expect("game_requested"))["game_id"]
    await bot.expect("game_start")
    first = True
    while True:
        data = await bot.recv()
        if data["type"] == "game_over":
            break
        if data["type"] != "your_turn":
            continue
        if first:  # the spectator joins, a debug line, a stale move, a move to correct
            first = False
            await watcher.send("spectate", game_id=game_id)
            await watcher.expect("game_state")
            await bot.send("log", game_id=game_id, text="hello from the contract test")
            await bot.send("move", game_id=game_id, turn=data["turn"] + 5, move="x", check=False)
            assert (await bot.expect("move_rejected"))["code"] == "future-turn"
            await bot.send("move", game_id=game_id, turn=data["turn"], move="\u00bfx?", check=False)
            rejected = await bot.expect("move_rejected")
            assert rejected["code"] == "malformed" and rejected["retries_left"] == 0
            data = await bot.expect("your_turn")  # the same turn again, with the clock
            await bot.send("ping", id=1)
            await bot.expect("pong")
        if data.get("legal_steps") is not None:  # step-built: by legal requests
            move = await build_by_steps(bot, data)
        else:
            move = data["legal"][0]
        await bot.send("move", game_id=game_id, turn=data["turn"], move=move)
    over = await operator.expect("game_over")
    assert over["termination"] == "normal", over
    assert '"hello from the contract test"' in over["log"]  # the log line, stored
    await watcher.expect("game_over")
    await bot.send("resign", game_id=game_id)  # too late: an error, also in the schema
    assert (await bot.expect("error"))["code"] == "unknown-game"
    return {name: [frame["type"] for frame in client.frames]
            for name, client in (("bot", bot), ("operator", operator), ("spectator", watcher))}


@pytest.mark.parametrize("encoding", list(Encoding), ids=lambda e: e.value)
@pytest.mark.parametrize("game", sorted(GAMES))
async def test_every_frame_of_a_game_follows_the_schema(arena, game, encoding):
    seen = await play_recorded(arena, game, encoding)
    assert {"welcome", "game_start", "your_turn", "move_accepted", "move_rejected", "pong",
            "game_over", "error"} <= set(seen["bot"])
    assert {"game_state", "moved", "game_over"} <= set(seen["spectator"])
    assert {"game_requested", "game_over"} <= set(seen["operator"])
    if game == "substitution":
        assert "legal_steps" in seen["bot"]


def test_every_message_and_game_part_is_in_the_contract():
    schema = contract(default_registry())
    jsonschema.Draft202012Validator.check_schema(schema)
    from protocol import SCHEMA

    assert set(SCHEMA) <= set(schema["$defs"])
    assert set(schema["x-games"]) == set(default_registry().games)
    for name, game in schema["x-games"].items():
        assert set(game["schema"]) == {"settings", "state", "chance", "move"}, name
        jsonschema.Draft202012Validator.check_schema(game["schema"]["state"])


@pytest.mark.parametrize(("game", "message", "bad"), [
    ("sim", {"type": "move", "game_id": "g", "turn": 0, "move": "0-1"}, "does not match"),
    ("durak", {"type": "move", "game_id": "g", "turn": 0, "move": "lay seven"}, "does not match"),
    ("substitution", {"type": "move", "game_id": "g", "turn": 0, "move": "-1 0"}, "does not match"),
    ("sim", {"type": "game_state", "game_id": "g", "game": "sim", "settings": {"vertices": 9},
             "players": [], "turn": 0, "to_act": 0, "chance": None,
             "state": {"vertices": 5, "red": [], "green": []}}, "maximum"),
    ("tiles", {"type": "moved", "game_id": "g", "turn": 0, "seat": 0, "move": "pair",
               "chance": [7, 1], "state": {}}, "maximum"),
    ("durak", {"type": "ping", "id": 1, "extra": True}, "Additional properties"),
    (None, {"type": "hello", "protocol": 2, "role": "bot"}, "1 was expected"),
])
def test_the_schema_catches_what_is_wrong(game, message, bad):
    def messages(errors: Any) -> list[str]:
        return [text for error in errors
                for text in (error.message, *messages(error.context or []))]

    found = messages(validator(game).iter_errors(message))
    assert found and any(bad in text for text in found), found


async def test_the_server_serves_the_contract(arena):
    def get(path: str) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{arena.server.port}{path}") as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    status, body = await asyncio.to_thread(get, "/api/schema")
    assert status == 200 and body == json.loads(json.dumps(contract(default_registry())))
    status, body = await asyncio.to_thread(get, "/api/schema?game=durak")
    assert status == 200 and body["x-game"]["name"] == "durak"
    assert body["$defs"]["game-state"]["properties"]["hands"]["type"] == "array"
    status, body = await asyncio.to_thread(get, "/api/schema?game=chess")
    assert status == 404 and body["code"] == "unknown-game"
    assert "unknown game 'chess'" in body["message"]
