"""The stdio bridge's line protocol, with a scripted child process (no server)."""

from __future__ import annotations

import asyncio
import json
import shutil
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


def sim_info(game_id: str = "g1") -> GameInfo:
    return GameInfo(game_id, "sim", {"vertices": 4}, 0, ("me", "you"), "you", {"move_ms": 1},
                    "chance", False)


def sim_turn(turn: int = 0, info: GameInfo | None = None) -> Turn:
    info = info or sim_info()
    state = info.rules.state_to_json(info.rules.initial_state())
    return Turn(info, turn, turn, None, state, {"limit_ms": 1}, [1, 1], 0)


async def test_lines_in_and_one_move_out(tmp_path):
    log = tmp_path / "child.log"
    bot = ExecBot([sys.executable, "-c", CHILD, str(log), "0 1"])
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
    # every legal move (no cut), the game's name (no memory of 'start' needed)
    assert sent["legal"] == ["0 1", "0 2", "0 3", "1 2", "1 3", "2 3"]
    assert sent["legal_count"] == 6 and sent["game"] == "sim" and sent["state"] == turn.state
    assert json.loads(lines[3].split(" ", 1)[1])["code"] == "illegal"
    assert json.loads(lines[5].split(" ", 1)[1])["seat"] == 0


async def test_a_longer_list_than_the_limit_is_null_with_its_count(tmp_path):
    log = tmp_path / "child.log"
    bot = ExecBot([sys.executable, "-c", CHILD, str(log), "0 1"], legal_limit=3)
    assert await bot.move(sim_turn()) == "0 1"
    await bot.close()
    sent = json.loads(log.read_text().splitlines()[1].split(" ", 1)[1])
    assert sent["legal"] is None and sent["legal_count"] == 6


async def test_a_child_that_dies_is_a_bridge_error(tmp_path):
    bot = ExecBot([sys.executable, "-c", "import sys; sys.stdin.readline()"])
    with pytest.raises(BridgeError, match="closed its output .exit status 0"):
        await bot.move(sim_turn())
    with pytest.raises(BridgeError, match="exited with status 0"):
        await bot.move(sim_turn())
    await bot.close()


# A tiny bot: it notes its process id once, then answers every turn at once.
TINY = "echo $$ >> {pids}; exec tee {log} | sed -u -n 's/^turn .*/0 1/p'"


@pytest.mark.skipif(shutil.which("sed") is None, reason="needs sed")
async def test_one_process_per_bridge_when_many_games_start_at_once(tmp_path):
    """The defect: games whose turns came while the program was starting started a
    second copy, which never saw their 'start' lines. 100 bridges, 100 games each."""
    for run in range(100):
        pids, log = tmp_path / f"pids-{run}", tmp_path / f"log-{run}"
        bot = ExecBot(["sh", "-c", TINY.format(pids=pids, log=log)])
        infos = [sim_info(f"g{index}") for index in range(100)]
        for info in infos:  # game_start for every game, then every first turn at once
            bot.start(info)
        moves = await asyncio.gather(*(bot.move(sim_turn(0, info)) for info in infos))
        await bot.close()
        assert moves == ["0 1"] * 100
        assert bot.processes_started == 1
        assert len(pids.read_text().split()) == 1, f"run {run}: {pids.read_text()!r}"
        seen: set[str] = set()
        for line in log.read_text().splitlines():  # every game's start before its turn
            keyword, _, payload = line.partition(" ")
            if keyword not in ("start", "turn"):
                continue
            game_id = json.loads(payload)["game_id"]
            if keyword == "start":
                seen.add(game_id)
            else:
                assert game_id in seen, f"run {run}: a turn of {game_id} before its start"
        assert len(seen) == 100
