"""One client connection: the protocol core, an outbound queue and its writer task.

Game code calls `send` and never waits: frames go to a bounded queue drained by the
session's own writer task, so a client that does not read stalls nobody but itself.
When its queue overflows the session is closed as a slow consumer. The connection's
own reader drains the queue itself after each frame it handled (`flush_inline`) when
the writer is idle, so the answer to a move goes out without a hop through the writer.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from protocol import Message, ProtocolCore

__all__ = ["Session"]


class Session:
    """A connected client (bot, spectator or operator)."""

    def __init__(self, ws: ServerConnection, core: ProtocolCore, *, max_queue: int,
                 validate: bool = False) -> None:
        self.ws = ws
        self.core = core
        self.role = ""
        self.name: str | None = None
        self.games_played: frozenset[str] = frozenset()
        self.operator = False
        self.spectating: set[str] = set()
        self.closed = False
        self._writing = False
        self._queue: asyncio.Queue[bytes | str | None] = asyncio.Queue()
        self._max_queue = max_queue
        self._make = Message.make if validate else Message.unchecked
        self._writer = asyncio.get_running_loop().create_task(self._write())

    def __repr__(self) -> str:
        return f"<Session {self.role or 'new'} {self.name or ''} {self.ws.remote_address}>"

    def send(self, type: str, /, **fields: Any) -> None:
        """Queue a message (checked against the schema if the server validates its own
        messages; receivers always do)."""
        self.send_message(self._make(type, **fields))

    def send_message(self, message: Message) -> None:
        if self.closed:
            return
        self.core.send(message)
        self.flush()

    def flush(self) -> None:
        """Move the core's pending frames to the writer."""
        for frame in self.core.data_to_send():
            self._queue.put_nowait(frame)
        if self._queue.qsize() > self._max_queue:
            self.close(1008, "slow consumer: too many unread messages")

    async def _write(self) -> None:
        try:
            while (frame := await self._queue.get()) is not None:
                self._writing = True
                try:
                    await self.ws.send(frame)
                finally:
                    self._writing = False
        except ConnectionClosed:
            pass

    async def flush_inline(self) -> None:
        """Write the queued frames from the caller's task, if the writer is idle.

        Order is kept: the writer is not in the middle of a frame, and a frame is in the
        transport before `ws.send` can yield. Raises `ConnectionClosed`.
        """
        queue = self._queue
        while not queue.empty() and not self._writing and not self.closed:
            frame = queue.get_nowait()
            if frame is None:  # pragma: no cover - only queued once closed
                return
            self._writing = True
            try:
                await self.ws.send(frame)
            finally:
                self._writing = False

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Stop sending and close the connection (safe to call twice)."""
        if self.closed:
            return
        self.closed = True
        self._writer.cancel()
        asyncio.get_running_loop().create_task(self.ws.close(code, reason))

    async def drain_and_close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close."""
        if self.closed:
            return
        self.closed = True
        self._queue.put_nowait(None)
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(self._writer, 2.0)
        await self.ws.close(code, reason)

    async def finished(self) -> None:
        self.closed = True
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer
