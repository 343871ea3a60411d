"""Hosted bots in the cluster (issues 24 and 26, docs/cluster.md "Hosted bots"): real
gateways with ``--hosted-dir`` and hosts; each gateway runs the programs of the shards
it holds (`arena.storage.shards`) in the sandbox, connected to its own port; the host's
CPU clock charges a hosted move the CPU time the gateway measured; a third gateway takes
a share, ``kill -9`` of one and the others run its bots. The hosted slots are one count,
the gateway's that leads ``hosted``, which every host's games hold; a WebSocket-speaking
program plays through a gateway and a host as a line program does, its standard error
kept for its owner."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.storage import GameRow, Storage
from arena.storage.shards import SHARDS, shard_of
from arena.uploads import Uploads
from tests.cluster.test_roles import Cluster, cluster
from tests.sandbox.conftest import BOTS, ROOT, reachable_directory
from tests.server.test_durability import opened
from tests.waiting import wait_for

KEEPS = "this gateway keeps the hosted slots of the cluster"
COUNTED = re.compile(r"hosted slots of the cluster: (\d+)")
RUNS = re.compile(r"this gateway runs the hosted bots of \d+ shards of \d+: ([\d ]+|none)")

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


def programs(hosted_dir: Path) -> dict[int, tuple[int, Path]]:
    """The processes running a program of `hosted_dir` (``arena bots run DIR``, each the
    keeper of a sandbox) -> their parents' pids and the builds they run."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            command = Path(entry.path, "cmdline").read_bytes().split(b"\0")
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue
        builds = [Path(part.decode()) for part in command
                  if part.startswith(str(hosted_dir).encode())]
        if b"run" in command and builds:
            ppid = next(line.split()[1] for line in status.splitlines()
                        if line.startswith("PPid:"))
            found[int(entry.name)] = (int(ppid), builds[0])
    return found


def keepers(hosted_dir: Path) -> dict[int, int]:
    """The processes running a program of `hosted_dir` -> their parents' pids."""
    return {pid: ppid for pid, (ppid, _) in programs(hosted_dir).items()}


def sandboxes(hosted_dir: Path) -> dict[str, set[int]]:
    """The hosted bots whose programs run now -> the pids of the processes running them
    (the keepers' parents: the gateways)."""
    found: dict[str, set[int]] = {}
    for ppid, build in programs(hosted_dir).values():
        found.setdefault(build.relative_to(hosted_dir).parts[0], set()).add(ppid)
    return found


def counted(running: Cluster, gateways: tuple[str, ...]) -> int | None:
    """The hosted slots of the cluster as the gateway keeping them last said (None: no
    gateway keeps them yet)."""
    for name in gateways:
        text = running.stderr(name).read_text()
        if KEEPS in text:
            return int(COUNTED.findall(text)[-1])
    return None


def shards(running: Cluster, name: str) -> frozenset[int]:
    """The shards the gateway `name` runs the hosted bots of, as it last logged them."""
    said = RUNS.findall(running.stderr(name).read_text())
    return frozenset() if not said or said[-1] == "none" else frozenset(
        int(shard) for shard in said[-1].split())


def shared(running: Cluster, gateways: tuple[str, ...], *sizes: int) -> bool:
    """Whether `gateways` run these many shards each, every shard on one of them."""
    held = [shards(running, name) for name in gateways]
    return ([len(h) for h in held] == list(sizes) and sum(sizes) == SHARDS
            and set().union(*held) == set(range(SHARDS)))


def runner(running: Cluster, gateways: tuple[str, ...], bot: str) -> str:
    """The gateway that runs `bot` (of its shard)."""
    [name] = [name for name in gateways if shard_of(bot) in shards(running, name)]
    return name


def loser(game: GameRow) -> str | None:
    return None if game.winner is None else game.players[1 - game.winner]


async def test_hosted_bots_play_in_the_cluster_on_a_cpu_clock_and_another_gateway_takes_over(
        tmp_path: Path, hosted_dir: Path) -> None:
    sources = {}
    for name, text in (("sleeper", (BOTS / "timing.py").read_text().replace(
            "sys.argv[1], int(sys.argv[2])", "'sleep', 200")), ("burner", BURNER)):
        source = sources[name] = tmp_path / name
        source.mkdir()
        (source / "bot.py").write_text(text)
    async with cluster(tmp_path) as running, opened(running.db) as storage:
        async def finished() -> list[str]:
            """The sleeper's games over in which it moved twice or more; the burner's
                checked as they come."""
            burned = await storage.games(bot="burner", status="finished", limit=100)
            for game in burned:
                if loser(game) == "burner":
                    assert game.termination == "timeout", game
                    # on CPU time; or, playing two games at once (two gateways' slots
                    # let it), at the wall-time ceiling of a turn it never took up, its
                    # one program burning on the other game's turn
                    assert ("of CPU time on turn" in game.reason
                            or "(it used 0 ms of its" in game.reason), game
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
        await wait_for(lambda: shared(running, gateways, 8, 8), 30,
                       "the gateways share the shards")
        # uploaded once the shares settled: no bot moves to the other gateway in the
        # middle of a game (not what this test is about)
        for name, source in sources.items():
            await storage.add_bot(name)
            built = await Uploads(storage, str(hosted_dir)).upload(name, source, "python")
            assert built.status == "ok", built
        first = runner(running, gateways, "sleeper")
        pid = running.processes[first].pid
        await wait_for(lambda: "sleeper" in sandboxes(hosted_dir), 30,
                       "the sleeper's sandbox runs")
        assert sandboxes(hosted_dir)["sleeper"] == {pid}  # on its shard's gateway alone

        async def played(count: int) -> bool:
            return len(await finished()) >= count

        await wait_for(lambda: played(2), 60, "the hosted bot's ladder games, over")

        async def burner_lost() -> bool:
            return any(loser(game) == "burner" and "of CPU time on turn" in game.reason
                       for game in await storage.games(bot="burner", status="finished",
                                                       limit=100))

        await wait_for(burner_lost, 60, "the burner lost on CPU time")

        running.processes[first].send_signal(signal.SIGKILL)
        await asyncio.to_thread(running.processes[first].wait)
        other = next(name for name in gateways if name != first)
        await wait_for(lambda: len(shards(running, other)) == SHARDS, 30,
                       "the other gateway runs every hosted bot")
        before = len(await finished())
        await wait_for(lambda: played(before + 2), 60, "more games, played on the other")
        assert set(keepers(hosted_dir).values()) <= {running.processes[other].pid}
    await wait_for(lambda: keepers(hosted_dir) == {}, 30, "no sandbox left")


async def upload_python(storage: Storage, hosted_dir: Path, names: list[str]) -> None:
    """Make bots `names`, each hosted with the example Python bot."""
    for name in names:
        await storage.add_bot(name)
        built = await Uploads(storage, str(hosted_dir)).upload(name, BOTS / "python", "python")
        assert built.status == "ok", built


def spread_names(count: int) -> list[str]:
    """`count` bot names in as many different shards."""
    found: dict[int, str] = {}
    n = 0
    while len(found) < count:
        found.setdefault(shard_of(f"hosted-{n}"), f"hosted-{n}")
        n += 1
    return sorted(found.values())


async def test_the_gateways_share_the_hosted_bots_a_third_takes_a_share_and_a_killed_ones_go_on(
        tmp_path: Path, hosted_dir: Path) -> None:
    """Nine hosted bots in nine shards, two gateways with ``--hosted-dir``: each runs
    the bots of 8 shards (so both run some), every bot on one of them, and the ladder
    plays them; a third gateway joins and takes a share; one is killed (``kill -9``) and
    the two left run its bots, whose games go on."""
    names = spread_names(9)
    async with cluster(tmp_path) as running, opened(running.db) as storage:
        await upload_python(storage, hosted_dir, names)
        await running.start("host-1", "host", *LADDER)
        gateways = ("gateway-1", "gateway-2")
        for name in gateways:
            await running.start(name, "gateway", "--hosted-dir", str(hosted_dir),
                                "--hosted-slots", "4", *LADDER)
        await wait_for(lambda: shared(running, gateways, 8, 8), 30,
                       "the gateways share the shards")

        async def played(count: int, among: tuple[str, ...]) -> bool:
            """Every bot finished `count` games; the sandboxes running now on these
            gateways run on the gateway of their shard, alone (a killed gateway's may
            linger a moment, orphans, as they die: "no sandbox left" at the end)."""
            pids = {running.processes[name].pid: name for name in among}
            for bot, parents in sandboxes(hosted_dir).items():
                on = {pids[pid] for pid in parents if pid in pids}
                assert on <= {runner(running, among, bot)}, (
                    bot, on, {name: shards(running, name) for name in among})
            for bot in names:
                if len(await storage.games(bot=bot, status="finished", limit=100)) < count:
                    return False
            return True

        await wait_for(lambda: played(1, gateways), 180, "every hosted bot's ladder games")
        by_gateway = {name: {bot for bot in names if runner(running, gateways, bot) == name}
                      for name in gateways}
        assert all(by_gateway.values()), by_gateway  # both run some, each bot on one
        assert set().union(*by_gateway.values()) == set(names)
        await wait_for(lambda: counted(running, gateways) == 8, 30,
                       "the count of hosted slots: 4 a gateway running hosted bots")

        await running.start("gateway-3", "gateway", "--hosted-dir", str(hosted_dir),
                            "--hosted-slots", "4", *LADDER)
        gateways += ("gateway-3",)
        await wait_for(lambda: sorted(len(shards(running, name)) for name in gateways)
                       == [5, 5, 6] and shared(running, gateways, *(
                           len(shards(running, name)) for name in gateways)), 30,
                       "the third gateway takes a share")
        await wait_for(lambda: counted(running, gateways) == 12, 30, "12 slots with three")

        killed = gateways[0]
        running.processes[killed].send_signal(signal.SIGKILL)
        await asyncio.to_thread(running.processes[killed].wait)
        left = gateways[1:]
        await wait_for(lambda: shared(running, left, 8, 8), 30,
                       "the two left share every shard")
        await wait_for(lambda: counted(running, left) == 8, 30, "8 slots with two")
        before = {bot: len(await storage.games(bot=bot, status="finished", limit=100))
                  for bot in names}

        async def again() -> bool:
            for bot in names:  # the killed one's bots too
                games = await storage.games(bot=bot, status="finished", limit=100)
                if len(games) < before[bot] + 1:
                    return False
            return await played(0, left)

        await wait_for(again, 180, "more games of every hosted bot, run by the two left")
        assert await storage.games(status="aborted", limit=10) == []
        for game in await storage.games(status="finished", limit=1000):
            assert game.termination == "normal", game  # the bots that moved too
    await wait_for(lambda: keepers(hosted_dir) == {}, 30, "no sandbox left")


LADDER = ("--game", "sim", "--settings", json.dumps({"vertices": 6}), "--house", "sim-random",
          "--move-ms", "5000", "--first-move-ms", "20000", "--interval", "0.2",
          "--pairings-per-hour", "0")
"""A wall-clock ladder of sim with a house bot, pairing as often as it can."""


async def metrics(port: int, token: str) -> dict[str, float]:
    """The process's ``/metrics`` (an operator's), by series."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics",
                                     headers={"Authorization": f"Bearer {token}"})

    def read() -> str:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return str(answer.read().decode())

    return {name: float(value) for line in (await asyncio.to_thread(read)).splitlines()
            if line.startswith("arena_") and " " in line
            for name, value in [line.rsplit(" ", 1)]}


async def test_the_gateway_running_the_programs_counts_the_hosted_slots_of_every_host(
        tmp_path: Path, hosted_dir: Path) -> None:
    """Two hosts, K = 2 hosted slots on the gateway running the programs, four hosted bots
    that want more games than that: never more than K slots held at once in the
    cluster (each host would give K of its own), games waiting for them, and every game
    finishes."""
    names = [f"hosted-{n}" for n in range(4)]
    async with cluster(tmp_path) as running, opened(running.db) as storage:
        await upload_python(storage, hosted_dir, names)
        token = await storage.add_bot("prometheus", operator=True)
        hosts = ("host-1", "host-2")
        for name in hosts:
            await running.start(name, "host", "--hosted-dir", str(hosted_dir), *LADDER)
        await running.start("gateway-1", "gateway", "--hosted-dir", str(hosted_dir),
                            "--hosted-slots", "2", *LADDER)
        await wait_for(lambda: KEEPS in running.stderr("gateway-1").read_text(), 30,
                       "the gateway keeps the hosted slots")
        port = running.ports["gateway-1"]
        waited = 0.0

        async def played(count: int) -> bool:
            nonlocal waited
            counted = await metrics(port, token)
            assert counted["arena_hosted_slots_peak"] <= 2, counted  # never more than K
            waited = max(waited, counted["arena_hosted_games_waiting"])
            for name in names:
                if len(await storage.games(bot=name, status="finished", limit=100)) < count:
                    return False
            return True

        await wait_for(lambda: played(2), 180, "every hosted bot's ladder games, over")
        assert waited >= 1  # more were wanted than K: games waited for their slots
        assert (await metrics(port, token))["arena_hosted_slots_peak"] == 2
        for name in hosts:  # both hosts' games held slots of the one count
            held = await metrics(running.ports[name], token)
            assert 1 <= held["arena_hosted_slots_peak"] <= 2, (name, held)

        # every game started (those waiting for slots too) finishes, normally
        started = [row.id for row in await storage.games(status="running", limit=1000)]

        async def over() -> bool:
            rows = [await storage.game(game_id) for game_id in started]
            return all(row is not None and row.status == "finished" for row in rows)

        await wait_for(over, 180, "the games in flight, and those waiting, finished")
        for game_id in started:
            row = await storage.game(game_id)
            assert row is not None and row.termination == "normal", row
        assert await storage.games(status="aborted", limit=10) == []
        assert (await metrics(port, token))["arena_hosted_slots_peak"] == 2
    await wait_for(lambda: keepers(hosted_dir) == {}, 30, "no sandbox left")


async def test_a_websocket_kit_plays_hosted_through_a_gateway_and_a_host(
        tmp_path: Path, hosted_dir: Path) -> None:
    """The Python kit uploaded with ``speaks=ws``: run by the gateway, it plays ladder
    games hosted by the host over NATS; its standard error is kept with its games."""
    if not Path("/usr/lib/python3/dist-packages/websockets").is_dir():
        pytest.skip("the Python kit needs Debian's python3-websockets ('make kits')")
    async with cluster(tmp_path) as running, opened(running.db) as storage:
        await storage.add_bot("kit")
        built = await Uploads(storage, str(hosted_dir)).upload(
            "kit", ROOT / "examples" / "python", "python", speaks="ws")
        assert built.status == "ok" and built.speaks == "ws", built
        await running.start("host-1", "host", "--hosted-dir", str(hosted_dir), *LADDER)
        await running.start("gateway-1", "gateway", "--hosted-dir", str(hosted_dir), *LADDER)

        async def played() -> list[GameRow]:
            games = await storage.games(bot="kit", status="finished", limit=100)
            return games if len(games) >= 2 else []

        games = await wait_for(played, 180, "the kit's ladder games, over")
        for game in games:
            assert game.termination == "normal", game
        pid = running.processes["gateway-1"].pid
        assert set(keepers(hosted_dir).values()) == {pid}  # run by the gateway alone

        async def started() -> str | None:
            """What it wrote at its start, kept with the first game it played (of two it
            began at once, either)."""
            for game in await storage.games(bot="kit", limit=100):
                text = await storage.stderr(game.id, "kit")
                if text is not None and "connected as kit" in text:
                    return text
            return None

        await wait_for(started, 30, "its standard error, stored with a game")
        assert await storage.games(status="aborted", limit=10) == []
    await wait_for(lambda: keepers(hosted_dir) == {}, 30, "no sandbox left")
