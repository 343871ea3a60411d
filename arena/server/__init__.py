"""The arena server: WebSocket protocol, live games, ladder, storage.

See `docs/server.md`. `ArenaServer` is the server core; the composition root
`arena.app` (`arena serve` runs `arena.app.Arena`) opens its storage, and serves it and
the web (`arena.web`) on one port (`arena.server.dispatch`). It never imports the web
(docs/architecture.md).
"""

from arena.server.app import ArenaServer, PlayerUnavailable
from arena.server.config import LadderConfig, ServerConfig, TimeControl

__all__ = ["ArenaServer", "LadderConfig", "PlayerUnavailable", "ServerConfig", "TimeControl"]
