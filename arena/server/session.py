"""One client connection: the protocol core and the way its frames reach the socket.

Game code calls `send` and never waits. Frames wait in the session's protocol core
until its `Outbox` flushes: once per loop iteration (one `loop.call_soon` for all the
sessions with frames, not one each), or at once when the server has handled a move
(so a move's acceptance, and the opponent's move and next turn, leave together). A
flush writes every pending frame of a session in one socket write
(`protocol.transport.write_now`). That is the hot path: no task switch and no system
call per message.

When the socket cannot take more (the peer is not reading and the transport asked us
to pause), frames wait in a queue drained by the session's writer task with flow
control, so a client that does not read stalls nobody but itself; when more than
`max_queue_bytes` wait there, the session is closed as a slow consumer.

No frame longer than the `max_frame` the server announced leaves: `send_message`
refuses such a message (the client gets an ``oversize`` error instead) and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from websockets.exceptions import ConnectionClosed

from arena.server.limits import TokenBucket
from protocol import Message, OversizeFrame, ProtocolCore
from protocol.transport import can_write_now, write_now

__all__ = ["Outbox", "Session"]

log = logging.getLogger("arena.server")


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

    def __init__(self, ws: Any, core: ProtocolCore, *, max_queue_bytes: int,
                 validate: bool = False, outbox: Outbox | None = None,
                 rate: TokenBucket | None = None) -> None:
        self.ws = ws
        self.core = core
        self.role = ""
        self.greeted = False
        """Its ``hello`` came in time and is being answered (`hello_timeout` is about the
        client's hello, not the server's time to look its token up)."""
        self.name: str | None = None
        self.owner: str | None = None
        """The person a bot's account belongs to (`arena.storage.people`), if any."""
        self.games_played: frozenset[str] = frozenset()
        self.ladders: frozenset[str] = frozenset()
        """The ladders the bot narrowed itself to in its hello (empty: every ladder of
        its games)."""
        self.capabilities: frozenset[str] = frozenset()
        """The capabilities the client listed in its hello (`protocol.CAPABILITIES`)."""
        self.seeking = True
        """Whether the ladders pair this bot (``hello.seek``), unless `seeking_on` says
        otherwise for one."""
        self.seeking_on: dict[str, bool] = {}
        """Per ladder name, whether that ladder pairs this bot (``seek``, ``pause``)."""
        self.challenges = False
        """Whether the client opted in to challenges (the ``challenges`` capability or
        ``hello.accept``): only then is it sent challenge news."""
        self.operator = False
        self.hosted = False
        """A hosted bot's connection (`arena.server.hosted`): its games hold hosted slots."""
        self.wall_timed = False
        """A hosted program timed by wall time under a ``cpu`` clock, as a connected bot
        (a WebSocket-speaking one: `arena.server.auth.Login.wall_timed`)."""
        self.spectating: set[str] = set()
        self.closed = False
        self.busy = False
        """True while the connection's task handles a frame; later frames wait for it."""
        self.rate = rate
        """The client's message budget (`arena.server.limits.TokenBucket`), if limited."""
        self._loop = asyncio.get_running_loop()
        self._outbox = outbox or Outbox()
        self._in_outbox = False
        self._queue: asyncio.Queue[bytes | str | None] = asyncio.Queue()
        self._queued_bytes = 0
        self._writing = False
        self._max_queue_bytes = max_queue_bytes
        self._validate = validate
        self._writer = self._loop.create_task(self._write())

    def seeks(self, ladder: str) -> bool:
        """Whether the ladder named `ladder` may pair this bot (not paused there)."""
        return self.seeking_on.get(ladder, self.seeking)

    def __repr__(self) -> str:
        return f"<Session {self.role or 'new'} {self.name or ''} {self.ws.remote_address}>"

    def send(self, type: str, /, **fields: Any) -> bool:
        """Queue a message (checked against the schema if the server validates its own
        messages; receivers always do); False if it was too long (`send_message`)."""
        if self._validate:
            Message.make(type, **fields)  # raises a SchemaError if it breaks the schema
        return self._send(type, fields)

    def send_message(self, message: Message) -> bool:
        """Queue a message; False if its frame would be longer than the client accepts
        (the client gets an ``oversize`` error instead). A closed session drops it."""
        return self._send(message.type, message.body)

    def _send(self, type: str, fields: Mapping[str, Any]) -> bool:
        if self.closed:
            return True
        core = self.core
        try:
            core.send_fields(type, fields)
        except OversizeFrame as error:
            log.warning("not sent to %r: %s", self, error.message)
            game_id = fields.get("game_id")
            core.send_error(error, game_id=game_id if isinstance(game_id, str) else None)
            sent = False
        else:
            sent = True
        if not self._in_outbox:
            self._in_outbox = True
            self._outbox.add(self)
        return sent

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
            self._queued_bytes += len(frame)
        if self._queued_bytes > self._max_queue_bytes:
            self.close(1008, f"slow consumer: more than {self._max_queue_bytes} bytes unread")

    async def _write(self) -> None:
        try:
            while (frame := await self._queue.get()) is not None:
                self._queued_bytes -= len(frame)
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
        self._queue = asyncio.Queue()  # what was still unsent goes now, not with the session
        self._queued_bytes = 0
        self._loop.create_task(self.ws.close(code, reason))

    def hang_up(self, code: int, reason: str) -> None:
        """Send what is pending, then close without reading another frame: for a peer
        that floods, whose frames would otherwise be read until it noticed the close
        (TCP then holds it back; the close times out after `close_timeout`)."""
        self.flush()
        transport = getattr(self.ws, "transport", None)
        if transport is not None:
            transport.pause_reading()
        self.close(code, reason)

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
