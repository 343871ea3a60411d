"""The SDK's keepalive (`clients.sdk.ArenaClient._keepalive`): one ping per connection,
not one from each side. Against a server of the test's own (plain websockets), which
announces its ``ping_interval`` in its ``welcome`` and counts the pings it gets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode
from websockets.protocol import Event

from clients import sdk
from clients.sdk import ArenaClient, BuiltinBot
from protocol import Encoding
from tests.waiting import wait_for

LIMITS = {"max_frame": 262144, "max_legal": 1000, "max_log_bytes": 1024,
          "max_logs_per_turn": 10, "max_logs_per_game": 200,
          "max_log_bytes_per_day": 4194304, "legal_requests_per_turn": 100,
          "message_rate": 50, "message_burst": 200}


class Server:
    """A server that welcomes every hello, announcing `interval`, pings every `pings`
    seconds (None: never), and counts what it got."""

    def __init__(self, interval: float, pings: float | None) -> None:
        self.interval, self.pings = interval, pings
        self.connections = 0
        self.pinged = 0
        """Pings the clients sent."""
        self.ponged = 0
        """Pongs to this server's pings."""

    def counting(self) -> type[ServerConnection]:
        server = self

        class Counting(ServerConnection):
            def process_event(self, event: Event) -> None:
                if isinstance(event, Frame) and event.opcode is Opcode.PING:
                    server.pinged += 1
                super().process_event(event)

        return Counting

    async def handle(self, ws: ServerConnection) -> None:
        self.connections += 1
        hello = json.loads(await ws.recv())
        assert hello["type"] == "hello"
        await ws.send(json.dumps({
            "type": "welcome", "protocol": 1, "server": "test", "role": "bot", "bot": "alice",
            "capabilities": [], "games": [], "in_progress": [], "ladder": None,
            "limits": {**LIMITS, "ping_interval": self.interval}}))
        while self.pings is not None:
            await asyncio.sleep(self.pings)
            await (await ws.ping())
            self.ponged += 1
        await ws.wait_closed()


@asynccontextmanager
async def playing(server: Server) -> AsyncIterator[ArenaClient]:
    """An SDK client connected to `server`, running."""
    async with serve(server.handle, "127.0.0.1", 0, ping_interval=None,
                     subprotocols=[Encoding.JSON.subprotocol],  # type: ignore[list-item]
                     create_connection=server.counting()) as running:
        port = next(iter(running.sockets)).getsockname()[1]
        client = ArenaClient(f"ws://127.0.0.1:{port}/", "token", BuiltinBot("random"),
                             encoding=Encoding.JSON, reconnect_delay=0.01)
        task = asyncio.create_task(client.run())
        try:
            await wait_for(client.connected.is_set, 10, "welcomed")
            yield client
        finally:
            await client.stop()
            await asyncio.gather(task, return_exceptions=True)


async def test_a_server_that_pings_is_relied_on_and_never_pinged(monkeypatch: Any) -> None:
    monkeypatch.setattr(sdk, "KEEPALIVE", 0.01)  # were the client to ping, it would be seen
    server = Server(0.1, pings=0.05)
    async with playing(server) as client:
        await wait_for(lambda: server.ponged >= 20, 10, "20 of the server's pings answered")
        assert server.pinged == 0 and server.connections == client.connections == 1


async def test_a_server_that_pings_and_falls_silent_is_left_and_connected_again(
        monkeypatch: Any) -> None:
    """It announced pings every 0.1 s and sends none: after 2 intervals of silence the
    client drops the connection and makes it again (pinging it never)."""
    monkeypatch.setattr(sdk, "KEEPALIVE", 0.01)
    server = Server(0.1, pings=None)
    async with playing(server) as client:
        await wait_for(lambda: server.connections >= 3 and client.connections >= 3, 10,
                       "the silent server left, twice")
        assert server.pinged == 0


async def test_a_server_that_does_not_ping_is_pinged(monkeypatch: Any) -> None:
    """``ping_interval`` 0 (a server configured without pings): the client pings it,
    every `KEEPALIVE` seconds, on the one connection."""
    monkeypatch.setattr(sdk, "KEEPALIVE", 0.05)
    server = Server(0, pings=None)
    async with playing(server) as client:
        await wait_for(lambda: server.pinged >= 5, 10, "the client's pings")
        assert server.connections == client.connections == 1
