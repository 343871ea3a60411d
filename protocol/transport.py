"""The I/O glue the server and the client SDK share, on top of websockets.

Writing: `websockets`' own ``send`` takes a frame at a time, each through an async
context manager, a flow-control check and a socket write; a message exchange here is
a burst of small frames (a move's acceptance; the opponent's move and the next turn),
so `write_now` writes the burst at once. This project negotiates no extension, so
both sides frame their messages themselves (a header of 2 to 14 bytes: a sixth of what
the general path costs, on every message): a server's frames unmasked, a client's
masked with keys from `os.urandom` (drawn 256 at a time, not one system call a frame).

Reading: websockets hands every incoming message to the connection's task through a
queue, so each message costs a task wake-up. `frame_for_callback` lets a connection
subclass (the server's `ArenaConnection`, the SDK's `FastClientConnection`) hand a
complete data frame to a synchronous callback instead, in the very callback that read
it. Anything else takes the usual way, in order: fragmented messages, text that is not
UTF-8 (websockets closes with 1007), and frames arriving while older ones still wait in
the queue.

Such a connection also reads those frames itself (`FastFrames.data_received`): while
websockets' parser waits at a frame boundary with nothing buffered, the complete,
unfragmented data frames at the head of the received bytes are cut out there (a header
of 2 to 14 bytes, the payload unmasked by websockets' own C `apply_mask`), about a
quarter of what websockets' generator-based parser costs; from the first byte that is
anything else (a control frame, a fragment, a frame above the size limit, a bad header,
a frame not yet complete) websockets reads the rest, as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.connection import Connection
from websockets.frames import Frame, Opcode
from websockets.protocol import Event, Protocol, Side, State
from websockets.streams import StreamReader

try:  # what websockets masks with: its C version when built
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - a websockets built without its C speedups
    from websockets.utils import apply_mask

__all__ = ["FastClientConnection", "FastFrames", "FrameCallback", "can_write_now",
           "frame_for_callback", "write_now"]

FrameCallback = Callable[[bytes | str], bool]
"""Takes a frame's payload; returns False to leave it to the connection's queue."""


def frame_for_callback(connection: Connection, event: Event) -> bytes | str | None:
    """The payload of `event` if a callback may take it now: a complete text (valid
    UTF-8) or binary frame, with no older frame waiting in the connection's queue."""
    if not isinstance(event, Frame):
        return None
    return _for_callback(connection, event.opcode, event.fin, event.data)


def _for_callback(connection: Connection, opcode: Opcode, fin: bool,
                  data: bytes | bytearray | memoryview) -> bytes | str | None:
    """`frame_for_callback` for a frame given by its parts (`FastFrames` reads frames
    without making a `Frame` of those it hands to the callback)."""
    if not fin or len(connection.recv_messages.frames):
        return None
    if opcode is Opcode.BINARY:
        return bytes(data)
    if opcode is Opcode.TEXT:
        try:
            return bytes(data).decode()
        except UnicodeDecodeError:
            return None
    return None


_AT_EOF = StreamReader.at_eof.__code__
_PARSE = Protocol.parse.__code__
"""Where websockets' parser waits in between frames: its frame loop (`Protocol.parse`)
in `StreamReader.at_eof` (`FastFrames.data_received`)."""


def _between_frames(parser: Any) -> bool:
    """Whether websockets' parser (a generator: the handshake's, then the frames')
    waits in its frame loop for the first byte of a frame, not inside one (nor in
    `discard`, after a close)."""
    outer, waiting = None, parser
    while (inner := getattr(waiting, "gi_yieldfrom", None)) is not None:
        outer, waiting = waiting, inner
    return (getattr(waiting, "gi_code", None) is _AT_EOF
            and getattr(outer, "gi_code", None) is _PARSE)


class FastFrames(Connection):
    """Mixed into a websockets connection class: its complete data frames may go to
    `on_frame` directly (see the module docstring)."""

    on_frame: FrameCallback | None = None

    def process_event(self, event: Event) -> None:
        if not (isinstance(event, Frame) and self._offer(event.opcode, event.fin, event.data)):
            super().process_event(event)

    def _offer(self, opcode: Opcode, fin: bool, data: bytes | bytearray | memoryview) -> bool:
        """Hand a frame to `on_frame` if it may take it now (`frame_for_callback`); True
        if it took it. Every frame goes through here first: websockets' and ours."""
        handler = self.on_frame
        if handler is None:
            return False
        payload = _for_callback(self, opcode, fin, data)
        return payload is not None and handler(payload)

    def data_received(self, data: bytes) -> None:
        """Read the complete data frames at the head of `data` here; websockets reads
        the rest (see the module docstring)."""
        if self.on_frame is None:
            super().data_received(data)
            return
        protocol = self.protocol
        if (protocol.state is not State.OPEN or protocol.extensions or protocol.reader.buffer
                or protocol.current_size is not None or not _between_frames(protocol.parser)):
            super().data_received(data)  # not at a frame boundary, or closing
            return
        masked = 0x80 if protocol.side is Side.SERVER else 0
        limit = protocol.max_message_size
        if protocol.max_fragment_size is not None:
            limit = (protocol.max_fragment_size if limit is None
                     else min(limit, protocol.max_fragment_size))
        size = len(data)
        start = 0
        while size - start >= 2:
            head1, head2 = data[start], data[start + 1]
            # complete (FIN), no reserved bit, text or binary; masked as the side expects
            if (head1 != 0x81 and head1 != 0x82) or head2 & 0x80 != masked:
                break
            length = head2 & 0x7F
            at = start + 2
            if length == 126:
                length = int.from_bytes(data[at:at + 2], "big")
                at += 2
            elif length == 127:
                length = int.from_bytes(data[at:at + 8], "big")
                at += 8
            if limit is not None and length > limit:
                break  # websockets closes with 1009
            end = at + (4 if masked else 0) + length
            if end > size:
                break  # not all here yet: websockets waits for the rest
            payload = (apply_mask(data[at + 4:end], data[at:at + 4]) if masked
                       else data[at:end])
            start = end
            # to on_frame as any frame goes (`_offer`), else to websockets' queue
            opcode = Opcode.TEXT if head1 == 0x81 else Opcode.BINARY
            if not self._offer(opcode, True, payload):
                super().process_event(Frame(opcode, payload))
            if self.on_frame is None or protocol.state is not State.OPEN:
                break  # the callback closed the connection or left the fast path
        if start < size:
            super().data_received(data[start:] if start else data)


class FastClientConnection(FastFrames, ClientConnection):
    """The SDK's client connection; `received_at` is when it last read anything from
    the server (its keepalive pings too: the SDK takes a server that pings and then says
    nothing for long for gone)."""

    received_at = 0.0
    """The event loop's time of the last bytes read."""

    def data_received(self, data: bytes) -> None:
        self.received_at = self.loop.time()
        super().data_received(data)


def can_write_now(ws: Any) -> bool:
    """Whether `ws` takes frames at once: a real websockets connection that is open,
    not paused by flow control (its peer reads) and not in a fragmented send."""
    return (isinstance(ws, Connection) and ws.protocol.state is State.OPEN and not ws.paused
            and ws.send_in_progress is None and not ws.transport.is_closing())


def _frame(payload: bytes | str, mask: bytes | None) -> bytes:
    """A complete WebSocket frame (RFC 6455 5.2): binary for `bytes`, text for `str`,
    masked with the key `mask` (a client's) or not (a server's), no extension."""
    if isinstance(payload, str):
        data, first = payload.encode(), 0x81  # FIN, text
    else:
        data, first = payload, 0x82  # FIN, binary
    size = len(data)
    masked = 0 if mask is None else 0x80
    if size < 126:
        head = bytes((first, masked | size))
    elif size < 65536:
        head = bytes((first, masked | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((first, masked | 127)) + size.to_bytes(8, "big")
    if mask is None:
        return head + data
    return head + mask + apply_mask(data, mask)


def server_frame(payload: bytes | str) -> bytes:
    """A complete unmasked frame, as a server sends it with no extension."""
    return _frame(payload, None)


class _MaskingKeys:
    """A client's masking keys (RFC 6455 5.3: unpredictable, from a strong source of
    entropy): `os.urandom`, drawn 256 keys at a time rather than one system call a frame
    as websockets does. (Two threads may rarely get the same key: still unpredictable.)"""

    def __init__(self) -> None:
        self.forget()

    def forget(self) -> None:
        """Drop the keys drawn so far (a forked child draws its own)."""
        self._pool = b""
        self._at = 0

    def take(self) -> bytes:
        at = self._at
        if at >= len(self._pool):
            self._pool, at = os.urandom(1024), 0
        self._at = at + 4
        return self._pool[at:at + 4]


_masking_keys = _MaskingKeys()
os.register_at_fork(after_in_child=_masking_keys.forget)


def write_now(ws: Connection, frames: Sequence[bytes | str]) -> None:
    """Frame and write `frames` (text for `str`, binary for `bytes`) in one socket write.

    Call only when `can_write_now(ws)`; otherwise use ``await ws.send(frame)``, which
    waits for flow control.
    """
    protocol = ws.protocol
    if not protocol.extensions:
        # what the protocol has queued (a pong) first, then the frames, framed here
        pending = protocol.data_to_send()
        if protocol.side is Side.SERVER:
            framed = [_frame(frame, None) for frame in frames]
        else:
            take = _masking_keys.take
            framed = [_frame(frame, take()) for frame in frames]
        ws.transport.write(b"".join([*pending, *framed]))
        return
    for frame in frames:
        if isinstance(frame, str):
            protocol.send_text(frame.encode())
        else:
            protocol.send_binary(frame)
    ws.transport.write(b"".join(protocol.data_to_send()))
