"""The server's settings (`arena.config`, where the web reads them too)."""

from arena.config import ChallengeLimits, HostedConfig, LadderConfig, ServerConfig, TimeControl

__all__ = ["ChallengeLimits", "HostedConfig", "LadderConfig", "ServerConfig", "TimeControl"]
