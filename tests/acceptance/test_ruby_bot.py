"""Issue 13's acceptance: a bot written from docs/bots.md and the schema alone, in a
language the project does not ship (Ruby, through the stdio bridge), plays every game
on the ladder with no rejection.

Everything goes the way the docs tell a newcomer: `arena bots add`, `arena serve --game
NAME` with the house bot on its ladder, `arena connect --exec "ruby bot.rb"`; the games
are then read back from the server's HTTP API (`GET /api/games`, `GET /api/games/{id}`).

The Makefile installs Ruby from Debian's packages when missing (`make kits`, run by
`make test`); without it this test is skipped, except in CI where it is a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOT = Path(__file__).resolve().parent / "ruby" / "bot.rb"
NAME = "rubybot"
GAMES_PER_GAME = 4  # two ladder pairings: both seats, twice
# Short games; a clock that a loaded machine still meets (a timeout fails the test). A long
# grace: games of a next pairing that the bridge leaves when it stops stay `running` (not
# forfeited) while the test reads the games back.
TIME = ["--move-ms", "1000", "--bank-ms", "5000", "--first-move-ms", "5000",
        "--grace-ms", "60000"]
# The ladder's game, its settings (the docs' examples) and the house bot it plays.
LADDERS: dict[str, tuple[list[str], str]] = {
    # --legal-limit 0 on the bridge: no turn is listed, every move is built with ?legal.
    "substitution": (["--grammar", "medium", "--moves", "8"], "random"),
    "sim": (["--settings", '{"vertices": 6}'], "sim-random"),
    "heaps": (["--settings", '{"example": "49932", "target": 384, "start": [7, 10]}'],
              "heaps-random"),
    "durak": (["--settings", '{"cards": "0110001111"}'], "durak-greedy"),
    "tiles": (["--settings", '{"tiles": 8, "players": 2}'], "tiles-random"),
}
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def need_ruby() -> str:
    ruby = shutil.which("ruby")
    if ruby is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have ruby: 'make kits' installs it")
        pytest.skip("needs ruby ('make kits' installs it)")
    return ruby


async def arena(*args: str) -> str:
    """Run an `arena` command to its end; its standard output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arena", *args, env=ENV,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(120):
        out, err = await process.communicate()
    assert process.returncode == 0, f"arena {' '.join(args)}: {err.decode()}"
    return out.decode()


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.load(answer)


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
        try:
            async with asyncio.timeout(30):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()


@pytest.mark.parametrize("game", list(LADDERS))
async def test_the_ruby_bot_plays_the_ladder_with_no_rejection(game: str, tmp_path: Path) -> None:
    ruby = need_ruby()
    settings, house = LADDERS[game]
    db = str(tmp_path / "arena.sqlite")
    token = (await arena("bots", "add", NAME, "--db", db)).strip()
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:  # a file, not a pipe: the server never blocks on it
        server = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arena", "serve", "--port", "0", "--db", db, "--game", game,
            *settings, "--house", house, "--interval", "0.1", *TIME, env=ENV,
            stdout=sink, stderr=sink)
    bridge = None
    try:
        async with asyncio.timeout(60):  # it names its port once it listens
            while not (found := re.search(r"ws://127\.0\.0\.1:(\d+)/", log.read_text())):
                assert server.returncode is None, log.read_text()
                await asyncio.sleep(0.05)
        http = f"http://127.0.0.1:{found.group(1)}"

        limit = ["--legal-limit", "0"] if game == "substitution" else []
        bridge = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arena", "connect", "--url", found.group(0),
            "--token", token, "--stop-after", str(GAMES_PER_GAME), *limit,
            "--exec", f"{ruby} {BOT}", env={**ENV, "ARENA_BOT_SEED": "1"},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        async with asyncio.timeout(180):  # the bridge stops after that many finished games
            output = (await bridge.communicate())[0].decode()
        assert bridge.returncode == 0, output
        assert f"{GAMES_PER_GAME} game(s) played" in output, output
        assert "rejected" not in output, output  # the bot reports every `rejected` line

        listing = await asyncio.to_thread(get_json, f"{http}/api/games?bot={NAME}&limit=500")
        games = listing["games"]
        finished = [g for g in games if g["status"] != "running"]
        # Games of a next pairing may have begun before the bridge left: still running.
        assert len(finished) >= GAMES_PER_GAME, games
        for entry in finished:
            assert entry["game"] == game and entry["ladder"], entry
            assert entry["status"] == "finished", entry
            assert entry["termination"] == "normal", entry  # no illegal move, timeout...
            assert f"house:{house}" in entry["players"], entry
        assert {entry["players"].index(NAME) for entry in finished} == {0, 1}

        # The bot's '#' lines are stored with its games: it moved from the legal moves the
        # server offered (built step by step where no list was sent).
        how = "built step by step" if game == "substitution" else "(one of "
        for entry in finished:
            stored = await asyncio.to_thread(get_json, f"{http}/api/games/{entry['id']}")
            result = json.loads(stored["log"].splitlines()[-1])
            seat = entry["players"].index(NAME)
            notes = [note["text"] for note in result.get("notes", [])
                     if note["player"] == seat]
            assert notes and all(how in text for text in notes), notes
    finally:
        if bridge is not None:
            await stop(bridge)
        await stop(server)
    assert "Traceback" not in log.read_text(), log.read_text()
