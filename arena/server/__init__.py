"""The arena server: WebSocket protocol, live games, ladder, storage, HTTP API.

See `docs/server.md`. `ArenaServer` is the entry point; `arena serve` runs it.
"""

from arena.server.app import ArenaServer, PlayerUnavailable
from arena.server.config import LadderConfig, ServerConfig, TimeControl

__all__ = ["ArenaServer", "LadderConfig", "PlayerUnavailable", "ServerConfig", "TimeControl"]
