"""Debug lines that fill the disk (issue 22, finding 2): a bot writing the most debug
lines on every turn of game after game grew the database by 9.9 MiB in 15 s. Each bot
now has a budget of stored bytes per UTC day (announced in ``welcome.limits``, counted
before a line is kept, surviving a restart), old debug lines are dropped after the
retention period (the games still validate and replay), and below a reserve of free
disk no debug line is kept. In every case the bot is told once a game and its games go
on."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace

from click.testing import CliRunner

from arena.bot_logs import LogLimits, note_size, utc_day
from arena.cli import main
from arena.record import read_jsonl
from arena.registry import default_registry
from arena.server.upkeep import DAY_SECONDS
from arena.validate import validate_record
from arena.web.replay import frames
from clients.sdk import ArenaBot, ArenaClient, BuiltinBot, Turn
from tests.waiting import wait_for

SIM = {"vertices": 5}
SMALL = LogLimits(max_log_bytes=100, max_logs_per_turn=4, max_logs_per_game=200,
                  max_log_bytes_per_day=1000)
"""Ten full lines a day: the budget is spent within the first game (the first seat of a
Sim game moves at least three times: a triangle takes three edges of one colour)."""


class Chatty(ArenaBot):
    """Writes the most debug lines a turn allows, each of the longest size, then moves
    (the attack)."""

    def __init__(self, limits: LogLimits) -> None:
        self.limits = limits

    async def move(self, turn: Turn) -> str:  # type: ignore[override]
        assert self.arena_client is not None
        for line in range(self.limits.max_logs_per_turn):
            text = f"turn {turn.turn} line {line} "
            await self.arena_client.log(turn.game_id, text.ljust(self.limits.max_log_bytes, "x"))
        return turn.legal_moves(1)[0]


def codes(client: ArenaClient) -> list[str]:
    return [getattr(error, "code", "") for error in client.errors]


async def play(arena, seed: int):
    """One sim game of chatty (seat 0) against other; its record, once stored."""
    record = await arena.server.play_game("sim", SIM, ["chatty", "other"], seed=seed)
    assert record.outcome.termination.value == "normal"  # the game goes on
    return record


def kept_bytes(record) -> int:
    return sum(note_size(note.text) for note in record.notes if note.player == 0)


async def test_a_bot_over_its_daily_bytes_is_told_once_a_game_and_plays_on(make_arena) -> None:
    arena = await make_arena(log_limits=SMALL)
    chatty = await arena.client("chatty", Chatty(SMALL))
    assert chatty.welcome is not None and chatty.welcome["limits"]["max_log_bytes_per_day"] == 1000
    await arena.client("other", "sim-random")
    first = await play(arena, 1)
    assert kept_bytes(first) == 1000  # ten lines of the twelve or more sent
    assert codes(chatty).count("log-budget") == 1
    second = await play(arena, 2)
    assert kept_bytes(second) == 0
    assert codes(chatty).count("log-budget") == 2  # once a game
    assert "rate-limited" not in codes(chatty)  # lines within their counts cost no rate
    budget = next(e for e in chatty.errors if getattr(e, "code", "") == "log-budget")
    assert "chatty has 1000 bytes of debug lines stored today (UTC), at most 1000 a day" in str(
        budget)
    storage = arena.server.storage
    today = utc_day(time.time())
    assert await storage.log_bytes("chatty", today) == 1000
    await arena.close()

    # a restart forgets the counts in memory; the database does not
    again = await make_arena(log_limits=SMALL)
    chatty = await connect(again, "chatty", Chatty(SMALL))
    await connect(again, "other", BuiltinBot("sim-random"))
    assert again.server.notes.spent("chatty", today) == 1000
    third = await play(again, 3)
    assert kept_bytes(third) == 0 and codes(chatty) == ["log-budget"]


async def connect(arena, name: str, bot: ArenaBot) -> ArenaClient:
    """A connected client for the account `name`, which exists (its token replaced)."""
    storage = arena.server.storage
    token = await storage.add_bot(name, replace=True)
    client = ArenaClient(arena.url, token, bot, reconnect_delay=0.05)
    arena.clients.append((client, asyncio.create_task(client.run())))
    await wait_for(client.connected.is_set)
    return client


async def test_below_the_disk_reserve_no_debug_line_is_kept_and_games_go_on(make_arena) -> None:
    arena = await make_arena(debug_disk_reserve_mb=2**40)  # more than any disk has free
    server = arena.server
    assert server.notes.disk_low
    chatty = await arena.client("chatty", Chatty(LogLimits()))
    await arena.client("other", "sim-random")
    short = await play(arena, 1)
    assert short.notes == () and codes(chatty) == ["log-disk-low"]
    server.upkeep.reserve_bytes = 1  # the disk has room again
    assert not await server.upkeep.check_disk()
    roomy = await play(arena, 2)
    assert kept_bytes(roomy) > 0 and codes(chatty) == ["log-disk-low"]


async def test_old_debug_lines_are_dropped_and_the_game_still_validates_and_replays(
        make_arena, tmp_path) -> None:
    arena = await make_arena(debug_retention_days=14)
    await arena.client("chatty", Chatty(LogLimits(max_logs_per_turn=2, max_log_bytes=40)))
    await arena.client("other", "sim-random")
    record = await play(arena, 5)
    assert kept_bytes(record) > 0
    server, storage = arena.server, arena.server.storage
    stored = (await storage.game(record.id)).log
    assert await server.upkeep.drop_expired(time.time() + 13 * DAY_SECONDS) == 0
    assert (await storage.game(record.id)).log == stored
    assert await server.upkeep.drop_expired(time.time() + 14 * DAY_SECONDS + 60) == 1
    dropped = (await storage.game(record.id)).log
    assert stored.splitlines()[:-1] == dropped.splitlines()[:-1]  # every move as it was
    old, new = read_jsonl(stored.splitlines()), read_jsonl(dropped.splitlines())
    assert new.notes == () and replace(old, notes=()) == new
    assert validate_record(new) is None
    assert len(frames(new, default_registry())["frames"]) == len(new.turns) + 1
    path = tmp_path / "dropped.jsonl"
    path.write_text(dropped, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert await server.upkeep.drop_expired(time.time() + 15 * DAY_SECONDS) == 0  # done once


PROGRAM = r"""
import json, sys
seen = open(sys.argv[1], "w")
for line in sys.stdin:
    keyword, _, payload = line.rstrip("\n").partition(" ")
    if keyword == "limits":
        seen.write(payload + "\n")
        seen.flush()
    elif keyword == "turn":
        turn = json.loads(payload)
        for index in range(4):  # SMALL's lines a turn: 12 or more a game, of 10 a day
            print("# " + f"turn {turn['turn']} line {index} ".ljust(100, "x"), flush=True)
        print(turn["legal"][0], flush=True)
    elif keyword == "quit":
        break
"""


async def test_an_exec_programs_comment_lines_have_the_same_budget(make_arena, tmp_path) -> None:
    """The line protocol's ``#`` lines reach the server as ``log`` messages through the
    stdio bridge: the program is told the daily budget and held to it."""
    import sys

    from clients.bridge import ExecBot

    arena = await make_arena(log_limits=SMALL)
    seen = tmp_path / "limits.json"
    program = ExecBot([sys.executable, "-c", PROGRAM, str(seen)])
    token = await arena.add_bot("chatty")
    client = ArenaClient(arena.url, token, program, legal_moves=True, reconnect_delay=0.05)
    arena.clients.append((client, asyncio.create_task(client.run())))
    await wait_for(client.connected.is_set)
    await arena.client("other", "sim-random")
    try:
        first, second = await play(arena, 1), await play(arena, 2)
    finally:
        await program.close()
    assert json.loads(seen.read_text())["max_log_bytes_per_day"] == 1000
    assert kept_bytes(first) == 1000 and kept_bytes(second) == 0
    assert codes(client).count("log-budget") == 2
