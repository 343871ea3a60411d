"""The server's bridge to a hosted bot (`arena.server.hosted.HostedBridge`), in process:
what it does once it is stopped for good (no sandbox is ever started here)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.server.hosted import HostedBridge
from clients.sdk import GameInfo, Turn

GAME = GameInfo(game_id="g1", game="sim", settings={"vertices": 6}, seat=0,
                players=("hosted", "other"), opponent="other",
                time_control={"move_ms": 1000, "bank_ms": 1000})


@pytest.mark.timeout(30)  # without the fix it spins: no asyncio timeout could end it
async def test_a_turn_asked_of_a_stopped_bridge_gets_no_move_at_once(tmp_path: Path) -> None:
    """Stopped while one of its games goes on (the server stops, or the bot is no longer
    hosted): its next turn ends with no move (it once spun there, refused again and
    again without ever yielding to the event loop, and hung the server)."""
    bridge = HostedBridge(tmp_path)
    bridge.start(GAME)
    await bridge.close()
    turn = Turn(info=GAME, turn=0, move_number=0, chance=None, state={}, clock={}, clocks=[],
                retries_left=0)
    with pytest.raises(asyncio.CancelledError):  # _NoMove: nothing to send
        await bridge.move(turn)
