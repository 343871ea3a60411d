"""Accounts (issue 11, findings 6, 9 and 12): reserved names and the character set,
guest accounts that expire, and no valid token ever reported revoked (the storage's own
part of each: tests/storage/test_storage.py); operators do not play (issue 22, finding 3)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from click.testing import CliRunner
from websockets.exceptions import ConnectionClosed

from arena.cli import main
from arena.names import check_account_name
from arena.storage.sqlite import SQLiteDatabase
from clients.operator import Operator
from clients.sdk import ArenaClient, BuiltinBot

from .conftest import SUBST


def test_account_names_of_the_documented_set_are_accepted() -> None:
    # (names refused and accepted by the storage, and guests' expiry: tests/storage)
    for name in ("alice", "Bot_2", "r2.d2", "a" * 40, "7-of-9"):
        check_account_name(name)


def test_the_cli_refuses_a_house_name(tmp_path) -> None:
    db = str(tmp_path / "arena.sqlite")
    result = CliRunner().invoke(main, ["bots", "add", "house:random", "--db", db])
    assert result.exit_code == 2 and "reserved" in result.output
    assert SQLiteDatabase(db).bots() == []


async def test_a_connected_guest_whose_account_expired_is_dropped(arena) -> None:
    name, client = await arena.guest()
    storage = arena.server.storage
    await storage.run(storage.database.db.execute,
                      "UPDATE bots SET expires = 1 WHERE name = ?", (name,))
    await arena.server.check_revocations()
    async with asyncio.timeout(5):
        while name in arena.server.sessions:
            await asyncio.sleep(0.01)
    assert any(error.code == "unauthorized" for error in client.errors)


async def test_no_valid_token_is_reported_revoked_while_the_check_is_in_flight(
    make_arena: Any
) -> None:
    """The race of finding 6: bots that log in while the revocation query runs are not in
    its answer; they must not be dropped as revoked. One real revocation still is."""
    arena = await make_arena(revocation_interval=3600)
    server = arena.server
    await arena.client("old", "random")
    doomed = await arena.client("doomed", "random")
    storage = server.storage
    token_hashes = storage.token_hashes
    in_flight = asyncio.Event()
    release = asyncio.Event()

    async def slow_token_hashes(names: Any) -> Any:
        result = await token_hashes(names)
        in_flight.set()  # the query answered: hold it there
        await release.wait()
        return result

    storage.token_hashes = slow_token_hashes  # type: ignore[method-assign]
    await storage.revoke_bot("doomed")
    check = asyncio.create_task(server.check_revocations())
    await in_flight.wait()
    # many bots log in, concurrently, while the answer is on its way
    tokens = await asyncio.gather(*(storage.add_bot(f"late{i}") for i in range(30)))
    clients = [ArenaClient(arena.url, token, BuiltinBot("random"), reconnect=False)
               for token in tokens]
    tasks = [asyncio.create_task(client.run()) for client in clients]
    try:
        async with asyncio.timeout(10):
            for client in clients:
                await client.connected.wait()
        release.set()
        await check
        await server.play_game("substitution", SUBST, ["late0", "late1"], seed=1)
        assert all(not client.errors for client in clients)
        assert all(f"late{i}" in server.sessions for i in range(30)) and "old" in server.sessions
        async with asyncio.timeout(5):  # the revoked one is dropped
            while "doomed" in server.sessions:
                await asyncio.sleep(0.01)
        assert any(error.code == "unauthorized" for error in doomed.errors)
    finally:
        release.set()
        for client in clients:
            await client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_an_operator_token_cannot_log_in_as_a_bot(arena) -> None:
    """Issue 22, finding 3: an operator's token in a bot's hello logged in as a bot and
    was paired on the ladder and rated. It is refused, saying what to use instead; the
    same token still works as an operator."""
    token = await arena.add_bot("runner", operator=True)
    raw = await arena.raw()
    error = await raw.hello(token)
    assert error["type"] == "error" and error["code"] == "unauthorized" and error["fatal"]
    assert error["message"].startswith("runner is an operator account: operators request "
                                       "games and do not play")
    assert "a bot account's token ('arena bots add NAME', without --operator)" in error["message"]
    with pytest.raises(ConnectionClosed) as closed:
        await raw.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
    assert "runner" not in arena.server.sessions
    await arena.client("alice")
    await arena.client("bob")
    async with Operator(arena.url, token) as operator:
        record = await operator.play("substitution", SUBST, ["alice", "bob"], seed=1)
    assert record.outcome is not None and record.outcome.termination.value == "normal"
