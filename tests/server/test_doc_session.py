"""The worked session of docs/protocol.md, replayed against a real server.

Alice's lines are sent as written (with the real token); the server's lines must come
back as written, apart from the game id, the token and the times. Bob, the opponent,
is a scripted bot that plays the moves the document shows.
"""

from __future__ import annotations

import json

from arena.seeds import seed_commitment
from arena.server import TimeControl
from tests.protocol.test_docs import block

SEED = int(next(json.loads(text) for _, text in block("arena-session-json")
                if '"game_over"' in text)["seed"])


def normalise(data: dict, game_id: str) -> dict:
    data = json.loads(json.dumps(data).replace(game_id, "GAME"))
    if data["type"] == "game_start":  # it commits to the seed of its own game id
        data["seed_commitment"] = data["seed_commitment"] == seed_commitment(game_id, SEED)
    if data["type"] == "move_accepted":
        data["elapsed_ms"] = 0
    if data["type"] == "your_turn":
        data["clock"]["left_ms"] = 0
    return data


async def test_the_documented_session_happens_as_documented(arena):
    lines = [(direction, json.loads(text)) for direction, text in block("arena-session-json")]
    start = next(data for _, data in lines if data["type"] == "game_start")
    over = lines[-1][1]
    doc_game = start["game_id"]
    scripted = {data["turn"]: data["move"] for _, data in lines if data["type"] == "opponent_moved"}
    await arena.client("bob", lambda turn: scripted[turn.turn])
    token = await arena.add_bot("alice")
    alice = await arena.raw()
    game_id = None
    for direction, data in lines:
        if direction == ">":
            if data["type"] == "hello":
                data = {**data, "token": token}
            if "game_id" in data:
                data = {**data, "game_id": game_id}
            await alice.send_raw(json.dumps(data))
            continue
        if data["type"] == "game_start":  # the game begins when the server is asked
            live = arena.server.start_game(
                start["game"], start["settings"], start["players"], seed=int(over["seed"]),
                time_control=TimeControl(**start["time_control"]))
            game_id = live.id
        received = await alice.recv()
        if game_id is not None:
            assert normalise(received, game_id) == normalise(data, doc_game)
        else:
            assert received == data
