"""The server's settings (`arena.config`, where the web reads them too)."""

from arena.config import ChallengeLimits, LadderConfig, ServerConfig, TimeControl

__all__ = ["ChallengeLimits", "LadderConfig", "ServerConfig", "TimeControl"]
