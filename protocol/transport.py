"""The I/O glue the server and the client SDK share, on top of websockets.

Writing: `websockets`' own ``send`` takes a frame at a time, each through an async
context manager, a flow-control check and a socket write; a message exchange here is
a burst of small frames (a move's acceptance; the opponent's move and the next turn),
so `write_now` writes the burst at once. A server's frames are unmasked and this
project negotiates no extension, so the server frames them itself (a header of 2 to 10
bytes: a sixth of what the general path costs, on every message it sends); a client,
which must mask, goes through the connection's sans-I/O protocol.

Reading: websockets hands every incoming message to the connection's task through a
queue, so each message costs a task wake-up. `frame_for_callback` lets a connection
subclass (the server's `ArenaConnection`, the SDK's `FastClientConnection`) hand a
complete data frame to a synchronous callback instead, in the very callback that read
it. Anything else takes the usual way, in order: fragmented messages, text that is not
UTF-8 (websockets closes with 1007), and frames arriving while older ones still wait in
the queue.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.connection import Connection
from websockets.frames import Frame, Opcode
from websockets.protocol import Event, Side, State

__all__ = ["FastClientConnection", "FastFrames", "FrameCallback", "can_write_now",
           "frame_for_callback", "write_now"]

FrameCallback = Callable[[bytes | str], bool]
"""Takes a frame's payload; returns False to leave it to the connection's queue."""


def frame_for_callback(connection: Connection, event: Event) -> bytes | str | None:
    """The payload of `event` if a callback may take it now: a complete text (valid
    UTF-8) or binary frame, with no older frame waiting in the connection's queue."""
    if not isinstance(event, Frame) or not event.fin or len(connection.recv_messages.frames):
        return None
    if event.opcode is Opcode.BINARY:
        return bytes(event.data)
    if event.opcode is Opcode.TEXT:
        try:
            return bytes(event.data).decode()
        except UnicodeDecodeError:
            return None
    return None


class FastFrames(Connection):
    """Mixed into a websockets connection class: its complete data frames may go to
    `on_frame` directly (see the module docstring)."""

    on_frame: FrameCallback | None = None

    def process_event(self, event: Event) -> None:
        handler = self.on_frame
        if handler is not None:
            data = frame_for_callback(self, event)
            if data is not None and handler(data):
                return
        super().process_event(event)


class FastClientConnection(FastFrames, ClientConnection):
    """The SDK's client connection."""


def can_write_now(ws: Any) -> bool:
    """Whether `ws` takes frames at once: a real websockets connection that is open,
    not paused by flow control (its peer reads) and not in a fragmented send."""
    return (isinstance(ws, Connection) and ws.protocol.state is State.OPEN and not ws.paused
            and ws.send_in_progress is None and not ws.transport.is_closing())


def server_frame(payload: bytes | str) -> bytes:
    """A complete unmasked WebSocket frame (RFC 6455 5.2): binary for `bytes`, text for
    `str`, as a server sends it with no extension."""
    if isinstance(payload, str):
        data, first = payload.encode(), 0x81  # FIN, text
    else:
        data, first = payload, 0x82  # FIN, binary
    size = len(data)
    if size < 126:
        return bytes((first, size)) + data
    if size < 65536:
        return bytes((first, 126)) + size.to_bytes(2, "big") + data
    return bytes((first, 127)) + size.to_bytes(8, "big") + data


def write_now(ws: Connection, frames: Sequence[bytes | str]) -> None:
    """Frame and write `frames` (text for `str`, binary for `bytes`) in one socket write.

    Call only when `can_write_now(ws)`; otherwise use ``await ws.send(frame)``, which
    waits for flow control.
    """
    protocol = ws.protocol
    if protocol.side is Side.SERVER and not protocol.extensions:
        # what the protocol has queued (a pong) first, then the frames, framed here
        pending = protocol.data_to_send()
        ws.transport.write(b"".join([*pending, *map(server_frame, frames)]))
        return
    for frame in frames:
        if isinstance(frame, str):
            protocol.send_text(frame.encode())
        else:
            protocol.send_binary(frame)
    ws.transport.write(b"".join(protocol.data_to_send()))
