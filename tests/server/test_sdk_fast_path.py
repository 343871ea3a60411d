"""The SDK handles most frames in the callback that read them, and survives its bugs."""

from __future__ import annotations

import asyncio

from clients.sdk import ArenaBot, Turn
from protocol.transport import FastClientConnection

from .conftest import SUBST


def first_legal(turn: Turn) -> str:
    return turn.legal_moves(limit=1)[0]


async def test_frames_take_the_fast_path_and_moves_leave_from_it(arena):
    client = await arena.client("fast", first_legal)
    await arena.client("other", "random")
    ws = client._ws
    assert isinstance(ws, FastClientConnection) and ws.on_frame is not None
    taken: list[bytes | str] = []
    fast = ws.on_frame
    ws.on_frame = lambda frame: (taken.append(frame), fast(frame))[1]
    record = await arena.server.play_game("substitution", SUBST, ["fast", "other"], seed=4)
    assert record.outcome.termination.value == "normal" and len(record.turns) == 24
    # every turn, acceptance and the result came through the fast path
    assert len(taken) >= 12 + 12 + 1


async def test_an_async_bot_answers_from_its_own_task(arena):
    class Slow(ArenaBot):
        async def move(self, turn: Turn) -> str:
            await asyncio.sleep(0.001)
            return first_legal(turn)

    await arena.client("slow", Slow())
    await arena.client("other", "random")
    record = await arena.server.play_game("substitution", SUBST, ["other", "slow"], seed=6)
    assert record.outcome.termination.value == "normal" and len(record.turns) == 24


async def test_a_failure_on_the_fast_path_reconnects_and_the_game_goes_on(arena):
    client = await arena.client("shaky", first_legal)
    await arena.client("other", "random")
    handle = client._handle
    failed: list[int] = []

    def once_broken(message):
        if message.type == "your_turn" and message["turn"] >= 5 and not failed:
            failed.append(message["turn"])
            raise RuntimeError("a bug in the client")
        handle(message)

    client._handle = once_broken
    record = await arena.server.play_game("substitution", SUBST, ["shaky", "other"], seed=7)
    assert failed and client.connections >= 2  # dropped the connection, came back
    assert record.outcome.termination.value == "normal" and len(record.turns) == 24
