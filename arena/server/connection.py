"""The server's WebSocket connection: websockets' own, plus a synchronous fast path.

`ArenaConnection.on_frame`, once set (after the handshake), sees each complete data
frame first, in the callback that read it, and returns True when it handled it; the
rest goes through the connection's queue to its task, in order
(`protocol.transport.FastFrames`).
"""

from __future__ import annotations

from websockets.asyncio.server import ServerConnection

from protocol.transport import FastFrames

__all__ = ["ArenaConnection"]


class ArenaConnection(FastFrames, ServerConnection):
    """A `ServerConnection` whose complete data frames may go to `on_frame` directly."""

    cookie_token: str | None = None
    """The guest token of the browser's cookie, if its handshake carried one: its
    ``hello`` may then come without a token (`arena.service.Handshake.guest_token`)."""
