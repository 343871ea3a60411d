"""`arena bots add/revoke`, `arena connect` (built-in bot and --exec) against a real server."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import SettingsError
from arena.server import LadderConfig
from arena.server.storage import Storage

from .conftest import SUBST

ROOT = Path(__file__).resolve().parents[2]


def test_bots_add_prints_a_token_once_and_revoke(tmp_path):
    db = str(tmp_path / "a.sqlite")
    runner = CliRunner()
    added = runner.invoke(main, ["bots", "add", "alice", "--db", db])
    assert added.exit_code == 0
    token = added.output.strip()
    assert len(token) >= 40
    storage = Storage(db)
    assert storage.authenticate(token).name == "alice"
    assert token not in str(storage.db.execute("SELECT * FROM bots").fetchall())  # hashed
    storage.close()
    again = runner.invoke(main, ["bots", "add", "alice", "--db", db])  # as docs/server.md says:
    assert again.exit_code == 0 and "replaces its old one" in again.stderr  # a new token
    new_token = again.stdout.strip()
    storage = Storage(db)
    assert storage.authenticate(token) is None and storage.authenticate(new_token).name == "alice"
    storage.close()
    token = new_token
    assert runner.invoke(main, ["bots", "revoke", "alice", "--db", db]).output == "revoked alice\n"
    assert runner.invoke(main, ["bots", "revoke", "alice", "--db", db]).exit_code == 2
    storage = Storage(db)
    assert storage.authenticate(token) is None
    storage.close()
    listing = runner.invoke(main, ["bots", "--game", "sim"])
    assert listing.exit_code == 0 and "sim-perfect" in listing.output


async def run_connect(*args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "from arena.cli import main; main()", "connect", *args,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, output.decode()


async def wait_connected(arena, name):
    async with asyncio.timeout(30):
        while name not in arena.server.sessions:
            await asyncio.sleep(0.02)


@pytest.mark.skipif(shutil.which("perl") is None, reason="needs perl")
async def test_connect_builtin_bot_and_exec_bridge(arena):
    cli_token = await arena.add_bot("cli")
    perl_token = await arena.add_bot("perl")
    random_cli = asyncio.create_task(run_connect(
        "--url", arena.url, "--token", cli_token, "--bot", "random", "--stop-after", "1"))
    perl_cli = asyncio.create_task(run_connect(
        "--url", arena.url, "--token", perl_token, "--json", "--stop-after", "1",
        "--exec", f"perl {ROOT / 'examples' / 'perl' / 'greedy_bot.pl'}"))
    await wait_connected(arena, "cli")
    await wait_connected(arena, "perl")
    record = await arena.server.play_game("substitution", SUBST, ["perl", "cli"], seed=21)
    assert record.outcome.termination.value == "normal"
    for task in (random_cli, perl_cli):
        code, output = await task
        assert code == 0 and "1 game(s) played" in output, output


async def test_connect_with_a_bad_token_fails_cleanly(arena):
    code, output = await run_connect("--url", arena.url, "--token", "wrong", "--bot", "random")
    assert code == 1 and "refused the connection: unauthorized" in output


def test_connect_needs_exactly_one_bot():
    result = CliRunner().invoke(main, ["connect", "--url", "ws://x", "--token", "t"])
    assert result.exit_code == 2 and "exactly one of --bot and --exec" in result.output


def test_serve_rejects_bad_settings(tmp_path):
    result = CliRunner().invoke(main, ["serve", "--db", str(tmp_path / "x.sqlite"),
                                       "--game", "sim", "--settings", '{"vertices": 1}'])
    assert result.exit_code == 2
    result = CliRunner().invoke(main, ["serve", "--db", str(tmp_path / "x.sqlite"),
                                       "--house", "nobody"])
    assert result.exit_code == 2 and "nobody" in result.output
    result = CliRunner().invoke(main, ["serve", "--db", str(tmp_path / "x.sqlite"),
                                       "--house", "exec:echo hi"])
    assert result.exit_code == 2 and "cannot play as house bots" in result.output


def test_serve_refuses_a_ladder_that_could_never_pair_anyone(tmp_path):
    """Tiles defaults to the solo game: a ladder of it would sit silent forever."""
    result = CliRunner().invoke(main, ["serve", "--db", str(tmp_path / "x.sqlite"),
                                       "--game", "tiles"])
    assert result.exit_code == 2
    assert "1-player game" in result.output and '{"players": 2}' in result.output


async def test_a_server_refuses_a_solo_ladder_when_embedded(make_arena):
    with pytest.raises(SettingsError, match="pairs two bots"):
        await make_arena(ladder=LadderConfig(game="tiles", settings={}))


async def test_connect_exec_stops_when_the_program_dies(arena):
    token = await arena.add_bot("dies")
    await arena.client("other", "random")
    task = asyncio.create_task(run_connect(
        "--url", arena.url, "--token", token,
        "--exec", f"{sys.executable} -c 'import sys; sys.stdin.readline()'"))
    await wait_connected(arena, "dies")
    arena.server.start_game("substitution", SUBST, ["dies", "other"], seed=1)
    code, output = await task
    assert code == 1 and "the bot stopped" in output and "closed its output" in output
