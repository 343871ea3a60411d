"""Hosted bots in the cluster (issues 24 and 26, docs/cluster.md "Hosted bots"): real
gateways with ``--hosted-dir`` and a host; one gateway at a time (the leader of
``hosted``) runs the programs in the sandbox, connected to its own port; the host's CPU
clock charges a hosted move the CPU time the gateway measured; ``kill -9`` of that gateway
and the other runs them."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.storage import GameRow
from arena.uploads import Uploads
from tests.cluster.test_roles import Cluster, cluster
from tests.sandbox.conftest import BOTS, reachable_directory
from tests.server.test_durability import opened
from tests.waiting import wait_for

LEADS = "this gateway leads the hosted bots"

CLOCK = ("--game", "sim", "--settings", json.dumps({"vertices": 6}), "--clock", "cpu",
         "--house", "sim-random", "--move-ms", "100", "--bank-ms", "0",
         "--first-move-ms", "10000")
"""A CPU ladder of sim: 100 ms of CPU time a move, no bank (time for the program to
start on its first move). The sleeper sleeps 200 ms a move: on the wall clock it would
lose every game on time."""

BURNER = """import json, sys
turns = 0
for line in sys.stdin:
    if line.startswith("turn "):
        turns += 1
        while turns > 1:  # from its second turn on, it burns CPU time and never moves
            pass
        print(json.loads(line[5:])["legal"][0], flush=True)
"""
"""A hosted bot that loses on CPU time on its second turn, as soon as it has burnt its
100 ms (its gateway reports what it uses while it thinks), not at the turn's wall-time
ceiling 10 s later."""


@pytest.fixture
def hosted_dir() -> Iterator[Path]:
    """The gateways' --hosted-dir (one directory: a local cluster shares it), reachable
    by the sandboxes' uids (pytest's temporary directories are private to root)."""
    with reachable_directory("arena-cluster-hosted-") as path:
        yield path


def keepers(hosted_dir: Path) -> dict[int, int]:
    """The processes running a program of `hosted_dir` (``arena bots run DIR``, each the
    keeper of a sandbox) -> their parents' pids."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            command = Path(entry.path, "cmdline").read_bytes().split(b"\0")
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue
        if b"run" in command and any(part.startswith(str(hosted_dir).encode())
                                     for part in command):
            ppid = next(line.split()[1] for line in status.splitlines()
                        if line.startswith("PPid:"))
            found[int(entry.name)] = int(ppid)
    return found


def loser(game: GameRow) -> str | None:
    return None if game.winner is None else game.players[1 - game.winner]


def leading(running: Cluster, gateways: tuple[str, ...]) -> list[str]:
    return [name for name in gateways if LEADS in running.stderr(name).read_text()]


async def test_hosted_bots_play_in_the_cluster_run_by_one_gateway_then_the_other(
        tmp_path: Path, hosted_dir: Path) -> None:
    sources = {}
    for name, text in (("sleeper", (BOTS / "timing.py").read_text().replace(
            "sys.argv[1], int(sys.argv[2])", "'sleep', 200")), ("burner", BURNER)):
        source = sources[name] = tmp_path / name
        source.mkdir()
        (source / "bot.py").write_text(text)
    async with cluster(tmp_path) as running, opened(running.db) as storage:
        for name, source in sources.items():
            await storage.add_bot(name)
            built = await Uploads(storage, str(hosted_dir)).upload(name, source, "python")
            assert built.status == "ok", built

        async def finished() -> list[str]:
            """The sleeper's games over in which it moved twice or more; the burner's
                checked as they come."""
            burned = await storage.games(bot="burner", status="finished", limit=100)
            for game in burned:
                if loser(game) == "burner":
                    assert game.termination == "timeout", game
                    assert "of CPU time on turn" in game.reason, game
            games = await storage.games(bot="sleeper", status="finished", limit=100)
            for game in games:  # the sleeper never loses on time: its CPU time counts
                assert loser(game) != "sleeper" or game.termination == "normal", game.reason
            return [game.id for game in games
                    if (game.turns + 1 - game.players.index("sleeper")) // 2 >= 2]

        # a host takes --hosted-dir too (`arena cluster up` gives every process the
        # same options): it runs no program
        await running.start("host-1", "host", "--hosted-dir", str(hosted_dir), *CLOCK)
        gateways = ("gateway-1", "gateway-2")
        for name in gateways:
            await running.start(name, "gateway", "--hosted-dir", str(hosted_dir), *CLOCK)
        await wait_for(lambda: len(leading(running, gateways)) == 1, 30,
                       "a gateway runs the hosted bots")
        first = leading(running, gateways)[0]
        pid = running.processes[first].pid
        await wait_for(lambda: keepers(hosted_dir), 30, "the sleeper's sandbox runs")
        assert set(keepers(hosted_dir).values()) == {pid}  # on the leader alone

        async def played(count: int) -> bool:
            return len(await finished()) >= count

        await wait_for(lambda: played(2), 60, "the hosted bot's ladder games, over")

        async def burner_lost() -> bool:
            return any(loser(game) == "burner" for game in
                       await storage.games(bot="burner", status="finished", limit=100))

        await wait_for(burner_lost, 60, "the burner lost on CPU time")
        assert leading(running, gateways) == [first]

        running.processes[first].send_signal(signal.SIGKILL)
        await asyncio.to_thread(running.processes[first].wait)
        other = next(name for name in gateways if name != first)
        await wait_for(lambda: LEADS in running.stderr(other).read_text(), 30,
                       "the other gateway runs the hosted bots")
        before = len(await finished())
        await wait_for(lambda: played(before + 2), 60, "more games, played on the other")
        assert set(keepers(hosted_dir).values()) <= {running.processes[other].pid}
    await wait_for(lambda: keepers(hosted_dir) == {}, 30, "no sandbox left")
