"""The composition root: the one place that wires the arena's parts together.

    arena.app (Arena)
      ├── arena.storage        the database (``config.db``), opened here first and
      │                        closed here last
      ├── arena.server         ArenaServer, given the storage: live games, clients,
      │                        ladder; its WebSocket side (`ArenaServer.websocket_side`)
      ├── arena.cluster        a gateway's or a host's side of the bus (``--role``;
      │                        nothing for ``all``, docs/cluster.md)
      ├── arena.web            WebFront: the HTTP API and the web interface (aiohttp),
      │                        given the server as its ArenaService (arena.service)
      └── arena.server.dispatch  OnePort: the one port, a WebSocket upgrade to the
                               server, plain HTTP to the web

The server and the web never import each other (import-linter contracts in
``pyproject.toml``): the web asks the server only what `arena.service.ArenaService`
offers, and the server's WebSocket side asks the web only its handshake check
(`arena.service.HttpFront`). What both read is in neutral modules (`arena.config`,
`arena.workers`, `arena.buckets`, `arena.service`). ``arena serve`` and the tests build
the arena here::

    async with Arena(ServerConfig(port=0, db="arena.sqlite")) as arena:
        print(arena.url)  # the bots' WebSocket and the web, on one port
        await arena.serve_forever()

The order, as aiohttp's ``AppRunner`` and ``TCPSite`` keep theirs. `start`: open the
storage; start the server on it (the games a stop or crash left running are resumed
before anybody can connect); start the web; listen. `close`: stop accepting; shut the
server down (ladder stopped, live games suspended with their moves committed, the
clients' connections closed with 1012); close the web (its requests in progress
finish, they use the storage); close the port's last connections (1012); stop the
server's workers; close the storage.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Self

from arena.config import ServerConfig
from arena.registry import Registry
from arena.server import ArenaServer
from arena.server.dispatch import OnePort, no_http
from arena.storage import Storage, open_storage
from arena.web.app import WebFront

if TYPE_CHECKING:  # --role all never imports the cluster (nor NATS, nor asyncpg for it)
    from arena.cluster import ClusterRole

__all__ = ["Arena"]


class Arena:
    """The whole arena: the storage, the `ArenaServer`, the web and the one port.

    It owns them all: `start` opens and starts them, `close` (safe to call twice, and
    concurrently) closes them in the reverse order (module docstring).

    Args:
        config: the arena's settings (`arena.config.ServerConfig`; the web's in ``.web``).
        registry: its plugins (by default the built-in and installed ones).
        web: serve the web on the port; without it (``arena bot check``), a plain
            HTTP request is answered 404.
    """

    def __init__(self, config: ServerConfig, *, registry: Registry | None = None,
                 web: bool = True) -> None:
        self.config = config
        self.server = ArenaServer(config, registry=registry)
        """The server core (its storage, live games and clients from `start` on)."""
        self._with_web = web
        self._storage: Storage | None = None
        self._web: WebFront | None = None
        self._port: OnePort | None = None
        self._role: ClusterRole | None = None
        """A gateway's or a host's side of the bus (`arena.cluster`; None: ``all``)."""
        self._started = False
        self._closing = False
        self._closed = asyncio.Event()

    @property
    def web(self) -> WebFront:
        """The HTTP side (from `start` on)."""
        if self._web is None:
            raise RuntimeError("start() the arena (with its web) first")
        return self._web

    @property
    def storage(self) -> Storage:
        """The database (from `start` to `close`)."""
        if self._storage is None:
            raise RuntimeError("start() the arena first")
        return self._storage

    @property
    def role(self) -> ClusterRole | None:
        """A gateway's or a host's side of the bus, from `start` on (None: ``all``)."""
        return self._role

    @property
    def listener(self) -> OnePort:
        """The one port (from `start` on)."""
        if self._port is None:
            raise RuntimeError("start() the arena first")
        return self._port

    async def start(self) -> None:
        """Open the database, start the server on it, the web, then listen; if a step
        fails, what was started is closed."""
        if self._started:
            raise RuntimeError("the arena is already started")
        self._started = True
        config = self.config
        try:
            self._storage = await open_storage(config.db)
            await self.server.start(self._storage)
            if config.role != "all":
                from arena.cluster import start_role

                self._role = await start_role(self.server)
            if self._with_web:
                self._web = WebFront(self.server)
                await self._web.start()
            web = self._web
            self._port = OnePort(
                self.server.websocket_side(web.check_handshake if web is not None else None),
                web.protocol if web is not None else no_http,
                host=config.host, port=config.port, max_head=config.web.max_head,
                head_timeout=config.web.head_timeout)
            await self._port.start()
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Stop everything, in the reverse order (module docstring); safe to call twice,
        and concurrently: later calls wait for the first."""
        if self._closing:
            await self._closed.wait()
            return
        self._closing = True
        try:
            if self._port is not None:
                self._port.stop_accepting()
            if self._role is not None:  # a gateway's bots gone for the hosts first
                await self._role.drain()
            await self.server.shutdown()
            if self._role is not None:  # what the games and the clients said last goes
                await self._role.close()
            if self._web is not None:
                await self._web.close()
            if self._port is not None:
                await self._port.close(1012, "server restarting")
            await self.server.close()
            if self._storage is not None:
                await self._storage.close()
        finally:
            self._closed.set()

    async def serve_forever(self) -> None:
        """Wait until the arena is closed (``arena serve`` closes it on a signal)."""
        await self._closed.wait()

    @property
    def url(self) -> str:
        """The bots' WebSocket address (the web's is the same, with ``http``)."""
        return self.server.url

    @property
    def port(self) -> int:
        return self.listener.port

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
