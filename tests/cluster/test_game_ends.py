"""Every game end heard by its bots in a cluster (issue 24, docs/cluster.md "Rolling
restarts"): a game that ends while one of its bots is away is kept in the database
(`Storage.pending_ends`) and sent when the bot is back, though the host that played it
stopped meanwhile; and it is heard once. Real ``arena serve --role gateway|host``
processes on PostgreSQL and NATS; the bots are raw WebSocket clients."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from arena.games.substitution import Settings
from clients.sdk import ArenaClient, BuiltinBot, GameInfo, GameResult
from protocol import PROTOCOL_VERSION, Encoding, Message
from tests.cluster.test_roles import cluster
from tests.server.test_durability import opened
from tests.waiting import wait_for


class Raw:
    """A client's connection and every message it got, in order."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.got: list[dict[str, Any]] = []
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                message = Encoding.JSON.decode(frame)
                self.got.append(message)
                if message["type"] == "ping":
                    await self.send("pong", id=message["id"])

    async def send(self, type: str, **fields: Any) -> None:
        await self.ws.send(Encoding.JSON.encode({"type": type, **fields}))

    def of(self, type: str, game_id: str | None = None) -> list[dict[str, Any]]:
        """The messages of `type` it got (about `game_id` only, if given)."""
        return [message for message in self.got if message["type"] == type
                and (game_id is None or message.get("game_id") == game_id)]


@contextlib.asynccontextmanager
async def connected(url: str, token: str, role: str = "bot") -> AsyncIterator[Raw]:
    """A client said hello (a bot that seeks no ladder game) and was welcomed."""
    async with connect(url, subprotocols=[Encoding.JSON.subprotocol]) as ws:  # type: ignore[list-item]
        client = Raw(ws)
        await client.send("hello", protocol=PROTOCOL_VERSION, role=role, token=token,
                          **({"seek": False} if role == "bot" else {}))
        await wait_for(lambda: client.of("welcome"), 30, f"the {role}'s welcome")
        yield client


async def accounts(db: str) -> tuple[dict[str, str], str]:
    """The tokens of alice and bob, and of the operator ``referee``."""
    async with opened(db) as storage:
        tokens = {name: await storage.add_bot(name) for name in ("alice", "bob")}
        return tokens, await storage.add_bot("referee", operator=True)


async def all_heard(db: str) -> bool:
    """Whether the gateways dropped every game end of alice and bob kept in the database
    (they heard them)."""
    async with opened(db) as storage:
        return await storage.pending_ends(["alice", "bob"]) == []


async def start_game(operator: Raw, players: list[str]) -> str:
    """Ask for a game of `players` until a host knows them all (their presence reaches
    it after their welcome); its id."""
    asked = 0

    async def requested() -> str | None:
        nonlocal asked
        answers = [m for m in operator.got if m.get("request_id") == f"r{asked}"]
        if answers and answers[0]["type"] == "game_requested":
            return str(answers[0]["game_id"])
        if asked == 0 or answers:  # refused (not connected yet, say): again
            asked += 1
            await operator.send("request_game", request_id=f"r{asked}", game="substitution",
                                settings=Settings.preset("medium", 20).to_json(),
                                players=players, seed=None)
        return None

    async def started() -> bool:
        return await requested() is not None

    await wait_for(started, 30, "the game requested")
    game_id = await requested()
    assert game_id is not None
    return game_id


@pytest.mark.parametrize("host_stops", [True, False])
async def test_a_game_that_ends_while_its_bot_is_away_is_heard_once_when_it_is_back(
        tmp_path: Path, host_stops: bool) -> None:
    """alice and bob play; alice goes away; bob resigns, so the game ends while alice is
    away (its host keeps her ``game_over``); with `host_stops`, that host stops
    (SIGTERM) before she is back, and what it kept in memory is gone. alice connects
    again: she hears the game's end, with its stored result, once (her gateway reads
    it from the database; the host, still there, sends it too: one is framed)."""
    async with cluster(tmp_path) as running:
        tokens, operator = await accounts(running.db)
        await running.start("host-1", "host")
        url = await running.start("gateway-1", "gateway")
        async with connected(url, operator, "operator") as referee, \
                connected(url, tokens["bob"]) as bob:
            async with connected(url, tokens["alice"]) as alice:
                game_id = await start_game(referee, ["alice", "bob"])
                await wait_for(lambda: alice.of("game_start", game_id)
                               and bob.of("game_start", game_id), 30, "the game begun")
            await bob.send("resign", game_id=game_id)  # alice is away
            await wait_for(lambda: bob.of("game_over", game_id), 30, "bob hears the end")
            if host_stops:
                host = running.processes["host-1"]
                host.send_signal(signal.SIGTERM)
                assert await asyncio.to_thread(host.wait, 30) == 0
            async with connected(url, tokens["alice"]) as back:
                await wait_for(lambda: back.of("game_over", game_id), 30,
                               "alice hears the end once back")

                await wait_for(lambda: all_heard(running.db), 30,
                               "the game's ends dropped as heard")
                async with opened(running.db) as storage:
                    row = await storage.game(game_id)
                assert row is not None and row.status == "finished"
                [heard] = back.of("game_over", game_id)  # once
                assert heard["result"] == row.result == bob.of("game_over")[0]["result"]
                assert heard["termination"] == "resignation"
                assert heard["seed"] == bob.of("game_over")[0]["seed"]
                assert alice.of("game_over", game_id) == []


def test_the_sdk_takes_one_result_of_a_game_whose_end_comes_twice() -> None:
    """A cluster may send a game's ``game_over`` again after a reconnection (the same
    fields: docs/protocol.md); the SDK's bot hears the end once."""
    ends: list[str] = []

    class Counting(BuiltinBot):
        def end(self, game: GameInfo | None, result: GameResult) -> None:
            ends.append(result.game_id)

    client = ArenaClient("ws://127.0.0.1:1/", "token", Counting("random"))
    fields = {"result": "first", "winner": 0, "scores": None, "termination": "normal",
              "reason": "the game ended", "log_id": "g1", "seed": None}
    for game_id in ("g1", "g1", "g2", "g1"):
        client._handle(Message.make("game_over", game_id=game_id, **fields))
    assert [result.game_id for result in client.results] == ["g1", "g2"]
    assert ends == ["g1", "g2"]


async def test_a_bot_that_moves_to_another_gateway_mid_game_gets_it_there_and_hears_its_end(
        tmp_path: Path) -> None:
    """The hosts send a bot what it is owed on the subject of the gateway its presence
    names (`gateway.<id>.out`, one subscription per gateway). alice, playing bob through
    gateway-1, connects to gateway-2: her older connection is closed there (4004), the
    host follows her newer presence and sends her the game again on gateway-2
    (``game_start``, ``game_state``), and she hears its end there once."""
    async with cluster(tmp_path) as running:
        tokens, operator = await accounts(running.db)
        await running.start("host-1", "host")
        first = await running.start("gateway-1", "gateway")
        second = await running.start("gateway-2", "gateway")
        async with connected(first, operator, "operator") as referee, \
                connected(first, tokens["bob"]) as bob, \
                connected(first, tokens["alice"]) as alice:
            game_id = await start_game(referee, ["alice", "bob"])
            await wait_for(lambda: alice.of("game_start", game_id)
                           and bob.of("game_start", game_id), 30, "the game begun")
            async with connected(second, tokens["alice"]) as moved:
                await alice.ws.wait_closed()
                assert alice.ws.close_code == 4004
                await wait_for(lambda: moved.of("game_state", game_id), 30,
                               "the game sent again to alice on gateway-2")
                assert moved.of("game_start", game_id)
                await bob.send("resign", game_id=game_id)
                await wait_for(lambda: moved.of("game_over", game_id)
                               and bob.of("game_over", game_id), 30, "the end heard")
                assert moved.of("game_over", game_id)[0]["termination"] == "resignation"

                await wait_for(lambda: all_heard(running.db), 30,
                               "the game's ends dropped as heard")
                assert len(moved.of("game_over", game_id)) == 1
                assert alice.of("game_over", game_id) == []
