"""The HTTP side's limits and browser origins (`arena.config.WebConfig`, `ServerConfig.web`)."""

from arena.config import WebConfig

__all__ = ["WebConfig"]
