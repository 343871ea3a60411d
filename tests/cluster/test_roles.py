"""The arena split into gateways and hosts over NATS (issue 24, docs/cluster.md): real
``arena serve --role gateway`` and ``--role host`` processes on one PostgreSQL schema
and a NATS prefix of their own; the bots are in-process SDK clients connected to the
gateways, which own no game."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from arena.games.substitution import Settings
from arena.record import read_jsonl
from arena.validate import validate_record
from clients.sdk import ArenaClient
from protocol import PROTOCOL_VERSION, Encoding, Message
from tests.bus.conftest import nats_prefix, nats_url
from tests.server.test_durability import Witness, announced_ids, free_port, opened, start_server
from tests.storage.conftest import database_url
from tests.waiting import wait_for


class Cluster:
    """The processes of one test, by name, and where each writes its standard error."""

    def __init__(self, db: str, bus: str, tmp_path: Path) -> None:
        self.db, self.bus, self.tmp_path = db, bus, tmp_path
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.ports: dict[str, int] = {}

    async def start(self, name: str, role: str, *extra: str) -> str:
        """Start the process `name` in `role`; its bots' URL."""
        port = self.ports[name] = free_port()
        self.processes[name] = await start_server(
            self.db, port, self.stderr(name), "--role", role, "--bus", self.bus,
            "--host-id", name, "--lease-seconds", "2", *extra)
        return f"ws://127.0.0.1:{port}/"

    def stderr(self, name: str) -> Path:
        return self.tmp_path / f"{name}.stderr"

    async def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            await asyncio.to_thread(process.wait, 30)


@asynccontextmanager
async def cluster(tmp_path: Path) -> AsyncIterator[Cluster]:
    async with database_url("postgresql", tmp_path) as db, nats_prefix() as prefix:
        running = Cluster(db, nats_url(prefix), tmp_path)
        try:
            yield running
        finally:
            await running.stop()


@asynccontextmanager
async def bots(urls: dict[str, str], tokens: dict[str, str]) -> AsyncIterator[
        tuple[list[ArenaClient], dict[str, Witness]]]:
    """SDK clients, the bot `name` connected to ``urls[name]`` (a comma-separated list)."""
    witnesses = {name: Witness() for name in tokens}
    clients = []
    for name, token in tokens.items():
        client = ArenaClient(urls[name], token, witnesses[name], reconnect_delay=0.05,
                             max_reconnect_delay=0.2)
        client.on_message = witnesses[name].heard
        clients.append(client)
    tasks = [asyncio.create_task(client.run()) for client in clients]
    try:
        yield clients, witnesses
    finally:
        for client in clients:
            await client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)


async def check_stored(db: str, clients: list[ArenaClient],
                       witnesses: dict[str, Witness]) -> None:
    """Every announced result is stored, finished normally, its log the moves the bots
    were told of; no game aborted."""
    async with opened(db) as check:
        for client in clients:
            for result in client.results:
                row = await check.game(result.game_id)
                assert row is not None and row.status == "finished", (result.game_id, row)
                assert row.termination == "normal", row.reason
                assert row.result == result.result
                assert result.seed_verified
                record = read_jsonl(row.log.splitlines())  # type: ignore[union-attr]
                assert validate_record(record) is None
                logged = {turn.turn: turn.move for turn in record.turns}
                for name, witness in witnesses.items():
                    told = witness.told.get(result.game_id, {})
                    assert all(logged.get(t) == move for t, move in told.items()), name
        assert await check.games(limit=10_000, status="aborted") == []


def test_serve_refuses_a_role_its_database_or_bus_cannot_serve(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    sqlite = str(tmp_path / "x.sqlite")
    postgres = "postgresql://root@127.0.0.1/test"

    def refusal(*args: str) -> str:
        result = CliRunner().invoke(main, ["serve", "--port", "0", *args])
        assert result.exit_code == 2, result.output
        return result.output

    assert "needs --db postgresql://" in refusal("--db", sqlite, "--role", "gateway",
                                                 "--bus", "nats://127.0.0.1")
    assert "needs --bus nats://" in refusal("--db", postgres, "--role", "host")
    assert "--role all is one process" in refusal("--db", sqlite, "--bus", "nats://127.0.0.1")
    assert "not Redis" in refusal("--db", postgres, "--role", "host", "--bus", "redis://x")


async def spectate(url: str, game_id: str) -> asyncio.Task[list[dict[str, Any]]]:
    """A spectator of `game_id` on the gateway `url`: the task gives what it was sent
    of the game, up to its ``game_over``; a game nobody plays gets it ``unknown-game``."""
    ws = await connect(url, subprotocols=[Encoding.JSON.subprotocol])  # type: ignore[list-item]
    await ws.send(Encoding.JSON.encode({"type": "hello", "protocol": PROTOCOL_VERSION,
                                        "role": "spectator"}))
    assert Encoding.JSON.decode(await ws.recv())["type"] == "welcome"
    await ws.send(Encoding.JSON.encode({"type": "spectate", "game_id": "g404"}))
    refusal = Encoding.JSON.decode(await ws.recv())
    assert (refusal["type"], refusal["code"], refusal["game_id"]) == (
        "error", "unknown-game", "g404")
    await ws.send(Encoding.JSON.encode({"type": "spectate", "game_id": game_id}))

    async def seen() -> list[dict[str, Any]]:
        messages = []
        try:
            async for frame in ws:
                message = Encoding.JSON.decode(frame)
                Message.from_wire(message, sender="server")
                messages.append(message)
                if message["type"] == "game_over" or message.get("code") == "unknown-game":
                    return messages
        finally:
            await ws.close()
        return messages

    return asyncio.create_task(seen())


async def request_game(url: str, token: str,
                       players: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """An operator's ``request_game`` on the gateway `url`: its ``game_requested`` and
    ``game_over``."""
    async with connect(url, subprotocols=[Encoding.JSON.subprotocol]) as ws:  # type: ignore[list-item]
        await ws.send(Encoding.JSON.encode({"type": "hello", "protocol": PROTOCOL_VERSION,
                                            "role": "operator", "token": token}))
        assert Encoding.JSON.decode(await ws.recv())["type"] == "welcome"
        await ws.send(Encoding.JSON.encode({
            "type": "request_game", "request_id": "r1", "game": "substitution",
            "settings": Settings.preset("medium", 5).to_json(), "players": players,
            "seed": None}))
        answers = []
        async with asyncio.timeout(60):
            while not answers or answers[-1]["type"] != "game_over":
                answers.append(Encoding.JSON.decode(await ws.recv()))
                assert answers[-1]["type"] != "error", answers[-1]
        assert [answer["type"] for answer in answers] == ["game_requested", "game_over"]
        return answers[0], answers[1]


def leader(running: Cluster, hosts: tuple[str, ...]) -> str | None:
    """The host that says it leads the ladders' pairing last (None: none yet)."""
    leading = [name for name in hosts if "this host leads" in running.stderr(name).read_text()]
    return leading[-1] if len(leading) == 1 else None


def in_flight_told(witnesses: dict[str, Witness], clients: list[ArenaClient],
                   moves: int = 5) -> dict[str, int]:
    """The games not announced yet that some bot was told `moves` moves of, with how many."""
    announced = announced_ids(clients)
    return {game_id: len(told) for witness in witnesses.values()
            for game_id, told in witness.told.items()
            if game_id not in announced and len(told) >= moves}


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM])
async def test_two_gateways_two_hosts_one_ladder_and_a_host_killed(tmp_path: Path, stop: signal.Signals) -> None:
    """Bots on different gateways are paired with each other; the leading host is
    killed (``kill -9``) or stopped (SIGTERM: it suspends its games and ends its leases)
    mid-game: the other takes its games over and the pairing, and every game finishes
    without a bot reconnecting."""
    async with cluster(tmp_path) as running:
        async with opened(running.db) as storage:
            tokens = {name: await storage.add_bot(name)
                      for name in ("alice", "bob", "carol", "dave")}
        hosts = ("host-1", "host-2")
        for host in hosts:
            await running.start(host, "host")
        gateways = [await running.start(name, "gateway") for name in ("gateway-1", "gateway-2")]
        urls = {"alice": gateways[0], "bob": gateways[0],
                "carol": gateways[1], "dave": gateways[1]}
        async with bots(urls, tokens) as (clients, witnesses):
            def across() -> bool:
                return any(set(witnesses["alice"].told) & set(witnesses[name].told)
                           & announced_ids(clients) for name in ("carol", "dave"))

            await wait_for(across, 60, "a game between bots on different gateways, over")
            first = await wait_for(lambda: leader(running, hosts), 10, "a leader")

            async def both_hosts_play() -> bool:  # the leader's pairings, queued, go to both
                async with opened(running.db) as storage:
                    return {lease.host for lease in await storage.leases()} == set(hosts)

            await wait_for(both_hosts_play, 60, "ladder games played on both hosts at once")
            await wait_for(lambda: in_flight_told(witnesses, clients), 60, "a game in flight")
            running_games = in_flight_told(witnesses, clients)
            connections = [client.connections for client in clients]
            killed = running.processes[first]
            killed.send_signal(stop)
            await asyncio.to_thread(killed.wait)
            other = next(host for host in hosts if host != first)
            await wait_for(lambda: "this host leads" in running.stderr(other).read_text(), 30,
                           "the other host leads the pairing")
            await wait_for(lambda: set(running_games) <= announced_ids(clients), 60,
                           "every game in flight is over and announced")
            count = len(announced_ids(clients))
            await wait_for(lambda: len(announced_ids(clients)) >= count + 4, 60,
                           "the ladder goes on")
            assert [client.connections for client in clients] == connections
        await check_stored(running.db, clients, witnesses)


async def test_a_gateway_killed_its_bots_resume_on_the_other(tmp_path: Path) -> None:
    async with cluster(tmp_path) as running:
        async with opened(running.db) as storage:
            tokens = {name: await storage.add_bot(name) for name in ("alice", "bob")}
        await running.start("host-1", "host")
        gateways = [await running.start(name, "gateway") for name in ("gateway-1", "gateway-2")]
        both = ",".join(gateways)
        async with bots({"alice": both, "bob": both}, tokens) as (clients, witnesses):
            await wait_for(lambda: len(announced_ids(clients)) >= 2
                           and in_flight_told(witnesses, clients), 60,
                           "two results, and a game in flight")
            running_games = in_flight_told(witnesses, clients)
            assert all(client.url == gateways[0] for client in clients)
            # a spectator on the other gateway watches a game the host plays
            watched = min(running_games, key=running_games.__getitem__)  # the youngest
            spectator = await spectate(gateways[1], watched)
            killed = running.processes["gateway-1"]
            killed.send_signal(signal.SIGKILL)
            await asyncio.to_thread(killed.wait)
            await wait_for(lambda: set(running_games) <= announced_ids(clients), 60,
                           "every game in flight is over and announced")
            assert all(client.url == gateways[1] for client in clients)
            seen = await asyncio.wait_for(spectator, 30)
        await check_stored(running.db, clients, witnesses)
        result = next(r for c in clients for r in c.results if r.game_id == watched)
        assert seen[0]["type"] == "game_state" and seen[0]["game_id"] == watched
        assert seen[-1]["type"] == "game_over" and seen[-1]["result"] == result.result
        turns = [m["turn"] for m in seen if m["type"] == "moved"]  # each move once, in order
        assert turns and turns == list(range(seen[0]["turn"], seen[0]["turn"] + len(turns)))


async def test_cluster_up_a_bot_plays_the_ladder_through_a_gateway(tmp_path: Path) -> None:
    """``arena cluster up`` starts a host and two gateways; a bot connected to a gateway
    plays ladder games against the house bot, played on the host, to their end; SIGTERM
    stops every process."""
    async with database_url("postgresql", tmp_path) as db, nats_prefix() as prefix:
        async with opened(db) as storage:
            token = await storage.add_bot("alice")
            operator_token = await storage.add_bot("op", operator=True)
        up = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arena", "cluster", "up", "--gateways", "2", "--hosts", "1",
            "--port", "0", "--db", db, "--bus", nats_url(prefix), "--",
            "--house", "random", "--moves", "20", "--interval", "0.05",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        assert up.stdout is not None
        lines = [(await asyncio.wait_for(up.stdout.readline(), 60)).decode() for _ in range(3)]
        assert [line.split()[0] for line in lines] == ["host-1", "gateway-1", "gateway-2"]
        pids = [int(line.rsplit("(pid ", 1)[1].split(")")[0].split(":")[0]) for line in lines]
        gateway = lines[2].split()[1]
        assert gateway.startswith("ws://127.0.0.1:")
        try:
            async with bots({"alice": gateway}, {"alice": token}) as (clients, witnesses):
                await wait_for(lambda: len(announced_ids(clients)) >= 2, 60,
                               "two ladder games against the house bot, over")
                # an operator on the other gateway has a host play a game (a tournament's)
                requested, over = await request_game(lines[1].split()[1], operator_token,
                                                     ["house:random", "alice"])
                # alice hears its end on her own gateway, not necessarily before the operator
                await wait_for(lambda: requested["game_id"] in announced_ids(clients), 30,
                               "alice told of the requested game's end")
        finally:
            up.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(up.wait(), 60) == 0
        await check_stored(db, clients, witnesses)
        assert all(witnesses["alice"].told[game_id] for game_id in announced_ids(clients))
        assert over["game_id"] == requested["game_id"] and requested["request_id"] == "r1"
        assert over["termination"] == "normal" and over["log"]
        assert requested["game_id"] in announced_ids(clients)  # alice played it too
        for pid in pids:  # each process stopped (and reaped) with the cluster
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
