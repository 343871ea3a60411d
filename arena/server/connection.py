"""The server's WebSocket connection: websockets' own, plus a synchronous fast path.

`ArenaConnection.on_frame`, once set (after the handshake), sees each complete data
frame first, in the callback that read it, and returns True when it handled it; the
rest goes through the connection's queue to its task, in order
(`protocol.transport.frame_for_callback`).
"""

from __future__ import annotations

from websockets.asyncio.server import ServerConnection
from websockets.protocol import Event

from protocol.transport import FrameCallback, frame_for_callback

__all__ = ["ArenaConnection"]


class ArenaConnection(ServerConnection):
    """A `ServerConnection` whose complete data frames may go to `on_frame` directly."""

    on_frame: FrameCallback | None = None

    def process_event(self, event: Event) -> None:
        handler = self.on_frame
        if handler is not None:
            data = frame_for_callback(self, event)
            if data is not None and handler(data):
                return
        super().process_event(event)
