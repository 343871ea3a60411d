"""The server's settings (`arena.config`, where the web reads them too)."""

from arena.config import LadderConfig, ServerConfig, TimeControl

__all__ = ["LadderConfig", "ServerConfig", "TimeControl"]
