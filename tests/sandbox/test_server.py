"""Hostile hosted bots on a real server's ladder, today's way of hosting a build on a
server: the stdio bridge (`arena connect --exec`) running ``arena bots run DIR``, which
keeps the program in its sandbox. A representative few of the hostile programs play the
ladder against honest hosted bots: each loses its games, the honest bots' games between
themselves end normally, the server keeps answering, and once the bots are stopped
nothing of any sandbox is left. (Uploads and the server's own hosted seats come with
accounts; `test_hostile.py` plays every hostile program through the local runner.)"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import tree
from arena.sandbox.build import build_bot
from arena.server import LadderConfig, TimeControl
from clients.bridge import ExecBot
from tests.server.conftest import make_arena  # noqa: F401 - the fixture
from tests.waiting import wait_for, wait_for_sync

from .conftest import build_hostile, leftovers

pytestmark = pytest.mark.usefixtures("no_leftovers")


def games(port: int, bot: str) -> list[dict[str, Any]]:
    """`bot`'s finished games, through the HTTP API (call it off the event loop)."""
    url = f"http://127.0.0.1:{port}/api/games?bot={bot}&status=finished&limit=500"
    with urllib.request.urlopen(url, timeout=10) as response:
        return list(json.loads(response.read())["games"])


def healthy(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
        return response.status == 200


def hosted_bridge(directory: Path, move_timeout: float = 60.0) -> ExecBot:
    return ExecBot([sys.executable, "-m", "arena", "bots", "run", str(directory)],
                   move_timeout=move_timeout)


LADDER_CLOCK = TimeControl(move_ms=5000, bank_ms=5000, first_move_ms=10_000, grace_ms=1000)
"""Time enough for honest hosted bots on a loaded machine; a hostile one that stalls
loses within 15 s."""


@pytest.mark.parametrize("name", ["fork_bomb", "memory_bomb", "infinite_loop", "daemon"])
async def test_a_hostile_hosted_bot_loses_only_its_own_ladder_games(
        make_arena: Any, builds: Path, honest: Path, name: str) -> None:  # noqa: F811
    hostile = build_hostile(builds, name)
    arena = await make_arena(ladder=LadderConfig(game="sim", settings={"vertices": 6},
                                                 interval=0.05, seed=3),
                             time_control=LADDER_CLOCK)
    port = arena.server.port
    bridges = [hosted_bridge(honest), hosted_bridge(honest), hosted_bridge(hostile, 20)]
    try:
        for account, bridge in zip(("honest-a", "honest-b", "hostile"), bridges, strict=True):
            await arena.client(account, bridge, games=["sim"])

        def played() -> bool:
            theirs = games(port, "hostile")
            between = [g for g in games(port, "honest-a") if "hostile" not in g["players"]]
            return len(theirs) >= 2 and len(between) >= 2

        await wait_for(lambda: asyncio.to_thread(played), 120, f"{name}: games on the ladder")
        for game in await asyncio.to_thread(games, port, "hostile"):
            loser = 1 - game["winner"] if game["winner"] is not None else None
            assert loser is not None and game["players"][loser] == "hostile", game
        for game in await asyncio.to_thread(games, port, "honest-a"):
            if "hostile" not in game["players"]:
                assert game["termination"] == "normal", game
        assert await asyncio.to_thread(healthy, port)
    finally:
        await arena.close()
        for bridge in bridges:  # as `arena connect` ends: quit, then the child is killed
            await bridge.close()
    wait_for_sync(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")


def test_arena_bots_run_takes_its_sandbox_along_when_its_parent_dies(builds: Path) -> None:
    """The bridge that started ``arena bots run`` is killed outright: the keeper is told
    (a parent-death signal) and kills the sandbox, whose program ignores the end of its
    input."""
    source = builds / "sleeper-source"
    source.mkdir()
    (source / "bot").write_text("#!/bin/sh\nexec sleep 1000\n")
    built = build_bot(source / "bot", "binary", builds / "sleeper").bot.directory
    starter = ("import subprocess, sys\n"
               f"keeper = subprocess.Popen([sys.executable, '-m', 'arena', 'bots', 'run', "
               f"{str(built)!r}], stdin=subprocess.PIPE)\n"
               "print(keeper.pid, flush=True)\n"
               "sys.stdin.read()\n")
    with subprocess.Popen([sys.executable, "-c", starter], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, cwd=Path(__file__).parents[2]) as parent:
        assert parent.stdout is not None
        keeper = int(parent.stdout.readline())
        wait_for_sync(lambda: leftovers()["processes"], what="the sandbox runs")
        parent.kill()
    wait_for_sync(lambda: leftovers()["processes"] == [], 30, "no process of the sandbox")
    wait_for_sync(lambda: not Path(f"/proc/{keeper}").exists() or tree.is_zombie(keeper),
                  what="the keeper is gone")


@pytest.mark.parametrize("signals", [(signal.SIGTERM,), (signal.SIGTERM, signal.SIGHUP)])
def test_arena_bots_run_stopped_by_a_signal_kills_its_sandbox_at_once(
        builds: Path, signals: tuple[signal.Signals, ...]) -> None:
    """``SIGTERM`` (then another signal, as a dying parent sends) while the keeper waits
    for its program: the handler only kills, so the keeper's wait returns and it ends
    with 128 + the signal, its sandbox verified gone -- not a kill inside the wait that
    never sees the program reaped (it spun to its deadline, leaving the uid taken)."""
    source = builds / "sleeper-source-signal"
    source.mkdir(exist_ok=True)
    (source / "bot").write_text("#!/bin/sh\nexec sleep 1000\n")
    built = build_bot(source / "bot", "binary", builds / f"sleeper-{len(signals)}").bot.directory
    with subprocess.Popen([sys.executable, "-m", "arena", "bots", "run", str(built)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          cwd=Path(__file__).parents[2]) as keeper:
        wait_for_sync(lambda: leftovers()["processes"], what="the sandbox runs")
        for number in signals:
            keeper.send_signal(number)
        _, stderr = keeper.communicate(timeout=60)
    assert keeper.returncode in {128 + number for number in signals}, stderr  # the first
    assert b"survive" not in stderr and b"Traceback" not in stderr, stderr
    assert leftovers()["processes"] == []
