"""Operator client: ask a server to play games between connected bots (tournaments).

A tournament runner in another process connects with an operator account's token
(``arena bots add NAME --operator``) and requests games; each answer is the stored
game's record, read back from the log the server sends with ``game_over``::

    async with Operator(url, token) as operator:
        record = await operator.play("substitution", settings, ["alice", "bob"], seed=1)

Players are names of connected bots, or ``house:SPEC`` for built-in bots run by the
server. Several `play` calls may run at once. A log too long for one frame (above the
server's ``max_frame``) does not ride on ``game_over``: the operator then reads it from
the server's HTTP API (``GET /api/games/{id}``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from websockets.asyncio.client import ClientConnection, connect

from arena.record import MatchRecord, read_jsonl
from protocol import PROTOCOL_VERSION, Encoding, Message, ProtocolCore, ProtocolError
from protocol.errors import error_from_code

__all__ = ["GameRequest", "Operator", "play_games"]


class Operator:
    """An operator connection (see the module docstring)."""

    def __init__(self, url: str, token: str, *, encoding: Encoding = Encoding.MSGPACK) -> None:
        self.url = url
        self.token = token
        self.encoding = encoding
        self._ws: ClientConnection | None = None
        self._core = ProtocolCore("client", encoding, max_frame=64 * 1024 * 1024)
        self._ids = itertools.count(1)
        self._requests: dict[str, asyncio.Future[str]] = {}
        self._games: dict[str, asyncio.Future[str]] = {}
        """Game id -> its log (JSON Lines), once the game is over and stored."""
        self._welcome: asyncio.Future[Message] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._fetches: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        self._ws = await connect(self.url, subprotocols=[self.encoding.subprotocol],  # type: ignore[list-item]
                                 compression=None, max_size=64 * 1024 * 1024)
        self._welcome = asyncio.get_running_loop().create_future()
        self._reader = asyncio.get_running_loop().create_task(self._read())
        await self._send(Message.make("hello", protocol=PROTOCOL_VERSION, role="operator",
                                      token=self.token, client="arena-operator"))
        await self._welcome

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    async def play(
        self,
        game: str,
        settings: Mapping[str, Any],
        players: Sequence[str],
        *,
        seed: int | None = None,
        time_control: Mapping[str, int] | None = None,
    ) -> MatchRecord:
        """Play one game on the server; the record once it is stored.

        Raises:
            RemoteError: the server refused the request (``bad-request``: unknown bot,
                bad settings...).
        """
        log = await self.play_log(game, settings, players, seed=seed, time_control=time_control)
        return read_jsonl(log.splitlines())

    async def play_log(
        self,
        game: str,
        settings: Mapping[str, Any],
        players: Sequence[str],
        *,
        seed: int | None = None,
        time_control: Mapping[str, int] | None = None,
    ) -> str:
        """Like `play`, but return the stored log as JSON Lines, unparsed."""
        request_id = f"r{next(self._ids)}"
        loop = asyncio.get_running_loop()
        accepted: asyncio.Future[str] = loop.create_future()
        self._requests[request_id] = accepted
        fields: dict[str, Any] = {"request_id": request_id, "game": game,
                                  "settings": dict(settings), "players": list(players),
                                  "seed": seed}
        if time_control is not None:
            fields["time_control"] = dict(time_control)
        await self._send(Message.make("request_game", **fields))
        game_id = await accepted
        return await self._games.setdefault(game_id, loop.create_future())

    async def _fetch_log(self, game_id: str, future: asyncio.Future[str]) -> None:
        """A stored game's log from the HTTP API (logs too long for one frame)."""
        base = self.url.replace("wss://", "https://", 1).replace("ws://", "http://", 1)
        url = base.rstrip("/") + f"/api/games/{game_id}"

        def get() -> str:
            with urllib.request.urlopen(url, timeout=30) as reply:
                return str(json.loads(reply.read())["log"])

        try:
            log = await asyncio.to_thread(get)
        except Exception as error:  # noqa: BLE001 - handed to the waiter
            if not future.done():
                future.set_exception(ConnectionError(f"cannot read the log of {game_id}: {error}"))
            return
        if not future.done():
            future.set_result(log)

    async def _send(self, message: Message) -> None:
        assert self._ws is not None
        self._core.send(message)
        for frame in self._core.data_to_send():
            await self._ws.send(frame)

    async def _read(self) -> None:
        assert self._ws is not None
        error: BaseException = ConnectionError("the server closed the connection")
        try:
            async for frame in self._ws:
                self._core.receive_data(frame)
                for event in self._core.events_received():
                    if not isinstance(event, ProtocolError):
                        self._handle(event)
        except Exception as failure:  # noqa: BLE001 - handed to every waiter below
            error = failure
        waiters: list[asyncio.Future[Any]] = [*self._requests.values(), *self._games.values()]
        if self._welcome is not None:
            waiters.append(self._welcome)
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(error)

    def _handle(self, message: Message) -> None:
        loop = asyncio.get_running_loop()
        if message.type == "welcome" and self._welcome is not None:
            self._welcome.set_result(message)
        elif message.type == "game_requested":
            accepted = self._requests.pop(message["request_id"], None)
            if accepted is not None:
                self._games.setdefault(message["game_id"], loop.create_future())
                accepted.set_result(message["game_id"])
        elif message.type == "game_over" and "log" in message.body:
            future = self._games.setdefault(message["game_id"], loop.create_future())
            if not future.done():
                future.set_result(message["log"])
        elif message.type == "game_over" and message["game_id"] in self._games:
            future = self._games[message["game_id"]]
            task = loop.create_task(self._fetch_log(message["game_id"], future))
            self._fetches.add(task)
            task.add_done_callback(self._fetches.discard)
        elif message.type == "error":
            error = error_from_code(message["code"], message["message"], fatal=message["fatal"])
            request_id = message.get("request_id")
            game = self._games.get(message.get("game_id"))
            if request_id in self._requests:
                self._requests.pop(request_id).set_exception(error)
            elif request_id is not None and game is not None and not game.done():
                game.set_exception(error)  # the requested game failed for good
            elif self._welcome is not None and not self._welcome.done():
                self._welcome.set_exception(error)




@dataclass(frozen=True)
class GameRequest:
    """One game for `play_games`: players by seat (bot names or ``house:SPEC``)."""

    game: str
    settings: Mapping[str, Any]
    players: tuple[str, ...]
    seed: int | None = None
    time_control: Mapping[str, int] | None = field(default=None)


def play_games(
    url: str, token: str, requests: Sequence[GameRequest], *, concurrency: int = 8
) -> list[MatchRecord]:
    """Blocking: play `requests` on the server, `concurrency` at a time; records in order.

    The seam for a synchronous tournament runner (``arena tournament --bots ws:NAME``):
    every game with a ``ws:`` player becomes a `GameRequest`.
    """

    async def main() -> list[MatchRecord]:
        limit = asyncio.Semaphore(concurrency)
        async with Operator(url, token) as operator:

            async def one(request: GameRequest) -> MatchRecord:
                async with limit:
                    return await operator.play(request.game, request.settings,
                                               list(request.players), seed=request.seed,
                                               time_control=request.time_control)

            return list(await asyncio.gather(*(one(request) for request in requests)))

    return asyncio.run(main())
