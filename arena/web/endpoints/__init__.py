"""The HTTP API's endpoints, one module per area; `ENDPOINTS` is all of the arena's own,
in order, and `endpoints` adds those the plugins serve (`arena_web_endpoints`)."""

from __future__ import annotations

from arena.registry import Registry
from arena.web.endpoints import (
    accounts,
    builds,
    challenges,
    files,
    games,
    language,
    launch,
    metrics,
    operator,
    play,
    replays,
    seasons,
    status,
)
from arena.web.routes import Endpoint

__all__ = ["ENDPOINTS", "endpoints"]

MODULES = (status, games, builds, seasons, play, accounts, operator, challenges, language, launch,
           replays, files, metrics)

ENDPOINTS: tuple[Endpoint, ...] = tuple(e for module in MODULES for e in module.ENDPOINTS)


def endpoints(registry: Registry) -> tuple[Endpoint, ...]:
    """The arena's endpoints, then each plugin's (a game's own: the substitution game's
    grammar presets). Raises `PluginError` for a route two of them serve."""
    from arena.errors import PluginError

    every = (*ENDPOINTS, *registry.web_endpoints())
    seen: set[tuple[str, str]] = set()
    for endpoint in every:
        key = (endpoint.method, endpoint.path)
        if key in seen:
            raise PluginError(f"two endpoints serve {endpoint.method} {endpoint.path}")
        seen.add(key)
    return every
