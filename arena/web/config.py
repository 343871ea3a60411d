"""The HTTP side's limits and browser origins (`arena.config.WebConfig`, `ServerConfig.web`),
and people's accounts (`arena.config.AccountsConfig`, `ServerConfig.accounts`)."""

from arena.config import SIGNUP_MODES, AccountsConfig, WebConfig

__all__ = ["SIGNUP_MODES", "AccountsConfig", "WebConfig"]
