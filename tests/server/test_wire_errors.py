"""Bad input on the wire: malformed, oversize and unknown frames, bad tokens, versions."""

from __future__ import annotations

import asyncio

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients.sdk import ArenaClient, BuiltinBot
from protocol import AuthenticationError, Encoding, VersionError
from tests.waiting import wait_for

from .conftest import SUBST, stored_record


async def ready_bot(arena, encoding=Encoding.JSON):
    token = await arena.add_bot("raw")
    raw = await arena.raw(encoding)
    welcome = await raw.hello(token)
    assert welcome["type"] == "welcome" and welcome["bot"] == "raw"
    return raw


async def ping_works(raw, number=99):
    await raw.send("ping", id=number)
    assert await raw.recv() == {"type": "pong", "id": number}


@pytest.mark.parametrize("encoding", list(Encoding))
async def test_malformed_unknown_missing_and_wrong_type_keep_the_connection(arena, encoding):
    raw = await ready_bot(arena, encoding)
    bad_frame = b"\xc1\xc1" if encoding is Encoding.MSGPACK else "{not json"
    cases = [
        (raw.send_raw(bad_frame), "malformed-frame"),
        (raw.send("launch_missiles", id=1), "unknown-type"),
        (raw.send("move", game_id="g1", turn=0), "missing-field"),
        (raw.send("move", game_id="g1", turn="zero", move=""), "wrong-type"),
        (raw.send("move", game_id="g1", turn=True, move=""), "wrong-type"),
        (raw.send("move", game_id="g1", turn=0, move="", extra=1), "unknown-field"),
        (raw.send("welcome", protocol=1), "unexpected"),
        (raw.send("move", game_id="nope", turn=0, move=""), "unknown-game"),
    ]
    for sending, code in cases:
        await sending
        error = await raw.recv()
        assert error["type"] == "error" and error["code"] == code, error
        assert error["fatal"] is False and error["message"]
        await ping_works(raw)
    await raw.ws.close()


async def test_wrong_frame_kind_is_an_error(arena):
    raw = await ready_bot(arena, Encoding.MSGPACK)
    await raw.send_raw('{"type": "ping", "id": 1}')  # text on a msgpack connection
    error = await raw.recv()
    assert error["code"] == "malformed-frame" and "text frame" in error["message"]
    await ping_works(raw)


async def test_oversize_frame_error_then_hard_limit_closes(make_arena):
    arena = await make_arena(max_frame=1000, max_ws_frame=100_000)
    raw = await ready_bot(arena)
    await raw.send("move", game_id="g", turn=0, move="x" * 5000)
    error = await raw.recv()
    assert error["code"] == "oversize" and error["fatal"] is False
    await ping_works(raw)
    await raw.send_raw("x" * 200_000)  # beyond the WebSocket limit: closed with 1009
    with pytest.raises(ConnectionClosed) as closed:
        await raw.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_too_many_bad_frames_close_the_connection(arena):
    raw = await ready_bot(arena)
    for _ in range(25):
        await raw.send_raw("][")
    codes = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            codes.append((await raw.recv())["code"])
    assert codes[-1] == "too-many-errors" and codes.count("malformed-frame") == 21
    assert closed.value.rcvd.code == 4005


async def test_messages_before_hello_and_unknown_role(arena):
    raw = await arena.raw()
    await raw.send("move", game_id="g", turn=0, move="")
    assert (await raw.recv())["code"] == "unexpected"
    await raw.send("hello", protocol=1, role="referee")
    assert (await raw.recv())["code"] == "unexpected"
    await ping_works(raw)


async def test_wrong_token_is_refused_and_closed(arena):
    await arena.add_bot("alice")
    raw = await arena.raw()
    error = await raw.hello("not-a-token")
    assert error == {"type": "error", "code": "unauthorized", "message": "unknown or revoked token",
                     "fatal": True}
    with pytest.raises(ConnectionClosed) as closed:
        await raw.recv()
    assert closed.value.rcvd.code == 4001
    # the SDK raises instead of reconnecting forever
    client = ArenaClient(arena.url, "not-a-token", BuiltinBot("random"))
    with pytest.raises(AuthenticationError):
        await asyncio.wait_for(client.run(), 5)


async def test_revoked_token_and_name_mismatch(arena):
    token = await arena.add_bot("carol")
    raw = await arena.raw()
    assert (await raw.hello(token, bot="mallory"))["code"] == "unauthorized"
    storage = arena.server.storage
    assert await storage.revoke_bot("carol")
    raw = await arena.raw()
    assert (await raw.hello(token))["code"] == "unauthorized"


async def test_unsupported_version(arena):
    raw = await arena.raw(Encoding.MSGPACK)
    await raw.send("hello", protocol=2, role="spectator")
    error = await raw.recv()
    assert error["code"] == VersionError.code and "version 1" in error["message"]
    with pytest.raises(ConnectionClosed) as closed:
        await raw.recv()
    assert closed.value.rcvd.code == 4002


async def test_missing_subprotocol_is_rejected_in_the_handshake(arena):
    """The 400 names both subprotocols the server accepts, whether none was offered or
    only unknown ones."""
    with pytest.raises(InvalidStatus) as refused:
        await connect(arena.url)
    assert refused.value.response.status_code == 400
    text = refused.value.response.body.decode()
    assert "no subprotocol was offered" in text
    assert "arena.v1.msgpack or arena.v1.json" in text
    with pytest.raises(InvalidStatus) as refused:
        await connect(arena.url, subprotocols=["arena.v2.json"])  # type: ignore[list-item]
    text = refused.value.response.body.decode()
    assert "(arena.v2.json) are unknown" in text and "arena.v1.msgpack or arena.v1.json" in text
    async with connect(arena.url, subprotocols=["x", "arena.v1.json", "arena.v1.msgpack"]
                       ) as ws:  # type: ignore[list-item]
        assert ws.subprotocol == "arena.v1.msgpack"  # the server's preference


async def test_silent_connection_is_closed_after_the_hello_timeout(make_arena):
    arena = await make_arena(hello_timeout=0.2)
    raw = await arena.raw()
    with pytest.raises(ConnectionClosed) as closed:
        await raw.recv(timeout=3)
    assert closed.value.rcvd.code == 4003


async def test_msgpack_extension_types_and_bad_keys(arena):
    raw = await ready_bot(arena, Encoding.MSGPACK)
    frames = [
        msgpack.packb({"type": "ping", "id": msgpack.ExtType(5, b"x")}),
        msgpack.packb({1: 2}),
        msgpack.packb([1, 2, 3]),
        msgpack.packb({"type": "ping", "id": 1.5}),
    ]
    for frame in frames:
        await raw.send_raw(frame)
        error = await raw.recv()
        assert error["type"] == "error" and error["fatal"] is False
    await ping_works(raw)


async def test_revoking_a_connected_bot_drops_it_and_forfeits_its_games(make_arena):
    arena = await make_arena(revocation_interval=0.05)
    await arena.client("opponent", "random")
    token = await arena.add_bot("carol")
    raw = await arena.raw()
    assert (await raw.hello(token))["type"] == "welcome"
    live = arena.server.start_game("substitution", SUBST, ["carol", "opponent"], seed=3)
    await raw.expect("your_turn")
    storage = arena.server.storage
    assert await storage.revoke_bot("carol")
    error = await raw.expect("error", timeout=5)
    assert error["code"] == "unauthorized" and "revoked" in error["message"]
    with pytest.raises(ConnectionClosed) as closed:
        await raw.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
    record = await stored_record(live, 5)
    assert record.outcome.termination.value == "disconnect" and record.outcome.winner == 1
    assert "revoked" in record.outcome.detail


async def test_a_new_token_for_a_connected_bot_drops_the_old_connection(make_arena):
    arena = await make_arena(revocation_interval=0.05)
    token = await arena.add_bot("dave")
    old = await arena.raw()
    assert (await old.hello(token))["type"] == "welcome"
    storage = arena.server.storage
    await storage.revoke_bot("dave")
    new_token = await arena.add_bot("dave")  # a new token while the old session is still open
    assert (await old.expect("error"))["code"] == "unauthorized"
    fresh = await arena.raw()
    assert (await fresh.hello(new_token))["type"] == "welcome"
    checks = 0
    token_hashes = storage.database.token_hashes

    def counted_check(names):
        nonlocal checks
        checks += 1
        return token_hashes(names)

    storage.database.token_hashes = counted_check
    await wait_for(lambda: checks >= 3)  # a few checks later the new session is still welcome
    await fresh.send("ping", id=5)
    assert await fresh.recv() == {"type": "pong", "id": 5}


async def test_whole_seconds_in_the_limits_are_integers(make_arena):
    """A client in Go or Java decodes ping_interval as an integer: 20, never 20.0."""
    arena = await make_arena(ping_interval=20.0, message_rate=50.0)
    raw = await arena.raw(Encoding.JSON)
    await raw.send_raw('{"type":"hello","protocol":1,"role":"spectator"}')
    frame = await raw.ws.recv()
    assert isinstance(frame, str)
    assert '"ping_interval":20,' in frame and '"message_rate":50,' in frame
    raw = await arena.raw(Encoding.MSGPACK)
    welcome = await raw.hello(None, role="spectator")
    assert type(welcome["limits"]["ping_interval"]) is int


async def test_a_hello_in_time_is_answered_however_long_its_token_takes(make_arena, monkeypatch):
    # a loaded gateway's token lookups waited for its database past the hello timeout,
    # and bots that had said hello in time were closed (4003: 8 337 of them in a
    # 2 000-bot rolling restart, each reconnecting at once)
    from arena.server import clients

    arena = await make_arena(hello_timeout=0.2)
    token = await arena.add_bot("alice")
    real = clients.authenticate
    loop = asyncio.get_running_loop()

    async def slow(*args, **kwargs):
        late = loop.time() + 0.5  # past the hello timeout (its timer has fired)
        await wait_for(lambda: loop.time() > late)
        return await real(*args, **kwargs)

    monkeypatch.setattr(clients, "authenticate", slow)
    raw = await arena.raw()
    welcome = await raw.hello(token)
    assert welcome["type"] == "welcome"
    await ping_works(raw)
