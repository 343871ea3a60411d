"""`arena bots add/revoke`, `arena connect` (built-in bot and --exec) against a real server."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import signal
import socket
import sys
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import SettingsError
from arena.registry import default_registry
from arena.server import LadderConfig
from arena.storage.sqlite import SQLiteDatabase
from clients.sdk import ArenaClient, CannotConnect
from tests.waiting import wait_for

from .conftest import SUBST

ROOT = Path(__file__).resolve().parents[2]


def test_bots_add_from_a_file_makes_every_account_at_once(tmp_path):
    db = str(tmp_path / "a.sqlite")
    names = tmp_path / "names.txt"
    names.write_text("# the bench's bots\nb0001\n\n  b0002  \nrunner.1\n")
    added = CliRunner().invoke(main, ["bots", "add", "--from", str(names), "--db", db])
    assert added.exit_code == 0, added.output
    lines = [line.split(" ") for line in added.stdout.splitlines()]
    assert [name for name, _ in lines] == ["b0001", "b0002", "runner.1"]
    assert "3 accounts made" in added.stderr
    storage = SQLiteDatabase(db)
    assert all(storage.authenticate(token).name == name for name, token in lines)
    storage.close()
    # from standard input, as operators: one name that exists makes none of them
    again = CliRunner().invoke(main, ["bots", "add", "--from", "-", "--operator", "--db", db],
                               input="c1\nb0002\n")
    assert again.exit_code == 2 and "1 account(s) exist already: b0002" in again.output
    assert "Traceback" not in again.output
    storage = SQLiteDatabase(db)
    assert sorted(bot.name for bot in storage.bots()) == ["b0001", "b0002", "runner.1"]
    storage.close()
    fresh = CliRunner().invoke(main, ["bots", "add", "--from", "-", "--operator", "--db", db],
                               input="c1\n")
    token = fresh.stdout.split()[1]
    storage = SQLiteDatabase(db)
    assert storage.authenticate(token).operator
    storage.close()


@pytest.mark.parametrize(("args", "text", "said"), [
    (["alice", "--from", "-"], "bob\n", "give a NAME or --from FILE (one of them)"),
    ([], "", "give a NAME or --from FILE (one of them)"),
    (["--from", "-"], "ok\nhouse:random\n", "reserved"),
    (["--from", "-"], "a\nb\na\n", "named twice: a"),
    (["--from", "-"], "with space\n", "with space"),
])
def test_bots_add_from_a_file_refuses_bad_input_clearly(tmp_path, args, text, said):
    db = str(tmp_path / "a.sqlite")
    result = CliRunner().invoke(main, ["bots", "add", *args, "--db", db], input=text)
    assert result.exit_code == 2 and said in result.output and "Traceback" not in result.output
    if (tmp_path / "a.sqlite").exists():
        storage = SQLiteDatabase(db)
        assert storage.bots() == []
        storage.close()


def test_bots_add_from_a_file_not_utf8_is_a_clear_error(tmp_path):
    names = tmp_path / "names.bin"
    names.write_bytes(b"ok\n\xff\xfe\n")
    result = CliRunner().invoke(main, ["bots", "add", "--from", str(names),
                                       "--db", str(tmp_path / "a.sqlite")])
    assert result.exit_code == 2 and "not UTF-8 text" in result.output


def test_bots_add_prints_a_token_once_and_revoke(tmp_path):
    db = str(tmp_path / "a.sqlite")
    runner = CliRunner()
    added = runner.invoke(main, ["bots", "add", "alice", "--db", db])
    assert added.exit_code == 0
    token = added.output.strip()
    assert len(token) >= 40
    storage = SQLiteDatabase(db)
    assert storage.authenticate(token).name == "alice"
    assert token not in str(storage.db.execute("SELECT * FROM bots").fetchall())  # hashed
    storage.close()
    again = runner.invoke(main, ["bots", "add", "alice", "--db", db])  # as docs/server.md says:
    assert again.exit_code == 0 and "replaces its old one" in again.stderr  # a new token
    new_token = again.stdout.strip()
    storage = SQLiteDatabase(db)
    assert storage.authenticate(token) is None and storage.authenticate(new_token).name == "alice"
    storage.close()
    token = new_token
    assert runner.invoke(main, ["bots", "revoke", "alice", "--db", db]).output == "revoked alice\n"
    assert runner.invoke(main, ["bots", "revoke", "alice", "--db", db]).exit_code == 2
    storage = SQLiteDatabase(db)
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
    await wait_for(lambda: name in arena.server.sessions, 30, f"{name} connected")


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
    assert code == 1 and "the server refused the token: unknown or revoked token" in output
    assert output.count("unknown or revoked") == 1, output  # said once, not per layer
    assert "arena bots add NAME --db FILE" in output and "arena serve --db FILE" in output


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_connect_gives_up_after_its_retries_with_one_clear_message():
    url = f"ws://127.0.0.1:{free_port()}/"  # nobody listens there
    code, output = await run_connect("--url", url, "--token", "t", "--bot", "random",
                                     "--retries", "2")
    assert code == 1, output
    assert f"cannot connect to {url}: 3 attempt(s) in" in output
    assert "is 'arena serve' running there?" in output
    assert output.count("retrying in") == 1, output  # the first failure only, not each retry


async def test_connect_timeout_gives_up_and_a_client_raises_cannot_connect():
    url = f"ws://127.0.0.1:{free_port()}/"
    code, output = await run_connect("--url", url, "--token", "t", "--bot", "random",
                                     "--connect-timeout", "0.3")
    assert code == 1 and "cannot connect to" in output, output
    client = ArenaClient(url, "t", lambda turn: "", reconnect_delay=0.01, connect_retries=4)
    with pytest.raises(CannotConnect, match="5 attempt"):
        await client.run()


ILLEGAL = f"{sys.executable} -c " + shlex.quote(
    "import sys\n"
    "for line in sys.stdin:\n"
    "    if line.startswith('turn '): print('7 7', flush=True)\n")


async def test_stop_after_prints_a_summary_and_a_forfeit_exits_3(arena):
    """The bot's illegal move: its reason on stderr as it comes, a summary that counts
    the forfeit, exit status 3."""
    token = await arena.add_bot("cheater")
    await arena.client("other", "random")
    task = asyncio.create_task(run_connect("--url", arena.url, "--token", token,
                                           "--stop-after", "1", "--exec", ILLEGAL))
    await wait_connected(arena, "cheater")
    record = await arena.server.play_game("sim", {"vertices": 5}, ["cheater", "other"], seed=1)
    assert record.outcome.termination.value == "illegal-move"
    code, output = await task
    assert code == 3, output
    assert "the move '7 7' was rejected" in output and "the game is forfeited" in output
    assert "1 game(s) played: 0 won, 1 lost, 0 drawn or aborted; forfeited by this bot: " \
           "1 by illegal-move" in output


async def test_the_server_s_other_complaints_reach_stderr(arena):
    """A debug line over the limits is refused with a non-fatal error: the author sees it."""
    token = await arena.add_bot("chatty")
    await arena.client("other", "random")
    chatty = f"{sys.executable} -c " + shlex.quote(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('turn '):\n"
        "        print('#' + 'x' * 5000, flush=True)\n"
        "        print(json.loads(line[5:])['legal'][0], flush=True)\n")
    task = asyncio.create_task(run_connect("--url", arena.url, "--token", token,
                                           "--stop-after", "1", "--exec", chatty))
    await wait_connected(arena, "chatty")
    await arena.server.play_game("sim", {"vertices": 5}, ["chatty", "other"], seed=1)
    code, output = await task
    assert code == 0, output
    assert "the server says" in output and "log-too-long" in output


async def test_serve_prints_its_urls_on_stdout_and_plays_durak_s_example(tmp_path):
    """Durak has no default settings: the ladder plays the lobby's example, said on
    stderr; the addresses come on stdout once the server listens."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "from arena.cli import main; main()", "serve", "--port", "0",
        "--db", str(tmp_path / "s.sqlite"), "--game", "durak",
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stderr is not None
        lines = []
        async with asyncio.timeout(60):
            while not lines or not lines[-1].startswith("  database:"):
                lines.append((await process.stdout.readline()).decode().rstrip("\n"))
        assert lines[0] == "arena server listening"
        ws_url = lines[1].split()[-1]
        http_url = lines[2].split()[-1]
        assert ws_url.startswith("ws://127.0.0.1:") and http_url.startswith("http://127.0.0.1:")
        assert ws_url[len("ws"):] == http_url[len("http"):]
        body = await asyncio.to_thread(
            lambda: urllib.request.urlopen(http_url + "api/schema?game=durak", timeout=30).read())
        assert json.loads(body)["x-game"]["name"] == "durak"
        await arena_client_sees_ladder(ws_url, "durak", tmp_path)
    finally:
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            _, err = await process.communicate()
    assert "durak has no default settings: the ladder plays its example settings " \
           '{"cards": "01101001"' in err.decode()


async def arena_client_sees_ladder(url: str, game: str, tmp_path: Path) -> None:
    """A bot connecting to the server learns the ladder's game and settings."""
    result = await asyncio.to_thread(  # the command runs its own event loop
        CliRunner().invoke, main, ["bots", "add", "probe", "--db", str(tmp_path / "s.sqlite")])
    token = result.stdout.strip()
    client = ArenaClient(url, token, lambda turn: "", reconnect=False)
    task = asyncio.create_task(client.run())
    try:
        async with asyncio.timeout(30):
            await client.connected.wait()
        assert client.welcome is not None
        assert client.welcome["ladder"]["game"] == game
        assert client.welcome["ladder"]["settings"]["cards"] == "01101001"
    finally:
        await client.stop()
        await task


def test_serve_names_the_settings_to_give_for_a_game_with_no_defaults(tmp_path, monkeypatch):
    heaps = default_registry().game_class("heaps")
    monkeypatch.setattr(heaps, "web_lobby", classmethod(lambda cls: {}))  # no example either
    result = CliRunner().invoke(main, ["serve", "--db", str(tmp_path / "x.sqlite"),
                                       "--game", "heaps"])
    assert result.exit_code == 2
    assert "the game 'heaps' has no default settings" in result.output
    assert "--settings JSON" in result.output and "arena schema --game heaps" in result.output


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
    assert code == 1 and "the bot stopped" in output and "exited with status 0" in output


SEGV = """
import json, os, signal, sys
turns = 0
for line in sys.stdin:
    if line.startswith("turn "):
        turns += 1
        if turns == 2:
            print("about to fail", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
        turn = json.loads(line[5:])
        print(turn["legal"][0] if turn["legal"] else turn["legal_steps"]["steps"][0],
              flush=True)
"""


async def test_connect_exec_says_a_crash_once_with_the_last_line_sent(arena, tmp_path):
    """A program killed by a signal was said three times; now once, on standard error,
    with the last line it was sent, and the games played are summed up."""
    program = tmp_path / "segv.py"
    program.write_text(SEGV)
    token = await arena.add_bot("segv")
    await arena.client("other", "random")
    task = asyncio.create_task(run_connect(
        "--url", arena.url, "--token", token, "--exec", f"{sys.executable} {program}"))
    await wait_connected(arena, "segv")
    settings = {**SUBST, "moves": 4}
    arena.server.start_game("substitution", settings, ["segv", "other"], seed=1)
    code, output = await task
    assert code == 1, output
    assert output.count("SIGSEGV") == 1, output
    assert "the bot stopped: the bot's program" in output
    assert "was killed by signal SIGSEGV (11); its last lines on standard error:\n  | " \
        "about to fail\nthe last line it was sent: turn {" in output
    assert "0 game(s) played" in output.splitlines()[-1]


async def test_connect_paused_accepts_challenges_by_its_policy(make_arena):
    """`arena connect --paused --accept auto --max-rating`: out of the ladder's pairing,
    and a challenge within the range is accepted (the pairing's two games are played)."""
    from arena.server import LadderConfig

    arena = await make_arena(ladder=LadderConfig(settings={**SUBST, "moves": 2}))
    token = await arena.add_bot("cli")
    task = asyncio.create_task(run_connect(
        "--url", arena.url, "--token", token, "--bot", "random", "--stop-after", "2",
        "--paused", "--accept", "auto", "--max-rating", "5"))
    await wait_connected(arena, "cli")
    assert not arena.server.sessions["cli"].seeking
    assert arena.server.challenges.policies["cli"].max_rating == 5.0
    challenger = await arena.client("alice", "random", seek=False, challenges=True)
    status = await challenger.challenge("cli")
    assert status["status"] == "accepted", status
    code, output = await task
    assert code == 0 and "2 game(s) played" in output, output


def test_serve_says_what_shared_limits_to_give_and_which_redis_does_not_answer(tmp_path):
    db = str(tmp_path / "x.sqlite")
    result = CliRunner().invoke(main, ["serve", "--db", db, "--shared-limits", "nats://x"])
    assert result.exit_code == 2 and "give 'local' or redis://HOST" in result.output
    result = CliRunner().invoke(main, ["serve", "--db", db, "--port", "0",
                                       "--shared-limits", "redis://127.0.0.1:1/0"])
    assert result.exit_code == 1
    assert "the shared limits' Redis does not answer at redis (redis://127.0.0.1:1/0" \
        in result.output
