"""WebSocket-speaking hosted bots (`arena.server.hosted_ws`): the starter kits, uploaded
unchanged with ``speaks=ws``, play ladder games from their sandboxes -- which keep no
network but their own loopback, reaching the server only through their relay -- and
nothing of them is left once they are stopped."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.config import HostedConfig
from arena.sandbox.hosted import HostedBot
from arena.sandbox.manifest import NotABuild, load_build
from arena.sandbox.relay import AT_ONCE
from arena.server import LadderConfig, TimeControl
from arena.server.hosted import STDERR_BYTES
from tests.server.conftest import make_arena  # noqa: F401 - the fixture
from tests.waiting import wait_for

from .conftest import HOSTILE, ROOT, leftovers

pytestmark = pytest.mark.usefixtures("no_leftovers")

EXAMPLES = ROOT / "examples"
KITS = {"kit-python": ("python", EXAMPLES / "python"), "kit-js": ("js", None),
        "kit-go": ("go", EXAMPLES / "go"), "kit-java": ("java", EXAMPLES / "java")}
"""The WebSocket kits: account -> (language, sources; None: the JavaScript kit, with its
dependencies installed as its README says)."""
CLOCK = TimeControl(move_ms=5000, bank_ms=5000, first_move_ms=20_000, grace_ms=1000)
"""Time enough for a JVM's first move on a loaded machine."""


def _need(*tools: str) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {missing} ('make kits' installs them)")


def _javascript_kit(tmp_path: Path) -> Path:
    """The JavaScript kit as its author uploads it: its files and ``npm ci``'s
    ``node_modules`` (the build has no network)."""
    copy = tmp_path / "javascript"
    copy.mkdir()
    for name in ("package.json", "package-lock.json", "bot.js"):
        shutil.copy(EXAMPLES / "javascript" / name, copy / name)
    done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=copy,
                          capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        pytest.skip(f"npm ci failed (no registry here?): {done.stderr[-500:]}")
    return copy


async def test_the_websocket_kits_play_hosted_unchanged(
        make_arena: Any, builds: Path, tmp_path: Path) -> None:  # noqa: F811
    _need("node", "npm", "go", "javac", "java")
    if not Path("/usr/lib/python3/dist-packages/websockets").is_dir():
        pytest.skip("the Python kit needs Debian's python3-websockets ('make kits')")
    arena = await make_arena(
        ladder=LadderConfig(game="sim", settings={"vertices": 6}, interval=0.05, seed=11),
        time_control=CLOCK, hosted=HostedConfig(directory=str(builds / "hosted-kits"),
                                                slots=2, ws_programs=len(KITS),
                                                builds_at_once=len(KITS)))
    server = arena.server
    assert server.uploads is not None and server.hosted is not None
    for name in KITS:
        await arena.add_bot(name)
    javascript = _javascript_kit(tmp_path)
    rows = await asyncio.gather(*(  # built side by side: Java's and Go's take seconds
        server.uploads.upload(name, source or javascript, lang, speaks="ws")
        for name, (lang, source) in KITS.items()))
    for row in rows:
        assert row.status == "ok" and row.speaks == "ws", row.log
    await wait_for(lambda: set(KITS) <= set(server.sessions), 60, "the kits are connected")
    assert all(server.sessions[name].hosted for name in KITS)
    assert server.hosted_ws_slots is not None and server.hosted_ws_slots.used == len(KITS)

    async def played() -> bool:
        for name in KITS:
            if len(await server.storage.games(bot=name, status="finished", limit=10)) < 2:
                return False
        return True

    await wait_for(played, 180, "every kit finished ladder games")
    for name in KITS:
        for game in await server.storage.games(bot=name, status="finished", limit=10):
            assert game.termination == "normal", (name, game)
        assert server.hosted.ws_bots[name].runs == 1, server.hosted.ws_bots[name].stderr
    assert server.health()["status"] == "ok"
    assert server.hosted_slots is not None and server.hosted_slots.peak == 2  # their games'
    await arena.close()
    await wait_for(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")


async def test_a_websocket_bot_reaches_nothing_but_the_server_and_is_restarted_and_replaced(
        make_arena: Any, builds: Path, tmp_path: Path) -> None:  # noqa: F811
    if not Path("/usr/lib/python3/dist-packages/websockets").is_dir():
        pytest.skip("the Python kit needs Debian's python3-websockets ('make kits')")
    arena = await make_arena(time_control=CLOCK,
                             hosted=HostedConfig(directory=str(builds / "hosted-ws-probe"),
                                                 refresh_interval=0.05, slots=1,
                                                 ws_programs=1))
    server = arena.server
    assert server.uploads is not None and server.hosted is not None
    await arena.add_bot("probe")
    await arena.add_bot("other")
    source = tmp_path / "probe"
    source.mkdir()
    text = (HOSTILE / "ws_probe.py").read_text().replace("int(sys.argv[1])", str(server.port))
    (source / "bot.py").write_text(text)
    assert (await server.uploads.upload("probe", source, "python", speaks="ws")).status == "ok"
    await wait_for(lambda: "probe" in server.hosted.ws_bots, what="the probe is hosted")
    probe = server.hosted.ws_bots["probe"]
    await wait_for(lambda: probe.runs >= 2, 60, "the probe exited and was started again")
    reports = [line.removeprefix("REPORT ") for line in probe.stderr
               if line.startswith("REPORT ")]
    assert reports[:reports.index("done") + 1] == [
        "token hosted-ws url ws://127.0.0.1:8765/",
        "refused 127.0.0.1:5432 [Errno 111] Connection refused",  # its own loopback
        f"refused 127.0.0.1:{server.port} [Errno 111] Connection refused",
        "refused 1.1.1.1:443 [Errno 101] Network is unreachable",
        "third through the relay closed True",
        "third straight to the socket closed True",
        "plain HTTP answered b'HTTP/1.1 403'",  # no client of the server's HTTP API
        "WebSocket handshake answered b'HTTP/1.1 101'",  # the server, through the relay
        "done"], probe.stderr
    assert AT_ONCE == 2
    assert not any(token.startswith("hosted-ws.") and name == "other"
                   for token, name in server.hosted.tokens.items())

    # a new build replaces it: the probe's sandbox is killed, the kit connects and plays
    old = probe.directory
    row = await server.uploads.upload("probe", EXAMPLES / "python", "python", speaks="ws")
    assert row.status == "ok"
    await wait_for(lambda: server.hosted.ws_bots.get("probe") not in (None, probe),
                   what="the new build replaced the old one")
    assert probe.task.done() and probe.process is None and server.hosted.ws_bots[
        "probe"].directory != old
    assert (await server.uploads.upload("other", ROOT / "tests/sandbox/bots/python",
                                        "python")).status == "ok"  # a line bot
    await wait_for(lambda: {"probe", "other"} <= set(server.sessions), 60, "both hosted")
    record = await server.play_game("sim", {"vertices": 6}, ["probe", "other"], seed=2)
    assert record.outcome is not None and record.outcome.termination.value == "normal"
    assert server.sessions["probe"].hosted and server.sessions["other"].hosted
    await arena.close()
    assert server.hosted.ws_bots == {}
    await wait_for(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")


async def python_kit_and_a_line_bot(
        make_arena: Any, builds: Path, tmp_path: Path, name: str,  # noqa: F811
        change: tuple[str, str],
        **options: Any) -> Any:
    """An arena (`options` for it) hosting `name`, the Python kit edited by `change`
    (speaking WebSocket, one program at a time, two slots), and ``other``, a line bot,
    both connected."""
    if not Path("/usr/lib/python3/dist-packages/websockets").is_dir():
        pytest.skip("the Python kit needs Debian's python3-websockets ('make kits')")
    arena = await make_arena(hosted=HostedConfig(directory=str(builds / f"hosted-ws-{name}"),
                                                 refresh_interval=0.05, slots=2,
                                                 ws_programs=1), **options)
    server = arena.server
    assert server.uploads is not None and server.hosted is not None
    await arena.add_bot(name)
    await arena.add_bot("other")
    source = tmp_path / name
    source.mkdir()
    text = (EXAMPLES / "python" / "bot.py").read_text()
    assert change[0] in text
    (source / "bot.py").write_text(text.replace(*change))
    assert (await server.uploads.upload(name, source, "python", speaks="ws")).status == "ok"
    assert (await server.uploads.upload("other", ROOT / "tests/sandbox/bots/python",
                                        "python")).status == "ok"
    await wait_for(lambda: {name, "other"} <= set(server.sessions), 60, "both hosted")
    return arena


CHATTY = ("""            elif kind == "your_turn":
""", """            elif kind == "your_turn":
                print(f"turn {message['game_id']} {message['turn']}", file=sys.stderr)
                for _ in range(40):  # 40 KB a turn: a game's budget is soon spent
                    print("x" * 1000, file=sys.stderr)
                sys.stderr.flush()
""")
"""The Python kit, telling its standard error of each turn, and flooding it."""


async def test_a_websocket_bots_stderr_is_kept_with_its_games_on_the_line_bots_budget(
        make_arena: Any, builds: Path, tmp_path: Path) -> None:  # noqa: F811
    arena = await python_kit_and_a_line_bot(make_arena, builds, tmp_path, "chatty", CHATTY,
                                            time_control=CLOCK)
    server = arena.server
    first = await server.play_game("sim", {"vertices": 6}, ["chatty", "other"], seed=2)
    second = await server.play_game("sim", {"vertices": 6}, ["other", "chatty"], seed=3)
    texts = {}
    for record in (first, second):
        assert record.outcome is not None and record.outcome.termination.value == "normal"
        texts[record.id] = await wait_for(
            lambda record=record: server.storage.stderr(record.id, "chatty"),  # type: ignore[misc]
            30, f"its standard error in {record.id} is stored")
    one, two = texts[first.id], texts[second.id]
    assert "connected as chatty" in one  # its start, with its first game
    assert f"turn {first.id} " in one and f"turn {second.id} " not in one
    assert f"turn {second.id} " in two and f"turn {first.id} " not in two
    assert "connected as chatty" not in two
    for kept in (one, two):  # the line programs' budget
        assert len(kept.encode()) <= STDERR_BYTES + 100 and "more lines not kept" in kept
    stored = await server.storage.game(first.id)
    assert stored is not None and "turn " not in stored.log  # not in the public log
    await arena.close()
    await wait_for(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")


SLOW = ("""        async def move(turn: dict) -> None:
""", """        async def move(turn: dict) -> None:
            if turn["turn"] > 2:  # from its second move on: 1.5 s of wall time, no CPU
                await asyncio.sleep(1.5)
""")
"""The Python kit, sleeping on its moves."""


async def test_a_websocket_bot_is_timed_by_wall_time_under_a_cpu_clock(
        make_arena: Any, builds: Path, tmp_path: Path) -> None:  # noqa: F811
    """Its one program plays all its games: no turn's CPU time is its own, so a CPU clock
    times it as a connected bot, by wall time (it would otherwise be charged nothing,
    and could think up to the wall-time ceiling on every move)."""
    arena = await python_kit_and_a_line_bot(make_arena, builds, tmp_path, "sleepy", SLOW)
    server = arena.server
    assert server.sessions["sleepy"].wall_timed and not server.sessions["other"].wall_timed
    clock = TimeControl(move_ms=500, bank_ms=0, first_move_ms=20_000, grace_ms=1000,
                        kind="cpu")  # the wall-time ceiling: 10.5 s a move
    record = await server.play_game("sim", {"vertices": 6}, ["sleepy", "other"], seed=2,
                                    time_control=clock)
    outcome = record.outcome
    assert outcome is not None and outcome.termination.value == "timeout", outcome
    assert outcome.winner == 1 and "CPU time" not in (outcome.detail or ""), outcome
    await arena.close()
    await wait_for(lambda: leftovers()["processes"] == [], 30, "no process of any sandbox")


def test_what_a_build_speaks_is_in_its_manifest_and_only_its_kind_of_runner_runs_it(
        builds: Path) -> None:
    """``arena bots build --speaks ws`` keeps the choice with the build; a line runner
    (``hosted:DIR``, ``arena bots run DIR``) refuses a WebSocket build, and only a
    WebSocket build takes a relay."""
    runner = CliRunner()
    out = builds / "speaks-ws"
    done = runner.invoke(main, ["bots", "build", str(EXAMPLES / "python"), "--lang", "python",
                                "--speaks", "ws", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert load_build(out).speaks == "ws"
    with pytest.raises(NotABuild, match="speaks ws, not lines"):
        HostedBot(out)
    refused = runner.invoke(main, ["bots", "run", str(out)])
    assert refused.exit_code == 2 and "run it with --relay SOCKET" in refused.output
    lines = builds / "speaks-lines"
    assert runner.invoke(main, ["bots", "build", str(ROOT / "examples/c"), "--lang", "c",
                                "--out", str(lines)]).exit_code == 0
    assert load_build(lines).speaks == "lines"
    refused = runner.invoke(main, ["bots", "run", str(lines), "--relay", "/nowhere"])
    assert refused.exit_code == 2 and "takes no --relay" in refused.output
    bad = runner.invoke(main, ["bots", "build", str(EXAMPLES / "python"), "--lang", "python",
                               "--speaks", "smoke", "--out", str(builds / "speaks-bad")])
    assert bad.exit_code == 2 and "'smoke'" in bad.output
