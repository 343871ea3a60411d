"""The composition root (`arena.app.Arena`) owns the arena's lifecycle: it opens the
storage, gives it to the server, serves the server and the web on its one port, and
closes them in the reverse order; the server closes only a storage it opened itself."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import arena.app
from arena.app import Arena
from arena.config import ServerConfig
from arena.server import ArenaServer
from arena.storage import Storage, open_storage
from clients.sdk import ArenaClient, BuiltinBot
from tests.waiting import wait_for


def config(tmp_path: Any, port: int = 0) -> ServerConfig:
    return ServerConfig(host="127.0.0.1", port=port, db=str(tmp_path / "arena.sqlite"),
                        ping_interval=None)


async def refused(port: int) -> bool:
    """Whether nothing listens on `port` any more."""
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return True
    writer.close()
    return False


async def test_the_root_closes_the_storage_last_after_the_port_and_the_server(
        tmp_path, monkeypatch) -> None:
    seen: dict[str, Any] = {}

    async def spied_open(url: str) -> Storage:
        storage = await open_storage(url)
        close = storage.close

        async def closing() -> None:  # what is already closed when the storage closes
            seen["server closed"] = the_arena.server._closed.is_set()
            seen["port refused"] = await refused(port)
            seen["web closed"] = the_arena.web._closed
            await close()
            seen["storage closed"] = True

        storage.close = closing  # type: ignore[method-assign]
        seen["storage"] = storage
        return storage

    monkeypatch.setattr(arena.app, "open_storage", spied_open)
    the_arena = Arena(config(tmp_path))
    await the_arena.start()
    port = the_arena.port
    assert the_arena.server.storage is seen["storage"] is the_arena.storage
    token = await the_arena.storage.add_bot("alice")
    client = ArenaClient(the_arena.url, token, BuiltinBot("random"), reconnect=False)
    task = asyncio.create_task(client.run())
    await wait_for(lambda: the_arena.server.connected("alice"), what="alice connected")
    await asyncio.gather(the_arena.close(), the_arena.close())  # twice, at once
    await the_arena.close()
    await asyncio.gather(task, return_exceptions=True)
    assert seen["port refused"] and seen["web closed"] and seen["server closed"]
    assert seen["storage closed"]
    assert client._ws is not None and client._ws.close_code == 1012


async def test_a_server_given_a_storage_leaves_it_open_and_has_no_port(tmp_path) -> None:
    storage = await open_storage(str(tmp_path / "arena.sqlite"))
    server = ArenaServer(config(tmp_path))
    await server.start(storage)
    try:
        with pytest.raises(RuntimeError, match="not served on a port"):
            _ = server.port
        record = await server.play_game("sim", {"vertices": 5},
                                        ["house:sim-random", "house:sim-random"], seed=1)
    finally:
        await server.close()
    # the server did not close what it did not open: the game is there to read
    assert (await storage.game(record.id)) is not None
    await storage.close()


async def test_a_server_alone_opens_and_closes_its_own_storage(tmp_path) -> None:
    server = ArenaServer(config(tmp_path))
    await server.start()
    storage = server.storage
    await storage.add_bot("alice")
    await server.close()
    with pytest.raises(RuntimeError):  # closed: its worker thread is gone
        await storage.bots()


async def test_a_start_that_fails_closes_what_it_opened(tmp_path, monkeypatch) -> None:
    async with Arena(config(tmp_path)) as first:
        closed: list[Storage] = []

        async def spied_open(url: str) -> Storage:
            storage = await open_storage(url)
            close = storage.close

            async def closing() -> None:
                closed.append(storage)
                await close()

            storage.close = closing  # type: ignore[method-assign]
            return storage

        monkeypatch.setattr(arena.app, "open_storage", spied_open)
        (tmp_path / "second").mkdir()
        second = Arena(config(tmp_path / "second", port=first.port))  # the port is taken
        with pytest.raises(OSError):
            await second.start()
        assert len(closed) == 1 and second.server.games.live == {}
        await second.close()  # safe after a failed start
        assert len(closed) == 1
