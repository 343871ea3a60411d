"""One client connection: the protocol core and the way its frames reach the socket.

Game code calls `send` and never waits. Frames wait in the session's protocol core
until its `Outbox` flushes: once per loop iteration (one `loop.call_soon` for all the
sessions with frames, not one each), or at once when the server has handled a move
(so a move's acceptance, and the opponent's move and next turn, leave together). A
flush writes every pending frame of a session in one socket write
(`protocol.transport.write_now`). That is the hot path: no task switch and no system
call per message.

When the socket cannot take more (the peer is not reading and the transport asked us
to pause), frames wait in a bounded queue drained by the session's writer task with
flow control, so a client that does not read stalls nobody but itself; when that
queue overflows, the session is closed as a slow consumer.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from websockets.exceptions import ConnectionClosed

from protocol import Message, ProtocolCore
from protocol.transport import can_write_now, write_now

__all__ = ["Outbox", "Session"]


class Outbox:
    """The sessions with frames to write, flushed together (see the module docstring)."""

    def __init__(self) -> None:
        self._waiting: list[Session] = []
        self._scheduled = False
        self.holding = False
        """While True (the server is handling a move), `add` schedules nothing: the
        handler calls `flush` when done."""

    def add(self, session: Session) -> None:
        self._waiting.append(session)
        if not self._scheduled and not self.holding:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Write the frames of every waiting session."""
        self._scheduled = False
        waiting, self._waiting = self._waiting, []
        for session in waiting:
            session.flush()


class Session:
    """A connected client (bot, spectator or operator)."""

    def __init__(self, ws: Any, core: ProtocolCore, *, max_queue: int,
                 validate: bool = False, outbox: Outbox | None = None) -> None:
        self.ws = ws
        self.core = core
        self.role = ""
        self.name: str | None = None
        self.games_played: frozenset[str] = frozenset()
        self.capabilities: frozenset[str] = frozenset()
        """The capabilities the client listed in its hello (`protocol.CAPABILITIES`)."""
        self.operator = False
        self.spectating: set[str] = set()
        self.closed = False
        self.busy = False
        """True while the connection's task handles a frame; later frames wait for it."""
        self._loop = asyncio.get_running_loop()
        self._outbox = outbox or Outbox()
        self._in_outbox = False
        self._queue: asyncio.Queue[bytes | str | None] = asyncio.Queue()
        self._writing = False
        self._max_queue = max_queue
        self._make = Message.make if validate else Message.unchecked
        self._writer = self._loop.create_task(self._write())

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
        if not self._in_outbox:
            self._in_outbox = True
            self._outbox.add(self)

    def flush(self) -> None:
        """Write the core's pending frames now (one socket write), or queue them for the
        writer task when the socket is backed up."""
        self._in_outbox = False
        frames = self.core.data_to_send()
        if not frames or self.closed:
            return
        if self._queue.empty() and not self._writing and can_write_now(self.ws):
            write_now(self.ws, frames)  # older frames are all out: order is kept
            return
        for frame in frames:
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

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Stop sending and close the connection (safe to call twice)."""
        if self.closed:
            return
        self.closed = True
        self._writer.cancel()
        self._loop.create_task(self.ws.close(code, reason))

    async def drain_and_close(self, code: int = 1000, reason: str = "") -> None:
        """Send what is queued, then close."""
        if self.closed:
            return
        self.flush()
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
