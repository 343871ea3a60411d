"""Unbounded game state (issue 11, finding 3) and heavy settings (finding 2), replayed at
small scale: one state kept per game, a state size limit that ends the game with a
clear reason, no frame above the advertised `max_frame`, send queues bounded in bytes,
settings limits (stricter for guests) checked before a game starts."""

from __future__ import annotations

import asyncio
import random
import tracemalloc
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from arena.game import TERMINAL, Termination
from arena.games.substitution import Settings
from arena.limits import SettingsLimitExceeded
from arena.match import Match
from arena.record import read_jsonl
from arena.registry import default_registry
from arena.validate import validate_record
from clients.operator import Operator
from protocol import PROTOCOL_VERSION, Encoding, RemoteError
from tests.server.conftest import stored_record

GROWING = {"moves": 400, "groups": [{"left": "S", "alternatives": ["S" * 40]}], "weights": [1]}
"""Every turn makes a derivation 39 symbols longer: the state grows about 40 bytes a turn
(the issue's attack was the same with 7,800 symbols and 100,000 moves)."""


def test_a_match_keeps_one_state_not_every_state():
    registry = default_registry()
    game = registry.load_game("substitution", GROWING)
    bot = registry.make_bot(game, "random")
    rng = random.Random(1)
    match = Match(game, ["a", "b"], seed=1)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        while match.to_act() != TERMINAL:
            match.submit(match.to_act(), bot.choose_move(game, match.state, rng))
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    final = len(Encoding.JSON.encode(game.state_to_json(match.state)))
    assert match.turn_count == 800 and final > 30_000
    # every state kept would be about 800 * final / 2 = 12 MB; one state and the log
    # records (a short move string and the bank each) stay far below that
    assert kept < 2_000_000, kept


async def test_a_state_beyond_the_limit_aborts_the_game_with_the_reason(make_arena):
    arena = await make_arena(max_state_bytes=4096)
    await arena.client("alice", "random")
    await arena.client("bob", "random")
    record = await arena.server.play_game("substitution", GROWING, ["alice", "bob"], seed=1)
    outcome = record.outcome
    assert outcome.termination is Termination.ABORTED and outcome.result == "aborted"
    assert "above the server's limit of 4096 bytes" in outcome.detail
    assert 50 < len(record.turns) < 150  # about 4096 / 40 turns
    row = await arena.server.storage.game(record.id)
    assert row.status == "aborted" and "4096 bytes" in row.reason


async def raw_bot(arena: Any, name: str, frames: list[int]) -> None:
    """A bot over a bare WebSocket that plays the first legal move and notes the size of
    every frame it receives, until its game is over."""
    token = await arena.add_bot(name)
    raw = await arena.raw()
    await raw.send("hello", protocol=PROTOCOL_VERSION, role="bot", token=token)
    registry = default_registry()
    game = None
    while True:
        frame = await raw.ws.recv()
        frames.append(len(frame.encode()) if isinstance(frame, str) else len(frame))
        data = raw.encoding.decode(frame, max_size=1 << 30)
        if data["type"] == "game_start":
            game = registry.load_game(data["game"], data["settings"])
        elif data["type"] == "your_turn":
            assert game is not None
            state = game.state_from_json(data["state"])
            move = game.legal_moves(state, 1).moves[0]
            await raw.send("move", game_id=data["game_id"], turn=data["turn"], move=move)
        elif data["type"] == "game_over":
            return


async def test_no_frame_above_the_advertised_max_frame(make_arena):
    # no state limit: the frames would grow past max_frame; the game must end instead
    arena = await make_arena(max_frame=8192, max_state_bytes=0)
    frames: list[int] = []
    alice = asyncio.create_task(raw_bot(arena, "alice", frames))
    async with asyncio.timeout(10):
        while "alice" not in arena.server.sessions:
            await asyncio.sleep(0.01)
    await arena.client("bob", "random")
    live = arena.server.start_game("substitution", GROWING, ["alice", "bob"], seed=2)
    record = await stored_record(live, 60)
    await asyncio.wait_for(alice, 10)
    assert record.outcome.termination is Termination.ABORTED
    assert "too large to send to alice" in record.outcome.detail
    assert len(record.turns) > 100  # it got big before it ended
    welcome_limit = 8192
    assert max(frames) <= welcome_limit, max(frames)


async def test_a_spectator_that_does_not_read_is_dropped_at_its_byte_budget(make_arena):
    arena = await make_arena(max_queue_bytes=64 * 1024, max_state_bytes=0)
    await arena.client("x", "random")
    await arena.client("y", "random")
    viewer = await arena.raw()
    await viewer.hello(None, role="spectator")
    live = arena.server.start_game("substitution", GROWING, ["x", "y"], seed=3)
    await viewer.send("spectate", game_id=live.id)
    viewer.ws.transport.pause_reading()  # never reads: every move's state queues up
    async with asyncio.timeout(30):
        while live.spectators:
            await asyncio.sleep(0.01)
    assert not live.over  # dropped while the game went on
    record = await stored_record(live, 60)
    assert record.outcome.termination is Termination.NORMAL
    viewer.ws.transport.resume_reading()
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await viewer.ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert "more than 65536 bytes unread" in closed.value.rcvd.reason


async def test_settings_beyond_the_limits_are_refused_before_the_game_starts(arena):
    await arena.client("alice", "random")
    guest, _ = await arena.guest()
    big = {**GROWING, "moves": 1000}  # within the standard limit, above the guests' one
    with pytest.raises(SettingsLimitExceeded, match="moves 1000 is above the limit for guests"):
        arena.server.start_game("substitution", big, [guest, "house:random"])
    assert not arena.server.live
    bomb = {**GROWING, "groups": [{"left": "S", "alternatives": ["S" * 7800]}]}
    token = await arena.add_bot("runner", operator=True)
    async with Operator(arena.url, token) as operator:
        with pytest.raises(RemoteError) as refused:
            await operator.play("substitution", bomb, ["alice", "house:random"])
    assert refused.value.code == "bad-request"
    assert "symbols 7800 is above the limit for this server (4000)" in refused.value.message


async def test_the_operators_changed_limits_apply(make_arena):
    arena = await make_arena(guest_settings_limits={"substitution.moves": 1000})
    guest, _ = await arena.guest()
    live = arena.server.start_game("substitution", {**GROWING, "moves": 1000},
                                   [guest, "house:random"])
    arena.server.games.abort(live, "enough")
    await stored_record(live, 10)


async def test_an_operator_gets_a_log_too_long_for_a_frame_from_the_http_api(make_arena):
    arena = await make_arena(max_frame=8192)
    token = await arena.add_bot("runner", operator=True)
    settings = Settings.preset("medium", 200).to_json()
    async with Operator(arena.url, token) as operator:
        log = await operator.play_log("substitution", settings, ["house:random", "house:random"])
    assert len(log.encode()) > 8192
    record = read_jsonl(log.splitlines())
    assert len(record.turns) == 400 and validate_record(record) is None
