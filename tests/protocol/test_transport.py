"""The fast path's use of websockets internals (`protocol/transport.py`).

`transport.py` reaches below websockets' public API: it reads a connection's
``send_in_progress``, ``paused``, ``recv_messages.frames`` and ``protocol``, overrides
``process_event`` and writes frames through the sans-I/O protocol. A websockets release
that changes one of them must fail here, by name, rather than as a 1011 on every
connection (websockets 15 did: ``pyproject.toml`` asks for 16 or newer).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator

import pytest
import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.connection import Connection
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode, apply_mask
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol

from protocol.transport import (
    FastClientConnection,
    FastFrames,
    can_write_now,
    frame_for_callback,
    write_now,
)
from tests.waiting import wait_for

VERSION = websockets.__version__


def test_the_internals_transport_py_names_exist() -> None:
    for name in ("process_event", "send", "recv"):
        assert callable(getattr(Connection, name, None)), f"websockets {VERSION}: no Connection.{name}"
    assert list(inspect.signature(Connection.process_event).parameters) == ["self", "event"], (
        f"websockets {VERSION}: Connection.process_event(event) changed its signature")
    for name in ("send_text", "send_binary", "data_to_send", "state"):
        assert hasattr(Protocol, name), f"websockets {VERSION}: no Protocol.{name}"
    protocol = ServerProtocol()
    for name in ("parser", "reader", "current_size", "max_message_size", "max_fragment_size",
                 "extensions", "side"):  # FastFrames.data_received reads them
        assert hasattr(protocol, name), f"websockets {VERSION}: no Protocol.{name}"
    assert inspect.isgenerator(protocol.parser), f"websockets {VERSION}: Protocol.parser"
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


def _client_frame(head1: int, payload: bytes, key: bytes = b"\x5a\x13\xc7\x01") -> bytes:
    """A masked frame as a client sends it (`head1`: FIN, RSV and opcode bits)."""
    size = len(payload)
    if size < 126:
        head = bytes((head1, 0x80 | size))
    elif size < 65536:
        head = bytes((head1, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((head1, 0x80 | 127)) + size.to_bytes(8, "big")
    return head + key + apply_mask(payload, key)


class FastServerConnection(FastFrames, ServerConnection):
    """A server connection reading its frames as the arena server's does."""


STREAM = b"".join([
    _client_frame(0x81, b"one"),
    _client_frame(0x82, bytes(range(256)) * 2),  # a 16-bit length
    _client_frame(0x82, b"b" * 70_000),  # a 64-bit length
    _client_frame(0x89, b"are you there"),  # a ping, answered by websockets
    _client_frame(0x81, "é".encode()),
    _client_frame(0x01, b"frag"),  # a fragmented message: websockets' queue
    _client_frame(0x80, b"mented"),
    _client_frame(0x82, b"after"),  # behind the queued message: the queue too
])


@pytest.mark.parametrize("cut", ["whole", "byte by byte", "every 7 bytes", "every 1000 bytes"])
async def test_frames_read_by_the_fast_path_arrive_whole_and_in_order(cut: str) -> None:
    """However the bytes arrive, the callback gets exactly the complete data frames with
    nothing queued before them, and websockets the rest, in order."""
    step = {"whole": len(STREAM), "byte by byte": 1, "every 7 bytes": 7, "every 1000 bytes": 1000}[cut]
    taken: list[bytes | str] = []
    queued: list[bytes | str] = []
    ready: asyncio.Queue[FastServerConnection] = asyncio.Queue()
    parsed = 0

    async def handler(connection: ServerConnection) -> None:
        assert isinstance(connection, FastServerConnection)
        connection.on_frame = lambda data: taken.append(data) is None
        await ready.put(connection)
        async for message in connection:
            queued.append(message)

    async with serve(handler, "127.0.0.1", 0, create_connection=FastServerConnection,
                     max_size=100_000, compression=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}/", compression=None) as client:
            connection = await ready.get()
            receive = connection.protocol.receive_data

            def counted(data: bytes) -> None:
                nonlocal parsed
                parsed += 1
                receive(data)

            connection.protocol.receive_data = counted  # type: ignore[method-assign]
            for start in range(0, len(STREAM), step):
                connection.data_received(STREAM[start:start + step])
            await wait_for(lambda: len(queued) == 2)
            assert taken == ["one", bytes(range(256)) * 2, b"b" * 70_000, "é"]
            assert queued == ["fragmented", b"after"]
            await asyncio.wait_for(await client.ping(), 10)  # still in step with the client
            parsed_before = parsed
            connection.data_received(_client_frame(0x82, b"x") + _client_frame(0x81, b"y"))
            assert taken[-2:] == [b"x", "y"]
            if step != 1:  # complete data frames at a frame boundary: websockets parses none
                assert parsed == parsed_before
            connection.data_received(_client_frame(0x82, b"z" * 100_001))  # above max_size
            await wait_for(lambda: connection.protocol.state is not State.OPEN)
            assert connection.protocol.close_sent is not None
            assert connection.protocol.close_sent.code == 1009
            assert taken[-1] == "y"


async def test_invalid_utf8_text_in_the_fast_path_closes_like_websockets() -> None:
    closed: asyncio.Queue[int | None] = asyncio.Queue()

    async def handler(connection: ServerConnection) -> None:
        assert isinstance(connection, FastServerConnection)
        connection.on_frame = lambda data: True
        connection.data_received(_client_frame(0x81, b"\xff\xfe"))
        with contextlib.suppress(websockets.ConnectionClosed):
            async for _ in connection:
                pass
        sent = connection.protocol.close_sent
        await closed.put(None if sent is None else sent.code)

    async with serve(handler, "127.0.0.1", 0, create_connection=FastServerConnection) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}/") as client:
            with contextlib.suppress(websockets.ConnectionClosed):
                await asyncio.wait_for(client.recv(), 10)
            assert await asyncio.wait_for(closed.get(), 10) == 1007
