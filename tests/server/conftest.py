"""Fixtures: a real server on loopback (port 0, temporary database) and raw clients."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from arena.app import Arena as ArenaApp
from arena.games.substitution import Settings
from arena.record import MatchRecord
from arena.registry import Registry
from arena.server import ServerConfig, TimeControl
from arena.server.live import LiveGame
from clients.sdk import ArenaBot, ArenaClient, BuiltinBot, Turn
from protocol import PROTOCOL_VERSION, Encoding, Message
from tests.waiting import wait_for

FAST = TimeControl(move_ms=1000, bank_ms=1000, first_move_ms=1000, retries=0, grace_ms=1000)
SUBST = Settings.preset("medium", 12).to_json()


async def stored_record(live: LiveGame, timeout: float = 20) -> MatchRecord:
    """The record of the game `live` once the server has stored it."""
    record: MatchRecord = await wait_for(lambda: live.record, timeout, f"game {live.id} stored")
    return record


class Arena:
    """A running arena (built by the composition root, `arena.app`) plus helpers to add
    bots and connect clients."""

    def __init__(self, app: ArenaApp) -> None:
        self.app = app
        self.server = app.server
        """The server core (`arena.server.ArenaServer`)."""
        self.clients: list[tuple[ArenaClient, asyncio.Task[None]]] = []
        self.raws: list[RawClient] = []

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def web(self) -> Any:
        """The HTTP side (`arena.web.app.WebFront`)."""
        return self.app.web

    async def add_bot(self, name: str, *, operator: bool = False) -> str:
        assert self.server.storage is not None
        storage = self.server.storage
        return await storage.add_bot(name, operator=operator)

    async def client(self, name: str, bot: ArenaBot | Callable[[Turn], Any] | str = "random",
                     *, wait: bool = True, **options: Any) -> ArenaClient:
        """Add an account, connect a client for it and wait for the welcome."""
        token = await self.add_bot(name)
        if isinstance(bot, str):
            bot = BuiltinBot(bot)
        client = ArenaClient(self.url, token, bot, reconnect_delay=0.05, **options)
        task = asyncio.create_task(client.run())
        self.clients.append((client, task))
        if wait:
            async with asyncio.timeout(5):
                await client.connected.wait()
        return client

    async def guest(self, bot: ArenaBot | str = "random") -> tuple[str, ArenaClient]:
        """A guest account (as the web interface issues them) with a connected client."""
        storage = self.server.storage
        assert storage is not None
        name, token = await storage.add_guest(3600.0)
        client = ArenaClient(self.url, token, BuiltinBot(bot) if isinstance(bot, str) else bot,
                             reconnect_delay=0.05)
        self.clients.append((client, asyncio.create_task(client.run())))
        async with asyncio.timeout(5):
            await client.connected.wait()
        return name, client

    async def raw(self, encoding: Encoding = Encoding.JSON, **options: Any) -> RawClient:
        """A raw client; `options` go to websockets' `connect` (``additional_headers``)."""
        ws = await connect(self.url, subprotocols=[encoding.subprotocol], compression=None,
                           max_size=None, **options)
        raw = RawClient(ws, encoding)
        self.raws.append(raw)
        return raw

    async def close(self) -> None:
        for raw in self.raws:
            raw.ws.transport.abort()
        for client, _ in self.clients:
            await client.stop()
        for _, task in self.clients:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await task
        await self.app.close()
        for client, _ in self.clients:  # every server message followed the schema
            assert client.bad_frames == [], client.bad_frames


class RawClient:
    """A bare WebSocket speaking the protocol by hand (for malformed input)."""

    def __init__(self, ws: ClientConnection, encoding: Encoding) -> None:
        self.ws = ws
        self.encoding = encoding

    async def send(self, type: str, /, **fields: Any) -> None:
        await self.ws.send(self.encoding.encode({"type": type, **fields}))

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        """The next message. `timeout` bounds a hang; it is no timing assertion (a loaded
        machine can take seconds to answer), so it is generous."""
        async with asyncio.timeout(timeout):
            frame = await self.ws.recv()
        data = self.encoding.decode(frame, max_size=1 << 30)
        Message.from_wire(data, sender="server")  # the server always speaks the schema
        assert isinstance(data, dict)
        return data

    async def expect(self, type: str, timeout: float = 30.0) -> dict[str, Any]:
        """Skip other messages until one of `type` arrives."""
        async with asyncio.timeout(timeout):
            while True:
                data = await self.recv(timeout)
                if data["type"] == type:
                    return data

    async def hello(self, token: str | None, role: str = "bot", **fields: Any) -> dict[str, Any]:
        if token is not None:
            fields["token"] = token
        await self.send("hello", protocol=PROTOCOL_VERSION, role=role, **fields)
        return await self.recv()


@pytest.fixture
async def make_arena(tmp_path) -> AsyncIterator[Callable[..., Any]]:
    started: list[Arena] = []

    async def make(registry: Registry | None = None, **options: Any) -> Arena:
        """A started server with `options` as its config (and `registry`'s plugins)."""
        config = ServerConfig(host="127.0.0.1", port=0, db=str(tmp_path / "arena.sqlite"),
                              time_control=FAST, ping_interval=None)
        config = replace(config, **options)
        app = ArenaApp(config, registry=registry)
        await app.start()
        arena = Arena(app)
        started.append(arena)
        return arena

    yield make
    for arena in started:
        await arena.close()  # safe to call twice


@pytest.fixture
async def arena(make_arena) -> Arena:
    return await make_arena()
