"""kill -9 mid-ladder: nothing announced is lost, in-flight games become aborted, the
ladder resumes. The server runs as a subprocess; the bots are in-process SDK clients."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

from arena.record import read_jsonl
from arena.storage.sqlite import SQLiteDatabase
from arena.validate import validate_record
from clients.sdk import ArenaClient, BuiltinBot, Turn
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]


class UnhurriedBot(BuiltinBot):
    """The random bot, taking a few milliseconds a move, so that a 20-move game lasts long
    enough for the kill to catch games in flight however fast the server is."""

    async def move(self, turn: Turn) -> str:  # type: ignore[override]
        await asyncio.sleep(0.005)
        answer = super().move(turn)
        return answer if isinstance(answer, str) else await answer


def announced_ids(clients: list[ArenaClient]) -> set[str]:
    return {result.game_id for client in clients for result in client.results}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def start_server(db: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    errors = open(db.with_suffix(".stderr"), "ab")  # noqa: SIM115, ASYNC230 - the child keeps it
    process = subprocess.Popen(  # noqa: ASYNC220 - starting it does not block
        [sys.executable, "-c", "from arena.cli import main; main()", "serve", "--port", str(port),
         "--db", str(db), "--moves", "20", "--interval", "0.05", "--house", "random",
         "--grace-ms", "60000", "--max-games", "4"],
        env=env, stdout=subprocess.DEVNULL, stderr=errors,
    )
    errors.close()

    def healthy() -> bool:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
        except OSError:
            assert process.poll() is None, db.with_suffix(".stderr").read_text()
            return False
        return True

    await wait_for(lambda: asyncio.to_thread(healthy), 20, "the server answers /healthz")
    return process


async def test_sigkill_mid_ladder_loses_nothing_announced(tmp_path):
    db = tmp_path / "arena.sqlite"
    storage = SQLiteDatabase(db)
    tokens = {name: storage.add_bot(name) for name in ("alice", "bob", "carol")}
    storage.close()
    port = free_port()
    url = f"ws://127.0.0.1:{port}/"
    server = await start_server(db, port)
    clients = [ArenaClient(url, token, UnhurriedBot("random"), reconnect_delay=0.05,
                           max_reconnect_delay=0.2) for token in tokens.values()]
    tasks = [asyncio.create_task(client.run()) for client in clients]
    try:
        await wait_for(lambda: len(announced_ids(clients)) >= 10, 30, "10 results announced")
        server.send_signal(signal.SIGKILL)  # mid-ladder: games are in flight
        server.wait()
        announced = {r.game_id: r for c in clients for r in c.results}
        before_restart = len(announced)

        rows = sqlite3.connect(db).execute("SELECT id, status FROM games").fetchall()
        running = {game_id for game_id, status in rows if status == "running"}
        assert running, "the kill should catch games in flight"

        server = await start_server(db, port)  # restart: recovery, then the ladder resumes
        await wait_for(lambda: len(announced_ids(clients)) >= before_restart + 10, 30,
                       "10 more results announced after the restart")
    finally:
        for client in clients:
            await client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)

    check = SQLiteDatabase(db)
    try:
        for game_id, result in announced.items():
            row = check.game(game_id)
            assert row is not None and row.status == "finished", game_id
            assert row.result == result.result and row.seed == str(result.seed)
            assert result.seed_verified  # the revealed seed is the one committed to
            record = read_jsonl(row.log.splitlines())
            assert validate_record(record) is None
        for game_id in running:
            row = check.game(game_id)
            assert row.status == "aborted" and row.termination == "aborted"
            assert row.reason == "server stopped while the game was in flight"
            assert read_jsonl(row.log.splitlines()).outcome.result == "aborted"
        finished_after = [g for g in check.games(limit=10_000, status="finished")
                          if g.id not in announced]
        assert finished_after, "the ladder resumed after the restart"
        # every rated game is in the ratings, and only those
        rated = check.db.execute(
            "SELECT bot, COUNT(*) FROM rating_updates GROUP BY bot").fetchall()
        for bot, count in rated:
            assert check.rating(bot, "substitution").games == count
        finished = check.games(limit=10_000, status="finished")
        assert sum(count for _, count in rated) == 2 * len(finished)
    finally:
        check.close()
    assert before_restart >= 10
