"""The challenges outlive the leading host that kept them (issue 24, docs/cluster.md,
"The lobby"): real ``arena serve --role host`` and ``--role gateway`` processes on one
PostgreSQL schema and a NATS prefix of their own; the leader is killed (``kill -9``)
while a challenge waits for its answer, the other host leads, takes the challenge over
from the database, and the answer given then starts its games, played to the end; a
challenge the dead leader ended still answers ``GET /api/challenges/ID``, and the
challenges sent under the dead leader still count against the hourly budget."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import aiohttp
import pytest

from clients.challenges import ChallengeRefused
from clients.sdk import ArenaClient
from tests.cluster.test_roles import cluster, leader
from tests.server.test_challenges import Answering
from tests.server.test_durability import opened
from tests.waiting import wait_for


async def test_a_pending_challenge_survives_its_leader_s_kill_and_is_played(
        tmp_path: Path) -> None:
    async with cluster(tmp_path) as running:
        async with opened(running.db) as storage:
            tokens = {name: await storage.add_bot(name) for name in ("alice", "sam")}
        hosts = ("host-1", "host-2")
        budget = ("--challenges-per-hour", "3")
        for host in hosts:
            await running.start(host, "host", *budget)
        gateway = await running.start("gateway-1", "gateway", *budget)
        first = await wait_for(lambda: leader(running, hosts), 30, "a leader")
        sam_bot = Answering(None)  # leaves the challenge unanswered: answered below
        clients = {name: ArenaClient(gateway, token, bot, challenges=True, seek=False,
                                     reconnect_delay=0.05)
                   for (name, token), bot in zip(tokens.items(), (Answering(None), sam_bot),
                                                 strict=True)}
        tasks = [asyncio.create_task(client.run()) for client in clients.values()]
        try:
            for client in clients.values():
                await asyncio.wait_for(client.connected.wait(), 30)
            first_asked = asyncio.create_task(clients["alice"].challenge("sam"))
            await wait_for(lambda: sam_bot.notices, 30, "sam asked")
            await clients["sam"].decline_challenge(sam_bot.notices[0].challenge_id, "not now")
            declined = await asyncio.wait_for(first_asked, 30)  # ended by the first leader
            assert declined["status"] == "declined"

            waiting = asyncio.create_task(clients["alice"].challenge("sam"))
            await wait_for(lambda: len(sam_bot.notices) == 2 or waiting.done(), 30, "sam asked")
            assert not waiting.done(), waiting.result()
            notice = sam_bot.notices[1]

            async def stored_asked() -> bool:
                async with opened(running.db) as storage:
                    return [(c.id, c.asked) for c in await storage.pending_challenges()] == [
                        (notice.challenge_id, True)]

            await wait_for(stored_asked, 30, "the pending challenge stored, sam asked")
            killed = running.processes[first]
            killed.send_signal(signal.SIGKILL)
            await asyncio.to_thread(killed.wait)
            other = next(host for host in hosts if host != first)
            await wait_for(lambda: "1 pending taken over" in running.stderr(other).read_text(),
                           30, "the other host leads, the challenge taken over")
            assert not waiting.done()  # no end was told: it still waits for sam

            http = gateway.replace("ws://", "http://")
            async with aiohttp.ClientSession() as session, session.get(  # the dead leader's
                    f"{http}api/challenges/{declined['challenge_id']}") as answer:
                assert answer.status == 200, await answer.text()
                assert await answer.json() == {
                    key: declined[key] for key in ("challenge_id", "status", "challenger",
                                                   "opponent", "rated", "reason", "request_id")}

            await clients["sam"].accept_challenge(notice.challenge_id)
            status = await asyncio.wait_for(waiting, 30)
            assert status["status"] == "accepted", status
            assert status["challenge_id"] == notice.challenge_id

            # alice sent 2 challenges under the dead leader: the third of the hour is her
            # last (--challenges-per-hour 3)
            third = asyncio.create_task(clients["alice"].challenge("sam"))
            await wait_for(lambda: len(sam_bot.notices) == 3 or third.done(), 30, "sam asked")
            with pytest.raises(ChallengeRefused) as refused:
                await clients["alice"].challenge("sam")
            assert refused.value.code == "challenge-limit"
            assert "3 challenges in the last hour" in str(refused.value)
            await clients["sam"].decline_challenge(sam_bot.notices[2].challenge_id)
            assert (await asyncio.wait_for(third, 30))["status"] == "declined"

            async def played() -> bool:
                async with opened(running.db) as storage:
                    games = [await storage.game(game_id) for game_id in status["game_ids"]]
                return all(g is not None and g.status == "finished" for g in games)

            await wait_for(played, 60, "the challenge's two games played to the end")
            async with opened(running.db) as storage:
                assert await storage.pending_challenges() == []  # dropped once it ended
                games = [await storage.game(game_id) for game_id in status["game_ids"]]
            assert [g.players for g in games if g is not None] == [("alice", "sam"),
                                                                   ("sam", "alice")]
            assert all(g is not None and g.termination == "normal" for g in games)
        finally:
            for client in clients.values():
                await client.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
