"""The server's WebSocket connection: websockets' own, plus a synchronous fast path.

websockets hands every incoming message to the connection's task through a queue, so
each message costs a task wake-up. The arena's hot path (a bot's move) is cheaper
judged in the callback that read it: `ArenaConnection.on_frame`, once set (after the
handshake), sees each complete data frame first and returns True when it handled it.
Anything else takes the usual way, in order: fragmented messages, text that is not
UTF-8 (websockets closes with 1007), frames arriving while older ones still wait in
the queue, and frames the callback declines.
"""

from __future__ import annotations

from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import Event

__all__ = ["ArenaConnection"]


class ArenaConnection(ServerConnection):
    """A `ServerConnection` whose complete data frames may go to `on_frame` directly."""

    on_frame: Callable[[bytes | str], bool] | None = None

    def process_event(self, event: Event) -> None:
        handler = self.on_frame
        if (handler is not None and isinstance(event, Frame) and event.fin
                and not len(self.recv_messages.frames)):
            data: bytes | str | None = None
            if event.opcode is Opcode.BINARY:
                data = bytes(event.data)
            elif event.opcode is Opcode.TEXT:
                try:
                    data = bytes(event.data).decode()
                except UnicodeDecodeError:
                    data = None
            if data is not None and handler(data):
                return
        super().process_event(event)
