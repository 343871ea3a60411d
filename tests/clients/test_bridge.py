"""The stdio bridge's line protocol, with a scripted child process (no server)."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys

import pytest

from arena.lines import MAX_LINE
from clients.bridge import BridgeError, ExecBot
from clients.sdk import GameInfo, GameResult, Rejected, Turn

from ..test_line_contract import check_lines

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
    return GameInfo(game_id, "sim", {"vertices": 4}, 0, ("me", "you"), "you",
                    {"move_ms": 1, "bank_ms": 0, "first_move_ms": 1, "retries": 0,
                     "grace_ms": 0}, "chance", False)


def sim_turn(turn: int = 0, info: GameInfo | None = None) -> Turn:
    info = info or sim_info()
    state = info.rules.state_to_json(info.rules.initial_state())
    return Turn(info, turn, turn, None, state, {"limit_ms": 1, "bank_ms": 0, "left_ms": 1},
                [1, 1], 0)


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
        "arena", "limits", "start", "turn", "rejected", "turn", "over", "quit"]
    assert lines[0] == "arena 1"
    # its limits, before anything else (no server here: the defaults a server announces)
    assert json.loads(lines[1].split(" ", 1)[1]) == {
        "max_line": MAX_LINE, "max_legal": 1000, "max_log_bytes": 1024,
        "max_logs_per_turn": 10, "max_logs_per_game": 200,
        "max_log_bytes_per_day": 4 * 1024 * 1024}
    start = json.loads(lines[2].split(" ", 1)[1])
    assert start["game"] == "sim" and start["seat"] == 0 and start["settings"] == {"vertices": 4}
    sent = json.loads(lines[3].split(" ", 1)[1])
    # every legal move (no cut), the game's name (no memory of 'start' needed)
    assert sent["legal"] == ["0 1", "0 2", "0 3", "1 2", "1 3", "2 3"]
    assert sent["legal_count"] == 6 and sent["game"] == "sim" and sent["state"] == turn.state
    assert json.loads(lines[4].split(" ", 1)[1])["code"] == "illegal"
    assert json.loads(lines[6].split(" ", 1)[1])["seat"] == 0
    check_lines("sim", lines)  # every line as the contract says (x-lines, $defs line-*)


async def test_a_longer_list_than_the_limit_is_null_with_its_count(tmp_path):
    log = tmp_path / "child.log"
    bot = ExecBot([sys.executable, "-c", CHILD, str(log), "0 1"], legal_limit=3)
    assert await bot.move(sim_turn()) == "0 1"
    await bot.close()
    lines = log.read_text().splitlines()
    assert json.loads(lines[1].split(" ", 1)[1])["max_legal"] == 3  # said in 'limits'
    sent = json.loads(lines[2].split(" ", 1)[1])
    assert sent["legal"] is None and sent["legal_count"] == 6


async def test_an_old_program_keeps_its_legal_list(tmp_path, monkeypatch):
    """--legal-first N (or $ARENA_LEGAL_FIRST): the turn lines of before 2026-11-23, a
    'legal' list of the first N moves, never null, even where today's would be null."""
    log = tmp_path / "child.log"
    bot = ExecBot([sys.executable, "-c", CHILD, str(log), "0 1"], legal_limit=3,
                  legal_first=2)
    assert await bot.move(sim_turn()) == "0 1"
    await bot.close()
    lines = log.read_text().splitlines()
    assert json.loads(lines[1].split(" ", 1)[1])["max_legal"] == 2
    sent = json.loads(lines[2].split(" ", 1)[1])
    assert sent["legal"] == ["0 1", "0 2"] and sent["legal_count"] == 6
    monkeypatch.setenv("ARENA_LEGAL_FIRST", "4")
    assert ExecBot([sys.executable]).legal_first == 4
    monkeypatch.setenv("ARENA_LEGAL_FIRST", "many")
    with pytest.raises(ValueError, match="must be a number of moves, not 'many'"):
        ExecBot([sys.executable])


async def test_a_child_that_dies_is_a_bridge_error(tmp_path):
    bot = ExecBot([sys.executable, "-c", "import sys; sys.stdin.readline()"])
    with pytest.raises(BridgeError, match="the bot's program .* exited with status 0"):
        await bot.move(sim_turn())
    with pytest.raises(BridgeError, match="exited with status 0"):
        await bot.move(sim_turn())
    await bot.close()


CRASH = r"""
import sys
print("loading tables", file=sys.stderr, flush=True)
sys.stdin.readline()
print("Traceback: KeyError 'state'", file=sys.stderr, flush=True)
sys.exit(7)
"""


async def test_a_crash_is_told_with_its_exit_status_and_last_stderr_lines(capfd):
    bot = ExecBot([sys.executable, "-c", CRASH])
    with pytest.raises(BridgeError) as raised:
        await bot.move(sim_turn())
    await bot.close()
    message = str(raised.value)
    assert "exited with status 7" in message
    assert message.split("\nthe last line it was sent: turn {")[0].endswith(
        "its last lines on standard error:\n  | loading tables\n"
                            "  | Traceback: KeyError 'state'")
    # and its standard error reached the author as it came
    assert "loading tables\nTraceback: KeyError 'state'\n" in capfd.readouterr().err


async def test_a_killed_child_is_said_to_be_killed_by_its_signal():
    bot = ExecBot([sys.executable, "-c", ("import os, sys; sys.stdin.readline(); "
                   "os.kill(os.getpid(), 9)")])
    with pytest.raises(BridgeError, match=r"killed by signal SIGKILL \(9\) \(and wrote "
                                          "nothing on standard error"):
        await bot.move(sim_turn())
    await bot.close()


async def test_a_program_that_cannot_start_is_a_clear_bridge_error():
    bot = ExecBot(["/nonexistent/bot", "--fast"])
    with pytest.raises(BridgeError, match="cannot start /nonexistent/bot --fast: No such file"):
        await bot.move(sim_turn())


async def test_a_rejected_move_is_shown_on_stderr(tmp_path, caplog):
    log = tmp_path / "child.log"
    bot = ExecBot([sys.executable, "-c", CHILD, str(log), "0 1"])
    turn = sim_turn()
    with caplog.at_level("WARNING", logger="arena.bridge"):
        bot.rejected(turn, Rejected(0, "9 9", "vertex-out-of-range", "no vertex 9", None, 1))
    assert caplog.messages == [("game g1 turn 0: the move '9 9' was rejected: "
                               "vertex-out-of-range: no vertex 9; retries left: 1")]
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
