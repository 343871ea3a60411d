"""The web needs nothing of the server but its service interface (`arena.service`).

The composition root (`arena.app`) gives the web the server as an `ArenaService`; here
the web is given a stand-in instead, with no server, database or port of the arena's
own, and answers from it alone. The arena without a web answers plain HTTP 404 and
still serves bots on its port.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from arena.app import Arena
from arena.config import LadderConfig, ServerConfig
from arena.counters import Counters, LocalCounters
from arena.registry import Registry
from arena.service import LiveView, Records, StorageUnavailable
from arena.storage import BotAccount, StorageFailure
from arena.web.app import make_app
from tests.waiting import wait_for


class StandInRecords:
    """Two accounts; any other read fails as a database that is down does."""

    async def bots(self) -> list[BotAccount]:
        return [BotAccount("alice", False, False, 0.0), BotAccount("bob", True, False, 0.0)]

    def __getattr__(self, name: str) -> Any:
        async def down(*args: Any, **kwargs: Any) -> Any:
            raise StorageFailure(f"the stand-in has no {name}")
        return down


@dataclass
class StandInService:
    """An `ArenaService` without a server: what the web may ask, answered from values."""

    registry: Registry
    config: ServerConfig = field(default_factory=lambda: ServerConfig(
        ladder=LadderConfig(house=("random",))))
    records: Records = field(default_factory=StandInRecords)
    counters: Counters = field(default_factory=LocalCounters)
    started: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def health(self) -> dict[str, Any]:
        return {"status": "unhealthy", "reason": "a stand-in", "protocol": "1"}

    async def live_game(self, game_id: str) -> LiveView | None:
        return None

    def live_games_of(self, player: str) -> Collection[str]:
        return ("g1", "g2") if player == "alice" else ()

    def connected(self, name: str) -> bool:
        return name == "alice"

    def start_game(self, game_name: str, settings: Mapping[str, Any], players: Sequence[str],
                   **options: Any) -> LiveView:
        self.started.append((game_name, tuple(players)))
        raise StorageUnavailable("the stand-in stores nothing")

    def game_task(self, live: LiveView) -> asyncio.Task[Any]:
        raise AssertionError("no game starts")

    async def launch_game(self, game_name: str, settings: Mapping[str, Any],
                          players: Sequence[str], **options: Any) -> tuple[str, tuple[str, ...]]:
        self.start_game(game_name, settings, players, **options)
        raise AssertionError("no game starts")

    async def game_over(self, game_id: str) -> None:
        raise AssertionError("no game starts")


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry(["arena.games.sim.plugin", "bots.sim.plugin"], entry_points=False)


async def test_the_web_answers_from_the_service_alone(registry: Registry) -> None:
    service = StandInService(registry)
    async with TestClient(TestServer(make_app(service))) as client:
        health = await client.get("/healthz")
        assert health.status == 503 and (await health.json())["reason"] == "a stand-in"
        bots = await (await client.get("/api/bots")).json()
        assert bots["bots"][0] == {"name": "alice", "operator": False, "revoked": False,
                                   "connected": True, "games_in_flight": 2}
        assert bots["bots"][1]["connected"] is False and bots["house"] == ["house:random"]
        # a failure of the service's records is the server's: 503, never a 400
        games = await client.get("/api/games")
        assert games.status == 503
        assert (await games.json())["code"] == "storage-unavailable"
        # starting a game goes through the service, and its refusal comes back as 503
        match = await client.post("/api/match", json={
            "game": "sim", "settings": {"vertices": 5}, "bots": ["sim-random", "sim-random"]},
            headers={"Origin": str(client.make_url("")).rstrip("/")})
        assert match.status == 503, await match.text()
        assert service.started == [("sim", ("house:sim-random", "house:sim-random"))]


async def test_a_server_without_a_web_answers_http_404_and_serves_bots(tmp_path) -> None:
    arena = Arena(ServerConfig(port=0, db=str(tmp_path / "arena.sqlite"), ping_interval=None),
                  web=False)
    await arena.start()
    server = arena.server
    try:
        with pytest.raises(RuntimeError):
            _ = arena.web
        reader, writer = await asyncio.open_connection("127.0.0.1", arena.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = await reader.read()  # the server closes the connection
        writer.close()
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 404 ")
        assert json.loads(body)["code"] == "not-found"
        token = await server.storage.add_bot("alice")
        from clients.sdk import ArenaClient, BuiltinBot

        client = ArenaClient(server.url, token, BuiltinBot("random"), reconnect_delay=0.05)
        task = asyncio.create_task(client.run())
        await wait_for(lambda: server.connected("alice"), 5, "alice connected")
        await client.stop()
        await task
    finally:
        await arena.close()


async def test_the_composition_root_serves_the_web_on_the_servers_port(tmp_path) -> None:
    async with Arena(ServerConfig(port=0, db=str(tmp_path / "arena.sqlite"),
                                  ping_interval=None)) as arena:
        assert arena.web.service is arena.server and arena.server.storage is arena.storage
        reader, writer = await asyncio.open_connection("127.0.0.1", arena.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = await reader.read()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
