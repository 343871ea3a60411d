"""The stdio bridge's line protocol, with a scripted child process (no server)."""

from __future__ import annotations

import json
import sys

import pytest

from clients.bridge import BridgeError, ExecBot
from clients.sdk import GameInfo, GameResult, Rejected, Turn

CHILD = r"""
import sys
log = open(sys.argv[1], "w")
for line in sys.stdin:
    log.write(line)
    log.flush()
    if line.startswith("turn "):
        print("# thinking", flush=True)
        print(sys.argv[2], flush=True)
    if line.startswith("quit"):
        break
"""


def sim_turn(turn: int = 0) -> Turn:
    info = GameInfo("g1", "sim", {"vertices": 4}, 0, ("me", "you"), "you", {"move_ms": 1},
                    "chance", False)
    state = info.rules.state_to_json(info.rules.initial_state())
    return Turn(info, turn, turn, None, state, {"limit_ms": 1}, [1, 1], 0)


async def test_lines_in_and_one_move_out(tmp_path):
    log = tmp_path / "child.log"
    bot = ExecBot([sys.executable, "-c", CHILD, str(log), "0 1"], legal_limit=3)
    turn = sim_turn()
    bot.start(turn.info)
    assert await bot.move(turn) == "0 1"  # the '#' comment is skipped
    bot.rejected(turn, Rejected(0, "0 1", "illegal", "no", None, 0))
    assert await bot.move(turn) == "0 1"
    bot.end(turn.info, GameResult("g1", "first", 0, None, "normal", "", 5, seat=0))
    await bot.close()
    lines = log.read_text().splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == [
        "arena", "start", "turn", "rejected", "turn", "over", "quit"]
    assert lines[0] == "arena 1"
    start = json.loads(lines[1].split(" ", 1)[1])
    assert start["game"] == "sim" and start["seat"] == 0 and start["settings"] == {"vertices": 4}
    sent = json.loads(lines[2].split(" ", 1)[1])
    assert sent["legal"] == ["0 1", "0 2", "0 3"] and sent["state"] == turn.state
    assert json.loads(lines[3].split(" ", 1)[1])["code"] == "illegal"
    assert json.loads(lines[5].split(" ", 1)[1])["seat"] == 0


async def test_a_child_that_dies_is_a_bridge_error(tmp_path):
    bot = ExecBot([sys.executable, "-c", "import sys; sys.stdin.readline()"])
    with pytest.raises(BridgeError, match="closed its output .exit status 0"):
        await bot.move(sim_turn())
    with pytest.raises(BridgeError, match="exited with status 0"):
        await bot.move(sim_turn())
    await bot.close()
