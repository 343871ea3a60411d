"""`WriteAhead` alone: a group commit per flush, messages held until their move is
stored and given back in order, nothing told while the storage fails."""

from __future__ import annotations

import asyncio
from typing import Any

from arena.server.live import Outgoing
from arena.server.writeahead import WriteAhead
from arena.storage import StorageFailure, StoredTurn, commit_in_task
from tests.waiting import wait_for


class FakeStorage:
    """Commits when the test says so; fails while `failing`."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.calls: list[list[tuple[str, int]]] = []
        self.committed: list[tuple[str, int]] = []
        self.failing = False
        self.healthy = asyncio.Event()

    async def append_turns(self, turns: list[StoredTurn]) -> None:
        self.calls.append([(turn.game_id, turn.index) for turn in turns])
        await self.gate.wait()
        if self.failing:
            raise StorageFailure("the disk is full")
        self.committed += [(turn.game_id, turn.index) for turn in turns]

    def commit_turns_soon(self, take: Any, done: Any) -> None:
        commit_in_task(self.append_turns, take, done)


def turn(game: str, index: int) -> StoredTurn:
    return StoredTurn(game, index, "{}", (1.0, 2.0), 0, 0.0)


def said(text: str) -> Outgoing:
    return Outgoing("bot", "note", {"text": text})


def make(storage: FakeStorage, **options: Any) -> tuple[WriteAhead[str], list[Any]]:
    events: list[Any] = []

    def release(key: str, effects: list[Any], error: BaseException | None) -> None:
        events.append((key, [e.fields["text"] for e in effects], list(storage.committed)))

    async def recovers() -> bool:
        await storage.healthy.wait()
        return True

    writer: WriteAhead[str] = WriteAhead(
        storage, release, recovers=recovers, **options)  # type: ignore[arg-type]
    return writer, events


async def test_moves_of_many_games_go_in_one_commit_and_are_told_after_it() -> None:
    storage = FakeStorage()
    writer, events = make(storage)
    assert writer.add("a", turn("a", 0), [said("a0")])
    assert writer.add("b", turn("b", 4), [said("b4")])
    assert not writer.add("c", None, [said("c")])  # nothing held for c: deliver it now
    await wait_for(lambda: storage.calls)
    assert storage.calls == [[("a", 0), ("b", 4)]]  # one transaction for both games
    # meanwhile: a's later news waits behind its move; b's next move goes in the next commit
    assert writer.add("a", None, [said("a-after")])
    assert writer.add("b", turn("b", 5), [said("b5")])
    assert writer.holds("a") and events == []
    settled = asyncio.ensure_future(writer.settled("a"))
    storage.gate.set()
    await settled
    await writer.idle()
    assert storage.calls == [[("a", 0), ("b", 4)], [("b", 5)]] and writer.batches == 2
    stored_first = [("a", 0), ("b", 4)]
    # a's later news had no move to wait for but a0: it goes with a0, not after b5's commit
    assert events == [("a", ["a0", "a-after"], stored_first), ("b", ["b4"], stored_first),
                      ("b", ["b5"], stored_first + [("b", 5)])]
    assert not writer.holds("a") and not writer.holds("b")


async def test_while_the_storage_fails_nothing_is_told() -> None:
    storage = FakeStorage()
    storage.failing = True
    storage.gate.set()
    writer, events = make(storage)
    writer.add("a", turn("a", 0), [said("a0")])
    await wait_for(lambda: storage.calls)
    assert events == [] and writer.holds("a")  # it waits for the storage
    storage.failing = False
    storage.healthy.set()
    await writer.idle()
    assert events == [("a", ["a0"], [("a", 0)])]
    assert len(storage.calls) == 2


async def test_without_write_ahead_nothing_is_held() -> None:
    storage = FakeStorage()
    writer, _ = make(storage, enabled=False)
    assert not writer.add("a", turn("a", 0), [said("a0")])
    assert storage.calls == [] and not writer.holds("a")


async def test_concurrent_commits_store_other_games_and_keep_each_games_order() -> None:
    storage = FakeStorage()
    writer, events = make(storage, concurrency=2)
    writer.add("a", turn("a", 0), [said("a0")])
    await wait_for(lambda: len(storage.calls) == 1)
    writer.add("a", None, [said("a-after")])  # behind a's commit in progress
    writer.add("b", turn("b", 0), [said("b0")])
    await wait_for(lambda: len(storage.calls) == 2)
    assert storage.calls == [[("a", 0)], [("b", 0)]]  # b's move does not wait for a's commit
    assert events == []
    storage.gate.set()
    await writer.idle()
    told_a = [texts for key, texts, _ in events if key == "a"]
    assert told_a == [["a0", "a-after"]] and ("b", ["b0"]) in [e[:2] for e in events]
    assert len(storage.calls) == 2  # a's later news needed no commit of its own


async def test_the_server_is_told_once_a_commits_games_are_all_told() -> None:
    storage = FakeStorage()
    told: list[list[Any]] = []
    events: list[Any] = []

    def release(key: str, effects: list[Any], error: BaseException | None) -> None:
        events.append(key)

    async def recovers() -> bool:
        return True

    writer: WriteAhead[str] = WriteAhead(
        storage, release, recovers=recovers,  # type: ignore[arg-type]
        told=lambda: told.append(list(events)))
    writer.add("a", turn("a", 0), [said("a0")])
    writer.add("b", turn("b", 0), [said("b0")])
    storage.gate.set()
    await writer.idle()
    assert told == [["a", "b"]]  # after both games of the commit, once (the frames go then)


async def test_a_move_added_as_a_commit_task_ends_is_committed_all_the_same() -> None:
    """A move that comes after the commit task found nothing more to do, but before
    its done callbacks ran, starts a commit of its own (it once waited forever: the
    ended task still held the only slot)."""
    storage = FakeStorage()
    storage.gate.set()
    loop = asyncio.get_running_loop()
    told: list[str] = []

    def release(key: str, effects: list[Any], error: BaseException | None) -> None:
        told.append(key)
        if key == "a":  # b's move two loop turns on: after the task's last look, as it
            # ends, before its done callbacks (call_soon keeps the order of scheduling)
            loop.call_soon(loop.call_soon, writer.add, "b", turn("b", 0), [said("b0")])

    async def recovers() -> bool:
        return True

    writer: WriteAhead[str] = WriteAhead(
        storage, release, recovers=recovers)  # type: ignore[arg-type]
    writer.add("a", turn("a", 0), [said("a0")])
    await wait_for(lambda: storage.calls == [[("a", 0)], [("b", 0)]], timeout=5,
                   what="b's move committed")
    await writer.idle()
    assert told == ["a", "b"]


async def test_a_commit_cancelled_before_it_began_leaves_nothing_waiting() -> None:
    """The server closes as a commit's task is made: it is told cancelled, so nothing
    waits for it for ever (`idle` returns) and the held moves stay untold."""
    storage = FakeStorage()
    storage.gate.set()
    writer, events = make(storage)
    writer.add("a", turn("a", 0), [said("a0")])
    for task in asyncio.all_tasks():
        if task.get_name() == "write-ahead":
            task.cancel()
    await asyncio.wait_for(writer.idle(), 5)
    assert storage.calls == [] and events == [] and writer.holds("a")
