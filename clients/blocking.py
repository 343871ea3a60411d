"""A blocking wrapper over the async SDK, for bot authors who prefer a plain loop.

Like python-chess's `SimpleEngine`, it runs the event loop in a background thread::

    with SimpleClient.connect(url, token) as client:
        while (turn := client.next_turn()) is not None:
            client.play(turn, choose(turn.state))

`next_turn` returns the next `Turn` waiting for a move (any of the bot's games), or
``None`` once the client has stopped. `results` lists the finished games.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from typing import Any, Self

from clients.sdk import ArenaBot, ArenaClient, GameResult, Turn

__all__ = ["SimpleClient"]


class _QueueBot(ArenaBot):
    def __init__(self, client: SimpleClient) -> None:
        self.client = client

    async def move(self, turn: Turn) -> str:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.client._pending[(turn.game_id, turn.turn)] = future
        self.client._turns.put(turn)
        return await future


class SimpleClient:
    """A connected bot driven from ordinary (blocking) code.

    The async `ArenaClient` runs on an event loop in a background thread; turns come
    out of `next_turn` and moves go back with `play`. Use it as a context manager.

    Args:
        url: the server's WebSocket URL.
        token: the bot's token.
        options: any other `ArenaClient` field (``games``, ``stop_after``, ...).
    """

    def __init__(self, url: str, token: str, **options: Any) -> None:
        self._turns: queue.Queue[Turn | None] = queue.Queue()
        self._pending: dict[tuple[str, int], asyncio.Future[str]] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="arena-client")
        self._thread.start()
        self.client = self._call(self._make(url, token, options))
        self._run = asyncio.run_coroutine_threadsafe(self._main(), self._loop)

    async def _make(self, url: str, token: str, options: dict[str, Any]) -> ArenaClient:
        return ArenaClient(url, token, _QueueBot(self), **options)

    async def _main(self) -> None:
        try:
            await self.client.run()
        finally:
            self._turns.put(None)

    def _call(self, coro: Any, timeout: float | None = None) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    @classmethod
    def connect(cls, url: str, token: str, *, timeout: float = 10.0, **options: Any) -> SimpleClient:
        """Connect and wait for the server's welcome.

        Args:
            url: the server's WebSocket URL.
            token: the bot's token.
            timeout: seconds to wait for the welcome.
            options: any other `ArenaClient` field.

        Returns:
            The connected client.

        Raises:
            TimeoutError: no welcome within `timeout` (a server that cannot be reached
                included).
            AuthenticationError, RemoteError: the server refused the bot.
        """
        client = cls(url, token, **options)
        waiter = asyncio.run_coroutine_threadsafe(client.client.connected.wait(), client._loop)
        done, _ = concurrent.futures.wait([waiter, client._run], timeout=timeout,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        if client._run in done and client._run.exception() is not None:
            client.close()
            raise client._run.exception()  # type: ignore[misc]
        if waiter not in done:
            client.close()
            raise TimeoutError(f"no welcome from {url} within {timeout} s")
        return client

    def next_turn(self, timeout: float | None = None) -> Turn | None:
        """The next turn to play, or ``None`` when the client stopped.

        Raises:
            queue.Empty: nothing within `timeout` seconds.
        """
        turn = self._turns.get(timeout=timeout)
        if turn is None:
            self._turns.put(None)  # keep answering None
        return turn

    def play(self, turn: Turn, move: str) -> None:
        """Send the move for `turn` (a turn already over is ignored: its clock ran out).

        Args:
            turn: the turn `next_turn` gave.
            move: the move string.
        """
        future = self._pending.pop((turn.game_id, turn.turn), None)
        if future is not None:
            def resolve() -> None:
                if not future.done():
                    future.set_result(move)

            self._loop.call_soon_threadsafe(resolve)

    @property
    def results(self) -> list[GameResult]:
        """The results of the games finished so far."""
        return list(self.client.results)

    def close(self) -> None:
        """Disconnect and stop the background loop (safe to call twice)."""
        if self._loop.is_closed():
            return
        try:
            self._call(self.client.stop(), timeout=5)
            self._run.result(timeout=5)
        except Exception as error:  # noqa: BLE001 - closing must not raise
            logging.getLogger("arena.client").debug("while closing: %r", error)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
