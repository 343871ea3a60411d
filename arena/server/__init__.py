"""The arena server: WebSocket protocol, live games, ladder, storage.

See `docs/server.md`. `ArenaServer` is the entry point; its HTTP side is the web
(`arena.web`), which the composition root `arena.app` gives it (`arena serve` runs
`arena.app.Arena`). It never imports the web (docs/architecture.md).
"""

from arena.server.app import ArenaServer, PlayerUnavailable
from arena.server.config import LadderConfig, ServerConfig, TimeControl

__all__ = ["ArenaServer", "LadderConfig", "PlayerUnavailable", "ServerConfig", "TimeControl"]
