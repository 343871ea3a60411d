"""No game lost on a restart: ``kill -9`` (or SIGTERM) of ``arena serve`` mid-ladder, on
SQLite and on PostgreSQL, and a restart: every game that was running resumes from its
stored moves and finishes normally (none aborted), nothing announced is lost, and each
finished game's log is the moves both bots saw. The server runs as a subprocess; the
bots are in-process SDK clients that write down what they were told."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from arena.record import read_jsonl
from arena.storage import Storage, open_storage
from arena.validate import validate_record
from clients.sdk import ArenaClient, BuiltinBot, Turn
from protocol import PROTOCOL_VERSION, Encoding, Message
from tests.storage.conftest import database_url
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]


class Witness(BuiltinBot):
    """The random bot, taking a few milliseconds a move (so that a game lasts long enough
    for the kill to catch games in flight however fast the server is), that writes down
    every move it was told of: its own accepted ones and its opponents'."""

    def __init__(self) -> None:
        super().__init__("random")
        self.sent: dict[tuple[str, int], str] = {}
        """The move of each (game, turn) the server accepted, or else the last sent."""
        self._sent_all: defaultdict[tuple[str, int], list[str]] = defaultdict(list)
        """Every move sent for each (game, turn) and not refused: after a reconnection a
        bot may be given a turn again while its first answer is on its way, and answer
        twice; the server takes the first to come and refuses the other (stale)."""
        self.told: defaultdict[str, dict[int, str]] = defaultdict(dict)
        """Per game, the moves this bot was told of, by turn."""

    async def move(self, turn: Turn) -> str:  # type: ignore[override]
        await asyncio.sleep(0.005)
        answer = super().move(turn)
        move = answer if isinstance(answer, str) else await answer
        self.sent[turn.game_id, turn.turn] = move
        self._sent_all[turn.game_id, turn.turn].append(move)
        return move

    def heard(self, message: Message) -> None:
        kind = message.type
        if kind == "move_accepted":
            self.told[message["game_id"]][message["turn"]] = \
                self.sent[message["game_id"], message["turn"]]
        elif kind == "move_rejected":  # not this one: the other, if it sent two
            key = (message["game_id"], message["turn"])
            others = self._sent_all[key]
            if message["move"] in others:
                others.remove(message["move"])
            if self.sent.get(key) == message["move"] and len(others) == 1:
                self.sent[key] = others[0]
                if key[1] in self.told.get(key[0], {}):
                    self.told[key[0]][key[1]] = others[0]
        elif kind == "opponent_moved":
            self.told[message["game_id"]][message["turn"]] = message["move"]
        elif kind == "your_turn" and message.get("last_move"):
            last = message["last_move"]
            self.told[message["game_id"]][last["turn"]] = last["move"]


def announced_ids(clients: list[ArenaClient]) -> set[str]:
    return {result.game_id for client in clients for result in client.results}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def start_server(db: str, port: int, stderr: Path,
                       *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    errors = open(stderr, "ab")  # noqa: SIM115, ASYNC230 - the child keeps it
    process = subprocess.Popen(  # noqa: ASYNC220 - starting it does not block
        [sys.executable, "-c", "from arena.cli import main; main()", "serve", "--port", str(port),
         "--db", db, "--moves", "20", "--interval", "0.05", "--house", "random",
         "--grace-ms", "60000", "--max-games", "4", *extra],
        env=env, stdout=subprocess.DEVNULL, stderr=errors,
    )
    errors.close()

    def healthy() -> bool:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
        except OSError:
            assert process.poll() is None, stderr.read_text()
            return False
        return True

    await wait_for(lambda: asyncio.to_thread(healthy), 30, "the server answers /healthz")
    return process


@contextlib.asynccontextmanager
async def opened(url: str) -> AsyncIterator[Storage]:
    storage = await open_storage(url)
    try:
        yield storage
    finally:
        await storage.close()


async def in_flight(url: str) -> dict[str, int]:
    """The games stored as running, with their stored moves' count."""
    async with opened(url) as storage:
        return {game.id: len(game.turns) for game in await storage.running_games()}


async def spectator_close_code(url: str) -> asyncio.Task[int | None]:
    """A spectator connected now; the task gives the code its connection is closed with."""
    ws = await connect(url, subprotocols=[Encoding.JSON.subprotocol])  # type: ignore[list-item]
    await ws.send(Encoding.JSON.encode({"type": "hello", "protocol": PROTOCOL_VERSION,
                                        "role": "spectator"}))
    await ws.recv()  # welcome

    async def closed() -> int | None:
        with contextlib.suppress(ConnectionClosed):
            async for _ in ws:
                pass
        return ws.close_code

    return asyncio.create_task(closed())


@pytest.mark.parametrize(("backend", "stop"), [
    ("sqlite", signal.SIGKILL), ("postgresql", signal.SIGKILL), ("sqlite", signal.SIGTERM)])
async def test_a_restart_mid_ladder_loses_no_game(tmp_path: Path, backend: str,
                                                  stop: signal.Signals) -> None:
    async with database_url(backend, tmp_path) as db:
        async with opened(db) as storage:
            tokens = {name: await storage.add_bot(name) for name in ("alice", "bob", "carol")}
        port = free_port()
        url = f"ws://127.0.0.1:{port}/"
        stderr = tmp_path / "serve.stderr"
        # on PostgreSQL, a restart under the same name takes its games back at once
        same_name = ("--host-id", "restarted") if backend == "postgresql" else ()
        server = await start_server(db, port, stderr, *same_name)
        witnesses = {name: Witness() for name in tokens}
        clients = []
        for name, token in tokens.items():
            client = ArenaClient(url, token, witnesses[name], reconnect_delay=0.05,
                                 max_reconnect_delay=0.2, compact=name != "carol")
            client.on_message = witnesses[name].heard
            clients.append(client)
        tasks = [asyncio.create_task(client.run()) for client in clients]
        try:
            def deep_in_a_game() -> bool:  # a move told after a few: a game is in flight
                return len(announced_ids(clients)) >= 4 and any(
                    max(told, default=0) >= 5 and game_id not in announced_ids(clients)
                    for witness in witnesses.values() for game_id, told in witness.told.items())

            await wait_for(deep_in_a_game, 60, "four results, and a game in flight")
            closing = await spectator_close_code(url)
            server.send_signal(stop)
            await asyncio.to_thread(server.wait)
            if stop == signal.SIGTERM:
                assert server.returncode == 0, stderr.read_text()
                assert await closing == 1012  # service restart: clients come back
            announced = {r.game_id: r for c in clients for r in c.results}
            before_restart = len(announced)
            running = await in_flight(db)
            assert running and any(running.values()), "the stop should catch games in flight"

            server = await start_server(db, port, stderr, *same_name)  # the games resume
            await wait_for(lambda: f"resumed {len(running)} running game(s) from their "
                           "stored moves" in stderr.read_text(), 30, "serve says it resumed")
            await wait_for(lambda: set(running) <= announced_ids(clients), 60,
                           "every game that was running is over and announced")
            await wait_for(lambda: len(announced_ids(clients)) >= before_restart + 6, 60,
                           "the ladder goes on after the restart")
        finally:
            for client in clients:
                await client.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            server.send_signal(signal.SIGTERM)
            await asyncio.to_thread(server.wait, 30)

        async with opened(db) as check:
            results = {r.game_id: r for c in clients for r in c.results}
            for game_id in running:  # none aborted: each finished as its players played it
                row = await check.game(game_id)
                assert row is not None and row.status == "finished", (game_id, row)
                assert row.termination == "normal", row.reason
                record = read_jsonl(row.log.splitlines())  # type: ignore[union-attr]
                assert validate_record(record) is None
                assert len(record.turns) >= running[game_id]  # the stored moves, then more
                assert results[game_id].result == row.result
                assert results[game_id].seed_verified  # the commitment survived the restart
            for game_id, result in announced.items():  # nothing announced was lost
                row = await check.game(game_id)
                assert row is not None and row.status == "finished"
                assert row.result == result.result and row.seed == str(result.seed)
            # each finished game's log is the moves its bots saw: every move a bot was told
            # of is the logged one, every logged move of a bot is the one it sent, and each
            # bot was told of every move but those stored and not yet told at the stop
            for game_id in results:
                row = await check.game(game_id)
                assert row is not None
                record = read_jsonl(row.log.splitlines())  # type: ignore[union-attr]
                logged = {turn.turn: turn.move for turn in record.turns}
                told_from = running.get(game_id, 0)
                for name, witness in witnesses.items():
                    if name not in record.players:
                        continue
                    told = witness.told.get(game_id, {})
                    assert all(logged.get(t) == move for t, move in told.items()), (name, game_id)
                    assert {t for t in logged if t >= told_from} <= set(told), (name, game_id)
                    for turn in record.turns:
                        if record.players[turn.player] == name:
                            assert witness.sent[game_id, turn.turn] == turn.move
            assert await check.games(limit=10_000, status="aborted") == []
