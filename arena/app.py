"""The composition root: the one place that wires the arena's parts together.

    arena.app (Arena)
      ├── arena.server  ArenaServer: storage (arena.storage), live games, clients,
      │                 ladder, and the one port (arena.server.dispatch): a WebSocket
      │                 upgrade to the bots' protocol, plain HTTP to its HttpFront
      └── arena.web     WebFront: the HTTP API and the web interface (aiohttp), given
                        the server as its ArenaService (arena.service)

The server and the web never import each other (import-linter contracts in
``pyproject.toml``): the web asks the server only what `arena.service.ArenaService`
offers, and the server serves the web only as an `arena.service.HttpFront`. What both
read is in neutral modules (`arena.config`, `arena.workers`, `arena.buckets`,
`arena.service`). ``arena serve`` and the tests build the arena here::

    async with Arena(ServerConfig(port=0, db="arena.sqlite")) as arena:
        print(arena.url)  # the bots' WebSocket and the web, on one port
        await arena.serve_forever()
"""

from __future__ import annotations

from typing import Self

from arena.config import ServerConfig
from arena.registry import Registry
from arena.server import ArenaServer
from arena.service import ArenaService
from arena.web.app import WebFront

__all__ = ["Arena"]


class Arena:
    """The whole arena: an `ArenaServer` with the web as its HTTP side.

    Args:
        config: the arena's settings (`arena.config.ServerConfig`; the web's in ``.web``).
        registry: its plugins (by default the built-in and installed ones).
    """

    def __init__(self, config: ServerConfig, *, registry: Registry | None = None) -> None:
        self.server = ArenaServer(config, registry=registry, front=self._make_web)
        """The server core (its storage, live games and clients from `start` on)."""
        self._web: WebFront | None = None

    def _make_web(self, service: ArenaService) -> WebFront:
        self._web = WebFront(service)
        return self._web

    @property
    def web(self) -> WebFront:
        """The HTTP side (from `start` on)."""
        if self._web is None:
            raise RuntimeError("start() the arena first")
        return self._web

    async def start(self) -> None:
        """Open the database, start the web, listen on the port, start the ladder."""
        await self.server.start()

    async def close(self) -> None:
        """Stop everything (`ArenaServer.close`); safe to call twice."""
        await self.server.close()

    async def serve_forever(self) -> None:
        await self.server.serve_forever()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def port(self) -> int:
        return self.server.port

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
