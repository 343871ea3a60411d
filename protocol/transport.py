"""Writing a batch of frames to a websockets connection in one system call.

The one piece of I/O glue the server and the client SDK share. `websockets`' own
``send`` takes a frame at a time, each through an async context manager, a flow-control
check and a socket write; a message exchange here is a burst of small frames (a move's
acceptance; the opponent's move and the next turn), so writing the burst at once,
through the connection's sans-I/O protocol, saves most of the per-frame cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from websockets.asyncio.connection import Connection
from websockets.protocol import State

__all__ = ["can_write_now", "write_now"]


def can_write_now(ws: Any) -> bool:
    """Whether `ws` takes frames at once: a real websockets connection that is open,
    not paused by flow control (its peer reads) and not in a fragmented send."""
    return (isinstance(ws, Connection) and ws.protocol.state is State.OPEN and not ws.paused
            and ws.send_in_progress is None and not ws.transport.is_closing())


def write_now(ws: Connection, frames: Sequence[bytes | str]) -> None:
    """Frame and write `frames` (text for `str`, binary for `bytes`) in one socket write.

    Call only when `can_write_now(ws)`; otherwise use ``await ws.send(frame)``, which
    waits for flow control.
    """
    protocol = ws.protocol
    for frame in frames:
        if isinstance(frame, str):
            protocol.send_text(frame.encode())
        else:
            protocol.send_binary(frame)
    ws.transport.write(b"".join(protocol.data_to_send()))
