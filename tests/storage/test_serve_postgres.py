"""End to end on PostgreSQL: ``arena bots add`` and ``arena serve --db postgresql://...``
(a real subprocess); the ladder plays, the web's ``/api/games`` and leaderboard answer
from the shared database."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from arena.record import read_jsonl
from arena.validate import validate_record
from clients.sdk import ArenaClient, BuiltinBot
from tests.waiting import wait_for

from .conftest import postgres_schema

ROOT = Path(__file__).resolve().parents[2]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
        return json.loads(reply.read())


async def test_arena_serve_on_postgresql_plays_the_ladder_and_answers_the_web() -> None:
    async with postgres_schema() as url:
        tokens = {}
        for name in ("alice", "bob"):
            added = await asyncio.to_thread(arena, "bots", "add", name, "--db", url)
            assert added.returncode == 0, added.stderr
            tokens[name] = added.stdout.strip()
        server = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arena", "serve", "--port", "0", "--db", url, "--moves", "6",
            "--interval", "0.05", cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        clients: list[ArenaClient] = []
        tasks = []
        try:
            assert server.stdout is not None
            lines: list[str] = []
            async with asyncio.timeout(60):
                while not lines or not lines[-1].startswith("  database:"):
                    lines.append((await server.stdout.readline()).decode().rstrip("\n"))
            assert lines[-1].split()[-1].startswith("postgresql://root@127.0.0.1")
            ws_url = lines[1].split()[-1]
            port = int(ws_url.rstrip("/").rsplit(":", 1)[1])
            clients = [ArenaClient(ws_url, token, BuiltinBot("random"), reconnect_delay=0.05)
                       for token in tokens.values()]
            tasks = [asyncio.create_task(client.run()) for client in clients]
            await wait_for(lambda: all(len(client.results) >= 4 for client in clients), 60,
                           "the ladder plays four games each")

            games = (await asyncio.to_thread(get, port, "/api/games?status=finished"))["games"]
            assert len(games) >= 4 and all(game["ladder"] for game in games)
            stored = await asyncio.to_thread(get, port, f"/api/games/{games[0]['id']}")
            assert validate_record(read_jsonl(stored["log"].splitlines())) is None
            board = (await asyncio.to_thread(get, port, "/api/leaderboard"))["leaderboard"]
            assert sorted(row["bot"] for row in board) == ["alice", "bob"]
            assert all(row["games"] >= 4 for row in board)
            health = await asyncio.to_thread(get, port, "/healthz")
            assert health["status"] == "ok"
        finally:
            for client in clients:
                await client.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            server.send_signal(signal.SIGTERM)
            async with asyncio.timeout(30):
                _, errors = await server.communicate()
        assert server.returncode == 0, errors.decode()
