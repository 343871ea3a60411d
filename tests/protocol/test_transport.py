"""The fast path's use of websockets internals (`protocol/transport.py`).

`transport.py` reaches below websockets' public API: it reads a connection's
``send_in_progress``, ``paused``, ``recv_messages.frames`` and ``protocol``, overrides
``process_event`` and writes frames through the sans-I/O protocol. A websockets release
that changes one of them must fail here, by name, rather than as a 1011 on every
connection (websockets 15 did: ``pyproject.toml`` asks for 16 or newer).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator

import pytest
import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.connection import Connection
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, State

from protocol.transport import FastClientConnection, can_write_now, frame_for_callback, write_now
from tests.waiting import wait_for

VERSION = websockets.__version__


def test_the_internals_transport_py_names_exist() -> None:
    for name in ("process_event", "send", "recv"):
        assert callable(getattr(Connection, name, None)), f"websockets {VERSION}: no Connection.{name}"
    assert list(inspect.signature(Connection.process_event).parameters) == ["self", "event"], (
        f"websockets {VERSION}: Connection.process_event(event) changed its signature")
    for name in ("send_text", "send_binary", "data_to_send", "state"):
        assert hasattr(Protocol, name), f"websockets {VERSION}: no Protocol.{name}"
    for name in ("fin", "opcode", "data"):
        assert name in Frame.__dataclass_fields__, f"websockets {VERSION}: no Frame.{name}"
    assert {Opcode.TEXT, Opcode.BINARY} <= set(Opcode) and State.OPEN in State
    assert issubclass(FastClientConnection, ClientConnection)


@pytest.fixture
async def pair() -> AsyncIterator[tuple[FastClientConnection, list[str | bytes], asyncio.Queue[ServerConnection]]]:
    """A client with the SDK's connection class, and what the server received."""
    received: list[str | bytes] = []
    servers: asyncio.Queue[ServerConnection] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        await servers.put(connection)
        async for message in connection:
            received.append(message)

    async with serve(handler, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}/",
                           create_connection=FastClientConnection) as client:
            assert isinstance(client, FastClientConnection)
            yield client, received, servers


async def test_an_idle_open_connection_takes_frames_at_once(pair) -> None:
    client, received, _ = pair
    in_progress = getattr(client, "send_in_progress", "missing")
    assert in_progress is None, (
        f"websockets {VERSION}: Connection.send_in_progress is {in_progress!r} when idle, "
        "not None (protocol/transport.py needs websockets>=16)")
    assert getattr(client, "paused", None) is False, f"websockets {VERSION}: no Connection.paused"
    assert client.protocol.state is State.OPEN
    assert can_write_now(client)
    write_now(client, ["one", b"two", "three"])
    await wait_for(lambda: len(received) == 3)
    assert received == ["one", b"two", "three"]


async def test_a_fragmented_send_is_not_interleaved(pair) -> None:
    client, _, _ = pair
    chunks: asyncio.Queue[str | None] = asyncio.Queue()

    async def fragments() -> AsyncIterator[str]:
        while (chunk := await chunks.get()) is not None:
            yield chunk

    sending = asyncio.create_task(client.send(fragments()))
    await chunks.put("a")
    await wait_for(lambda: client.send_in_progress is not None)
    assert not can_write_now(client)  # a fragmented message is on its way
    await chunks.put(None)
    await sending
    assert can_write_now(client)


async def test_complete_frames_reach_the_callback_and_others_the_queue(pair) -> None:
    client, _, servers = pair
    server = await servers.get()
    assert len(client.recv_messages.frames) == 0, (
        f"websockets {VERSION}: Connection.recv_messages.frames is not a sized queue")
    taken: list[bytes | str] = []
    client.on_frame = lambda data: taken.append(data) is None  # takes every frame
    await server.send("text")
    await server.send(b"\x00binary")
    await wait_for(lambda: len(taken) == 2)
    assert taken == ["text", b"\x00binary"]
    client.on_frame = lambda data: False  # leaves them to the queue: recv() gets them
    await server.send("queued")
    assert await asyncio.wait_for(client.recv(), 10) == "queued"
    client.on_frame = None
    await server.send(["frag", "mented"])  # fragments never go to the callback
    assert await asyncio.wait_for(client.recv(), 10) == "fragmented"


def test_frame_for_callback_takes_only_complete_data_frames() -> None:
    class Queue:
        def __init__(self) -> None:
            self.frames: list[Frame] = []

    class Idle:  # stands in for a connection: only its queue is read
        recv_messages = Queue()

    idle = Idle()
    assert frame_for_callback(idle, Frame(Opcode.TEXT, "é".encode())) == "é"  # type: ignore[arg-type]
    assert frame_for_callback(idle, Frame(Opcode.BINARY, b"\xff")) == b"\xff"  # type: ignore[arg-type]
    assert frame_for_callback(idle, Frame(Opcode.TEXT, b"\xff")) is None  # type: ignore[arg-type]
    assert frame_for_callback(idle, Frame(Opcode.TEXT, b"a", fin=False)) is None  # type: ignore[arg-type]
    assert frame_for_callback(idle, Frame(Opcode.PING, b"")) is None  # type: ignore[arg-type]
    idle.recv_messages.frames.append(Frame(Opcode.TEXT, b"older"))
    assert frame_for_callback(idle, Frame(Opcode.TEXT, b"a")) is None  # type: ignore[arg-type]
