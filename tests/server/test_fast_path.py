"""Frames past the handshake are judged in the callback that read them (the fast path);
everything it leaves to the connection's task keeps its order."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.exceptions import ConnectionClosed

from arena.server.connection import ArenaConnection

from .conftest import SUBST


async def ready(arena, name="raw"):
    token = await arena.add_bot(name)
    raw = await arena.raw()
    assert (await raw.hello(token))["type"] == "welcome"
    return raw


def connection_of(arena, name) -> ArenaConnection:
    ws = arena.server.sessions[name].ws
    assert isinstance(ws, ArenaConnection)
    return ws


async def test_after_the_handshake_frames_take_the_fast_path(arena):
    raw = await ready(arena)
    ws = connection_of(arena, "raw")
    assert ws.on_frame is not None
    seen = []
    fast = ws.on_frame
    ws.on_frame = lambda frame: seen.append(frame) or fast(frame)
    await raw.send("ping", id=1)
    assert await raw.recv() == {"type": "pong", "id": 1}
    assert [json.loads(frame)["id"] for frame in seen] == [1]


async def test_a_fragmented_move_goes_the_slow_way_and_is_judged_in_order(arena):
    await arena.client("other", "random")
    raw = await ready(arena)
    live = arena.server.start_game("substitution", SUBST, ["raw", "other"], seed=2)
    turn = await raw.expect("your_turn")
    move = live.game.legal_moves(live.match.state, limit=1).moves[0]
    text = json.dumps({"type": "move", "game_id": live.id, "turn": turn["turn"], "move": move})
    await raw.ws.send([text[:10], text[10:25], text[25:]])  # one message in three frames
    await raw.send("ping", id=7)  # a whole frame right behind it
    # the move is judged first; its answer waits for the move to be stored (write-ahead),
    # so the pong may come before it
    seen: dict[str, dict] = {}
    while len(seen) < 2:
        message = await raw.recv()
        if message["type"] in ("move_accepted", "pong"):
            seen[message["type"]] = message
            if message["type"] == "pong":
                assert live.turn == 1  # judged before the ping was answered
    assert seen["move_accepted"]["turn"] == turn["turn"]
    assert seen["pong"] == {"type": "pong", "id": 7}
    assert live.turn == 1 and live.match.record().turns[0].move == move


async def test_text_that_is_not_utf8_still_closes_the_connection_1007(arena):
    raw = await ready(arena)
    await raw.ws.send(b'{"type":"ping","id":\xff}', text=True)
    with pytest.raises(ConnectionClosed) as closed:
        await raw.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007


async def test_a_failure_on_the_fast_path_drops_that_client_only(arena, monkeypatch):
    raw = await ready(arena)
    other = await ready(arena, "other")

    def broken(session, message):
        if session.name == "raw":
            raise RuntimeError("a bug")

    monkeypatch.setattr(arena.server.clients, "_act", broken)
    await raw.send("ping", id=1)
    with pytest.raises(ConnectionClosed) as closed:
        await raw.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011
    monkeypatch.undo()
    await other.send("ping", id=2)
    assert await asyncio.wait_for(other.recv(), 5) == {"type": "pong", "id": 2}
