"""The starter kits in examples/: each is built as its README says and plays real games
on a real server, using the legal-move support, with no rejection and no timeout.

The Makefile installs Node, gcc, Go and a JDK from Debian's packages when missing (`make kits`,
run by `make test`); without them these tests are skipped, except in CI where a missing
tool is a failure.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.games.substitution import Settings
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GOPATH = "/usr/share/gocode"
GAMES = [
    ("substitution", Settings.preset("medium", 8).to_json()),
    ("sim", {"vertices": 6}),
    ("durak", {"cards": "0110100110", "draw_rule": False, "first": 1}),
    ("heaps", {"example": "49932", "target": 384, "start": [7, 10]}),
    ("tiles", {"tiles": 8, "players": 2}),
]


def need(*tools: str) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {missing}: 'make kits' installs them")
        pytest.skip(f"needs {missing} ('make kits' installs them)")


def build(command: list[str], cwd: Path, **env: str) -> None:
    done = subprocess.run(command, cwd=cwd, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list[str]]:
    """The command that runs each kit, built once (in a temporary directory)."""
    out = tmp_path_factory.mktemp("kits")
    commands: dict[str, list[str]] = {}

    def command(kit: str) -> list[str]:
        if kit in commands:
            return commands[kit]
        if kit == "python":
            commands[kit] = [sys.executable, str(EXAMPLES / "python" / "bot.py")]
        elif kit == "c":
            need("cc")
            build(["cc", "-O2", "-Wall", "-Werror", "-o", str(out / "cbot"),
                   str(EXAMPLES / "c" / "bot.c")], out)
            commands[kit] = [str(out / "cbot")]
        elif kit == "go":
            need("go")
            if not (Path(GOPATH) / "src/github.com/gorilla/websocket").is_dir():
                need("golang-github-gorilla-websocket-dev (missing)")
            build(["go", "build", "-o", str(out / "gobot"), "bot.go"], EXAMPLES / "go",
                  GOPATH=GOPATH, GO111MODULE="off", GOCACHE=str(out / "gocache"))
            commands[kit] = [str(out / "gobot")]
        elif kit == "java":
            need("javac", "java")
            build(["javac", "-Xlint:all", "-Werror", "-d", str(out / "java"),
                   str(EXAMPLES / "java" / "Bot.java")], out)
            commands[kit] = ["java", "-cp", str(out / "java"), "Bot"]
        elif kit == "javascript":
            need("node", "npm")
            copy = out / "javascript"
            copy.mkdir()
            for name in ("package.json", "package-lock.json", "bot.js"):
                shutil.copy(EXAMPLES / "javascript" / name, copy / name)
            build(["npm", "ci", "--no-audit", "--no-fund"], copy)
            commands[kit] = ["node", str(copy / "bot.js")]
        return commands[kit]

    return command


async def play_kit(arena: Any, name: str, start: list[str], env: dict[str, str]) -> list[Any]:
    """Start the kit, play every game (GAMES) against a house bot, two at a time."""
    process = await asyncio.create_subprocess_exec(
        *start, env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        await wait_for(lambda: name in arena.server.sessions, 30, f"{name} connected")
        opponents = {"substitution": "house:random", "sim": "house:sim-random",
                     "durak": "house:durak-greedy", "heaps": "house:heaps-random",
                     "tiles": "house:tiles-random"}
        records = []
        for index, (game, settings) in enumerate(GAMES):
            players = [name, opponents[game]] if index % 2 == 0 else [opponents[game], name]
            pair = await asyncio.gather(  # two games at once, seats swapped
                arena.server.play_game(game, settings, players, seed=index),
                arena.server.play_game(game, settings, players[::-1], seed=index))
            records.extend(pair)
        async with asyncio.timeout(30):
            output, _ = await process.communicate()
        assert process.returncode == 0, output.decode()
        return records
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def check(records: list[Any], name: str, *, notes: bool = True) -> None:
    for record in records:
        assert record.outcome.termination.value == "normal", (record.game, record.outcome)
    if notes:  # the kits' debug lines are stored with their games
        assert all(any(note.player == record.players.index(name) for note in record.notes)
                   for record in records)


@pytest.mark.parametrize("kit", ["python", "javascript", "go", "java"])
async def test_websocket_kits_play_every_game(arena, built, kit):
    start = built(kit)
    token = await arena.add_bot(f"kit-{kit}")
    games = ["--games", str(2 * len(GAMES))] if kit != "go" else ["-games", str(2 * len(GAMES))]
    url = ["-url", arena.url] if kit == "go" else [arena.url]
    records = await play_kit(arena, f"kit-{kit}", [*start, *url, *games],
                             {"ARENA_TOKEN": token})
    check(records, f"kit-{kit}")


async def test_the_c_kit_plays_through_the_bridge(arena, built):
    start = built("c")
    token = await arena.add_bot("kit-c")
    command = [sys.executable, "-m", "arena", "connect", "--url", arena.url, "--token", token,
               "--stop-after", str(2 * len(GAMES)), "--exec", " ".join(start)]
    records = await play_kit(arena, "kit-c", command, {})
    check(records, "kit-c")  # its '#' lines became log messages


def test_a_tournament_runs_the_c_kit_through_the_runner(built, tmp_path):
    """The acceptance: arena tournament --bots exec:./mybot,search:depth=4."""
    bot = built("c")[0]
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "--bots", f"exec:{bot},search:depth=4",
         "--moves", "6", "--games", "2", "--jobs", "2", "--quiet", "--no-self-play",
         "--out", str(tmp_path / "t")],
        capture_output=True, text=True, timeout=600, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert f"exec:{bot}" in done.stdout
    from arena.record import read_jsonl
    from arena.tournament import iter_game_logs

    logs = [read_jsonl(text.splitlines()) for _, text in iter_game_logs(tmp_path / "t")]
    assert len(logs) == 4
    for record in logs:
        assert record.outcome.termination.value == "normal", record.outcome
        seat = record.players.index(f"exec:{bot}")
        assert any(note.player == seat and "playing" in note.text for note in record.notes)


async def test_the_bridge_answers_legal_queries_when_moves_are_too_many(make_arena, built):
    """With max_legal 1 no substitution turn is listed: the C kit builds each move with
    '?legal' lines, which the bridge turns into legal requests."""
    arena = await make_arena(max_legal=1)
    start = built("c")
    token = await arena.add_bot("kit-steps")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arena", "connect", "--url", arena.url, "--token", token,
        "--stop-after", "2", "--exec", " ".join(start),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    await wait_for(lambda: "kit-steps" in arena.server.sessions, 30, "kit-steps connected")
    settings = Settings.preset("medium", 8).to_json()
    records = await asyncio.gather(
        arena.server.play_game("substitution", settings, ["kit-steps", "house:random"], seed=7),
        arena.server.play_game("substitution", settings, ["house:random", "kit-steps"], seed=7))
    output, _ = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, output.decode()
    check(list(records), "kit-steps")
    notes = [note.text for record in records for note in record.notes]
    assert any("building one step by step" in text for text in notes)


async def test_bot_check_ws_plays_a_websocket_bot_on_a_throwaway_server(built):
    """arena bot check --ws: no server, account or house bot to set up; it prints the
    URL and a token, and the kit that connects with them plays the validation games."""
    check = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arena", "bot", "check", "--ws", "--game", "sim",
        "--settings", '{"vertices": 6}', "--games", "2", "--wait", "120",
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert check.stdout is not None
    try:
        async with asyncio.timeout(60):
            url_line = (await check.stdout.readline()).decode()
            token_line = (await check.stdout.readline()).decode()
        assert url_line.startswith("server: ws://127.0.0.1:"), url_line
        url, token = url_line.split()[1], token_line.split()[1]
        kit = await asyncio.create_subprocess_exec(
            *built("python"), url, "--games", "2",
            env={**os.environ, "ARENA_TOKEN": token},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        output, errors = await asyncio.wait_for(check.communicate(), 120)
        kit_output, _ = await asyncio.wait_for(kit.communicate(), 30)
    finally:
        if check.returncode is None:
            check.kill()
            await check.wait()
    text = output.decode()
    assert check.returncode == 0, text + errors.decode() + kit_output.decode()
    assert text.count("ok   sim seat") == 2 and "PASS: 2 games" in text, text
    assert "| turn " in text  # the kit's log lines, shown with their games
