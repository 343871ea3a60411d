"""The HTTP side under attack (issue 11, findings 1, 9, 10, 11; issue 12's acceptance).

Each test replays an attack at small scale against a real server on loopback and
asserts the defended behaviour.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import http.client
import json
import random
import re
import socket
import tracemalloc
import zlib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from arena.games.substitution import Settings
from arena.games.substitution.game import SubstitutionGame
from arena.record import to_jsonl
from arena.registry import default_registry
from arena.web.config import WebConfig
from arena.web.endpoints import endpoints
from arena.web.endpoints.replays import REPLAYS
from arena.web.replay import replay_job
from protocol import Encoding
from tests.server import worker_jobs
from tests.server.conftest import Arena
from tests.waiting import wait_for
from tests.web.test_api import _played, _post, get, new_guest, post


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None, source: str = "127.0.0.1",
            ) -> tuple[int, Any, bytes]:
    """One request from `source` (any 127.x address reaches the server on loopback):
    status, headers (case-insensitive), body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                            source_address=(source, 0))
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


async def raw_exchange(port: int, data: bytes) -> bytes:
    """Send raw bytes, read the answer until the server closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    async with asyncio.timeout(30):
        answer = await reader.read()
    writer.close()
    return answer


async def raw_answer(port: int, data: bytes) -> bytes:
    """Send raw bytes, read the one answer (its head and its Content-Length of body).
    Not until the server closes: after answering a request whose body it did not read,
    aiohttp reads on for up to 10 s (its lingering close) before it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        async with asyncio.timeout(30):
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            return head + await reader.readexactly(length)
    finally:
        writer.transport.abort()


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def json_of(answer: bytes) -> Any:
    return json.loads(answer.split(b"\r\n\r\n", 1)[1])


STATE_CHANGING = [e for e in endpoints(default_registry()) if e.method != "GET"]


# -- issue 12: GET changes nothing, foreign pages change nothing ---------------------------------


async def test_a_get_on_any_state_changing_endpoint_is_405_and_changes_nothing(
        arena: Arena) -> None:
    assert {e.path for e in STATE_CHANGING} >= {"/api/guest", "/api/play", "/api/grammars",
                                                "/api/replay"}
    assert arena.server.storage is not None
    storage = arena.server.storage
    before = await storage.bots()
    reads = {e.path for e in endpoints(default_registry()) if e.method == "GET"}
    assert "/api/account/bots" in reads  # a person's bots: GET lists them, POST makes one
    for endpoint in STATE_CHANGING:
        if endpoint.path in reads:
            continue  # GET /api/replay?id= replays a stored game: a read (and so on)
        path = re.sub(r"\{\w+\}", "x", endpoint.path)  # a path parameter: any value
        status, error = await get(arena, path, name="x", text="S->a")
        assert status == 405 and error["code"] == "method-not-allowed", endpoint.path
        assert endpoint.method in error["message"]
    assert await storage.bots() == before  # no guest was made
    assert await storage.presets("substitution") == []  # no grammar saved


async def test_the_same_posts_from_a_foreign_origin_are_403(make_arena: Any) -> None:
    arena = await make_arena(web=WebConfig(origins=("https://friend.example",)))
    port = arena.server.port
    foreign = [{"Origin": "http://evil.example"}, {"Origin": "null"},
               {"Origin": f"http://127.0.0.1:{port + 1}"},
               {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}]
    for endpoint in STATE_CHANGING:
        for headers in foreign:
            status, error, _ = await asyncio.to_thread(
                _post, port, endpoint.path, {"name": "x", "text": "S->a"}, headers=headers)
            assert status == 403 and error["code"] == "cross-site", (endpoint.path, headers)
    assert arena.server.storage is not None
    assert await arena.server.storage.bots() == []
    for headers in ({"Origin": f"http://127.0.0.1:{port}"}, {"Sec-Fetch-Site": "same-origin"},
                    {"Origin": "https://friend.example"}, {}):  # {}: not a browser
        status, answer, _ = await asyncio.to_thread(_post, port, "/api/guest", headers=headers)
        assert status == 200, (headers, answer)


# -- issue 12: bodies have limits ----------------------------------------------------------------


async def test_a_10_mb_log_is_refused_with_413_before_it_is_parsed(arena: Arena) -> None:
    port, piece = arena.server.port, b"x" * 65536
    # the declared length is enough: answered after the head and the first 64 KiB
    answer = await raw_answer(port, b"POST /api/replay HTTP/1.1\r\nHost: localhost\r\n"
                                    b"Content-Type: text/plain\r\n"
                                    b"Content-Length: 10485760\r\n\r\n" + piece)
    assert status_of(answer) == 413 and json_of(answer)["code"] == "too-large"
    assert "4194304" in json_of(answer)["message"]
    # a page's words for it
    assert (json_of(answer)["reason_code"], json_of(answer)["reason_params"]) == (
        "body-too-large", {"most": 4194304})
    # no length (chunked): refused as soon as the body passes the limit
    chunks = b"10000\r\n" + piece + b"\r\n"
    answer = await raw_answer(port, b"POST /api/replay HTTP/1.1\r\nHost: localhost\r\n"
                                    b"Content-Type: text/plain\r\n"
                                    b"Transfer-Encoding: chunked\r\n\r\n"
                              + chunks * (4 * 16 + 1))
    assert status_of(answer) == 413 and json_of(answer)["code"] == "too-large"
    assert json_of(answer)["reason_code"] == "body-too-large"
    assert arena.web is not None
    assert arena.web.app[REPLAYS].pool is None  # no worker ever saw them


async def test_json_bodies_have_a_limit_and_a_type(arena: Arena) -> None:
    status, error = await post(arena, "/api/grammars/check", {"text": "S->a" * 100_000})
    assert status == 413 and error["code"] == "too-large"
    assert error["reason_code"] == "body-too-large" and error["reason_params"]["most"] > 0
    status, check = await post(arena, "/api/grammars/check", {"text": "S->a\n" * 4000})
    assert status == 200 and check["ok"] is False and "16384 characters" in check["message"]
    status, error = await post(arena, "/api/grammars/check", raw=b'{"text": "S->a"}')
    assert status == 415 and "application/json" in error["message"]
    status, error, _ = await asyncio.to_thread(
        _post, arena.server.port, "/api/grammars/check", None, raw=b"{", headers={
            "Content-Type": "application/json"})
    assert status == 400 and "not JSON" in error["message"]


# -- finding 1: the replay bomb ------------------------------------------------------------------


class _Grow:
    """Rewrites the first S of its first word every turn: the word grows by 999 each time."""

    def choose_move(self, game: Any, state: Any, rng: random.Random) -> str:
        return "0 0 0" if state.move_number >= 2 else "-1 0 0"


@cache
def replay_bomb() -> str:
    """A log of 600 turns with the grammar S -> S x 1000: 1.9 KB gzipped (the attack's
    upload was 1.7 KB), about 300 MB of frames if replayed without limits."""
    from arena.games.substitution import Settings
    from arena.games.substitution.game import SubstitutionGame
    from arena.games.substitution.grammar import Grammar
    from arena.match import Match

    game = SubstitutionGame(Settings(Grammar.from_text("S->" + "S" * 1000 + "\n"), 300))
    match = Match(game, ["a", "b"], seed=1, match_id="bomb")
    match.run([_Grow(), _Grow()], [random.Random(1), random.Random(2)])
    log = to_jsonl(match.record())
    assert len(gzip.compress(log.encode())) < 2500
    return log


async def test_the_replay_bomb_gets_a_clear_error_within_the_limits(arena: Arena) -> None:
    status, error = await post(arena, "/api/replay", raw=replay_bomb().encode())
    assert status == 400 and error["code"] == "replay-limit", error
    assert "at most" in error["message"]
    status, health = await get(arena, "/healthz")
    assert status == 200 and health["replays_in_flight"] == 0


async def test_a_replay_runs_in_a_worker_while_the_server_answers(
        make_arena: Any, tmp_path: Path) -> None:
    """A replay works in its worker while the server answers; a second replay beyond the
    queue is 429. (The job waits for the test to release it, so nothing hangs on time.)"""
    arena = await make_arena(web=WebConfig(replay_queue=1, replay_seconds=300))
    arena.web.app[REPLAYS].job = worker_jobs.replay_when_released
    release = tmp_path / "release"
    first = asyncio.create_task(post(arena, "/api/replay", raw=str(release).encode()))
    while True:  # the event loop is free: health checks come back while it works
        status, health = await get(arena, "/healthz")
        assert status == 200
        if health["replays_in_flight"] == 1:
            break
        assert not first.done(), first.result()
    status, error, headers = await asyncio.to_thread(
        _post, arena.server.port, "/api/replay", None, raw=b"{}")
    assert status == 429 and int(headers["Retry-After"]) >= 1
    assert error["code"] == "too-many-requests" and "replays are running" in error["message"]
    assert not first.done()
    release.touch()
    status, answer = await first
    assert status == 200 and answer == {"released": True}
    status, health = await get(arena, "/healthz")
    assert health["replays_in_flight"] == 0 and health["status"] == "ok"


async def test_a_replay_past_its_time_is_killed_with_a_clear_error(make_arena: Any) -> None:
    arena = await make_arena(web=WebConfig(replay_seconds=0.5))
    arena.web.app[REPLAYS].job = worker_jobs.replay_forever
    status, error = await post(arena, "/api/replay", raw=replay_bomb().encode())
    assert status == 400 and error["code"] == "replay-limit", error
    assert "0.5 s" in error["message"]
    assert (error["reason_code"], error["reason_params"]) == (  # a page's words for it
        "replay-resources", {"seconds": "0.5", "memory": 1024})
    arena.web.app[REPLAYS].job = replay_job  # the worker was replaced: replays go on
    small = _played(SubstitutionGame(Settings.preset("medium", 3)))
    status, answer = await post(arena, "/api/replay", raw=to_jsonl(small).encode())
    assert status == 200 and answer["frames"], answer


async def test_a_log_of_too_many_turns_is_refused_before_its_replay(make_arena: Any) -> None:
    arena = await make_arena(web=WebConfig(replay_turns=100))
    status, error = await post(arena, "/api/replay", raw=replay_bomb().encode())
    assert status == 400 and error["code"] == "replay-limit"
    assert error["reason_code"] == "replay-turns" and error["reason_params"]["most"] == 100
    assert error["message"] == "the log has 600 turns; replays take at most 100"


# -- finding 9: the guest quota is per client ----------------------------------------------------


async def test_one_client_cannot_use_up_the_guest_quota_of_others(make_arena: Any) -> None:
    arena = await make_arena(web=WebConfig(guests_per_client_minute=2))
    port = arena.server.port

    async def guest(source: str) -> tuple[int, dict[str, str], bytes]:
        return await asyncio.to_thread(request, port, "POST", "/api/guest", b"", {}, source)

    assert [(await guest("127.0.0.1"))[0] for _ in range(2)] == [200, 200]
    status, headers, body = await guest("127.0.0.1")
    assert status == 429 and int(headers["Retry-After"]) >= 1
    assert "from your address" in json.loads(body)["message"]
    assert (await guest("127.0.0.2"))[0] == 200  # another client still gets its guests
    assert (await guest("127.0.0.1"))[0] == 429


# -- finding 10: the browser's WebSocket ---------------------------------------------------------


async def test_a_foreign_page_cannot_open_the_websocket(make_arena: Any) -> None:
    arena = await make_arena(web=WebConfig(origins=("https://friend.example",)))
    port = arena.server.port
    for origin in ("http://evil.example", f"http://localhost:{port}", "null"):
        with pytest.raises(InvalidStatus) as refused:
            await connect(arena.url, origin=origin)  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403
        assert b"may not open" in refused.value.response.body
    with pytest.raises(InvalidStatus) as refused:
        await connect(arena.url, additional_headers=[("Origin", f"http://127.0.0.1:{port}"),
                                                    ("Origin", "http://evil.example")])
    assert refused.value.response.status_code == 403
    for origin in (f"http://127.0.0.1:{port}", "https://friend.example", None):  # None: a bot
        raw = await arena.raw(origin=origin)
        assert (await raw.hello(None, role="spectator"))["type"] == "welcome"


# -- finding 11: malformed HTTP gets 400, never 500 ----------------------------------------------


async def test_malformed_requests_get_400_never_500(arena: Arena,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    port = arena.server.port
    cases = {
        b"GET /\x00 HTTP/1.1\r\nHost: localhost\r\n\r\n": (400, "bad-request-line"),
        (b"GET /\x00 HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
         b"Connection: Upgrade\r\n\r\n"):
            (400, "bad-request-line"),
        (b"GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nUpgrade: websocket\r\n"
         b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
         b"Sec-WebSocket-Version: 13\r\n\r\n"): (400, "bad-header"),
        b"GET / HTTP/1.1\r\nHost x\r\n\r\n": (400, "bad-header"),
        b"GET / HTTP/1.1\r\nHost: \x01\r\n\r\n": (400, "bad-header"),
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n": (400, "bad-request-line"),
        b"GET / HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n": (431, "head-too-large"),
        b"GET / HTTP/1.1\r\n" + b"X: a\r\n" * 2000: (431, "head-too-large"),
    }
    for data, (status, code) in cases.items():
        answer = await raw_exchange(port, data)
        assert status_of(answer) == status and json_of(answer)["code"] == code, (data, answer)
    # a bad chunked body is aiohttp's to find: 400 too
    answer = await raw_exchange(port, b"POST /api/replay HTTP/1.1\r\nHost: localhost\r\n"
                                      b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n")
    assert status_of(answer) == 400
    # two Upgrade headers that websockets itself sees (a keep-alive request is aiohttp's)
    answer = await raw_exchange(port, b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n"
                                      b"Connection: close\r\n"
                                      b"Upgrade: h2c, websocket\r\n\r\n")
    assert status_of(answer) == 426  # websockets refuses an upgrade to two protocols
    assert b"Traceback" not in answer
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
    status, health = await get(arena, "/healthz")
    assert status == 200 and health["status"] == "ok"


async def test_a_connection_that_sends_no_head_is_closed(make_arena: Any) -> None:
    arena = await make_arena(web=WebConfig(head_timeout=0.2))
    answer = await raw_exchange(arena.server.port, b"GET / HTTP/1.1\r\nHost:")
    assert status_of(answer) == 408 and json_of(answer)["code"] == "head-timeout"
    assert not arena.app.listener.pending


# -- static files ---------------------------------------------------------------------------------


async def test_static_files_are_cached_by_validation_and_gzipped(arena: Arena) -> None:
    port = arena.server.port
    status, headers, body = await asyncio.to_thread(
        request, port, "GET", "/static/app.js", None, {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert headers["Cache-Control"] == "no-cache" and headers["ETag"]
    assert b"export" in gzip.decompress(body) or b"function" in gzip.decompress(body)
    status, _again, body = await asyncio.to_thread(
        request, port, "GET", "/static/app.js", None, {"If-None-Match": headers["ETag"],
                                                        "Accept-Encoding": "gzip"})
    assert status == 304 and body == b""
    status, headers, body = await asyncio.to_thread(
        request, port, "GET", "/api/web/options", None, {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(body))["games"]
    status, headers, body = await asyncio.to_thread(request, port, "GET", "/favicon.ico")
    assert status == 200 and headers["Content-Type"] == "image/svg+xml" and b"<svg" in body
    status, headers, body = await asyncio.to_thread(request, port, "HEAD", "/static/style.css")
    assert status == 200 and body == b""


async def test_no_web_request_makes_the_server_run_a_program(make_arena: Any,
                                                             tmp_path: Path) -> None:
    """``exec:COMMAND`` bot specs run a local program; a stranger's request naming one, for
    a game, a match, a tournament or the lobby's check, is refused and nothing runs."""
    root = tmp_path / "tournaments"
    root.mkdir()
    arena = await make_arena(tournaments=str(root))
    marker = tmp_path / "ran"
    command = f"exec:touch {marker}"
    settings = {"game": "sim", "settings": {"vertices": 5}}
    guest = await new_guest(arena)
    await guest.connect("sim")
    attempts = [
        ("/api/settings/check", {**settings, "bot": command}, {}),
        ("/api/play", {**settings, "bot": command}, guest.cookie),
        ("/api/match", {**settings, "bots": [command, "sim-random"]}, {}),
        ("/api/tournaments/run", {**settings, "bots": [command, "sim-random"], "games": 1}, {}),
    ]
    for path, body, headers in attempts:
        status, error = await post(arena, path, body, headers=headers)
        assert status == 400, (path, status, error)
        assert "exec:" in error["message"], (path, error)
    status, health = await get(arena, "/healthz")
    assert health["games_in_flight"] == 0
    assert not marker.exists()


async def test_games_started_from_the_web_are_held_to_the_guests_settings_limits(
        make_arena: Any, tmp_path: Path) -> None:
    """Finding 2: a stranger's request (the lobby's check, a bot game, a tournament)
    names settings within a bot's limits but beyond a guest's: refused before anything
    starts, naming the limit."""
    root = tmp_path / "tournaments"
    root.mkdir()
    arena = await make_arena(tournaments=str(root))
    settings = {"game": "durak", "settings": {"cards": "01" * 14}}  # 28 cards; guests 24
    attempts = [
        ("/api/settings/check", {**settings, "bot": "durak-greedy"}),
        ("/api/match", {**settings, "bots": ["durak-greedy", "durak-greedy"]}),
        ("/api/tournaments/run", {**settings, "bots": ["durak-greedy", "durak-greedy"],
                                  "games": 1}),
    ]
    for path, body in attempts:
        status, error = await post(arena, path, body)
        assert status == 400, (path, status, error)
        assert "cards 28 is above the limit for guests (24)" in error["message"], error
        assert error["reason_code"] == "above-guest-limit", error  # a page's words for it
        assert error["reason_params"] == {"game": "durak", "title": "Single-suit Durak",
                                          "size": "cards", "doc": "the cards in the deal",
                                          "value": 28, "limit": 24}
    status, health = await get(arena, "/healthz")
    assert health["games_in_flight"] == 0
    status, ok = await post(arena, "/api/settings/check",
                            {"game": "durak", "settings": {"cards": "01" * 12}})
    assert status == 200 and ok["ok"] is True


async def test_saved_presets_have_a_budget_in_all_and_per_client(make_arena: Any) -> None:
    """Anybody may save the lobby's presets: a flood of them stops at the server's
    budget (409 full) and at each client's rate (429), and never fills the database."""
    arena = await make_arena(web=WebConfig(presets=3, presets_per_client_minute=4))
    for number in range(3):
        status, saved = await post(arena, "/api/grammars", {"name": f"p{number}",
                                                            "text": "S->a|b\n"})
        assert status == 200, saved
    status, error = await post(arena, "/api/grammars", {"name": "p3", "text": "S->a|b\n"})
    assert status == 409 and error["code"] == "full" and "3 presets" in error["message"]
    assert (error["reason_code"], error["reason_params"]) == ("presets-full", {"most": 3})
    status, error = await post(arena, "/api/grammars/delete", {"name": "p0"})
    assert status == 429 and "4 presets" in error["message"], error  # the client's rate
    status, options = await get(arena, "/api/web/options")
    assert sorted(p["name"] for p in options["presets"] if not p["builtin"]) == \
        ["p0", "p1", "p2"]


# -- issue 22, finding 1: compressed request bodies ---------------------------------------------


def gzip_bomb(mib: int) -> bytes:
    """`mib` MiB of newlines, gzipped: about 1 KB per MiB (the attack's: 256 MiB in 260 KB)."""
    return gzip.compress(b"\n" * (mib << 20), compresslevel=9)


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, Any]:
    """One HTTP answer with a Content-Length: its status and JSON body."""
    async with asyncio.timeout(30):
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head)[1])  # type: ignore[index]
        return status_of(head), json.loads(await reader.readexactly(length))


async def test_a_compressed_body_is_refused_before_any_of_it_is_read_or_inflated(
        arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gzip bomb, at 64 MiB: 415 while half of it is still unsent, to an endpoint that
    reads bodies and to one that never does; the server answers meanwhile, never inflates a
    byte, and the connection serves its next request once the rest has come."""
    from aiohttp import compression_utils

    inflated: list[int] = []
    original = compression_utils.ZLibDecompressor.decompress_sync

    def spy(self: Any, data: bytes, *args: Any, **kwargs: Any) -> bytes:
        inflated.append(len(data))
        return original(self, data, *args, **kwargs)

    monkeypatch.setattr(compression_utils.ZLibDecompressor, "decompress_sync", spy)
    bomb = gzip_bomb(64)
    assert len(bomb) < 100_000
    half = len(bomb) // 2
    for path, kind in (("/api/replay", "text/plain"), ("/api/guest", "application/json")):
        reader, writer = await asyncio.open_connection("127.0.0.1", arena.server.port)
        writer.write(f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: {kind}\r\n"
                     f"Content-Encoding: gzip\r\nContent-Length: {len(bomb)}\r\n\r\n".encode()
                     + bomb[:half])
        status, error = await read_answer(reader)
        assert status == 415 and error["code"] == "compressed-body", error
        assert "Content-Encoding: gzip" in error["message"]
        assert "send the body as it is" in error["message"]
        status, health = await get(arena, "/healthz")  # the loop is free while it comes
        assert status == 200 and health["status"] == "ok"
        writer.write(bomb[half:] + b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        status, health = await read_answer(reader)
        assert status == 200 and health["status"] == "ok"
        writer.close()
    assert inflated == []
    assert arena.server.storage is not None
    assert await arena.server.storage.bots() == []  # no guest
    # any coding but identity; identity is no coding at all
    for coding in ("deflate", "br", "x-gzip, identity", "GZIP"):
        status, error, _ = await asyncio.to_thread(
            _post, arena.server.port, "/api/grammars/check", {"text": "S->a"},
            headers={"Content-Encoding": coding})
        assert status == 415 and error["code"] == "compressed-body", coding
    status, answer, _ = await asyncio.to_thread(
        _post, arena.server.port, "/api/grammars/check", {"text": "S->a"},
        headers={"Content-Encoding": "identity"})
    assert status == 200 and answer["ok"] is True


# -- issue 22, finding 6: DNS rebinding ------------------------------------------------------------


async def test_a_rebound_name_reaches_nothing(make_arena: Any) -> None:
    """A page of evil.example whose name resolves to the server: Host and Origin agree,
    so the origin check alone let it in. Every request to a name that is not the server's
    is 421, a browser's WebSocket handshake too; bots (no Origin) come by any name."""
    arena = await make_arena(web=WebConfig(server_names=("arena.example.org",),
                                           guests_per_client_minute=20))
    port = arena.server.port
    rebound = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
    for endpoint in STATE_CHANGING:
        status, error, _ = await asyncio.to_thread(
            _post, port, endpoint.path, {"name": "x", "text": "S->a"}, headers=rebound)
        assert status == 421 and error["code"] == "misdirected-request", endpoint.path
        assert "'evil.example'" in error["message"] and "--server-name" in error["message"]
    status, _headers, body = await asyncio.to_thread(request, port, "GET", "/api/me", None,
                                                     {"Host": "evil.example"})
    assert status == 421 and json.loads(body)["code"] == "misdirected-request"
    assert arena.server.storage is not None
    assert await arena.server.storage.bots() == []
    with pytest.raises(InvalidStatus) as refused:
        await connect(f"ws://evil.example:{port}/", host="127.0.0.1",
                      origin=f"http://evil.example:{port}")  # type: ignore[arg-type]
    assert refused.value.response.status_code == 421
    assert b"evil.example" in refused.value.response.body
    bot = await connect(f"ws://evil.example:{port}/", host="127.0.0.1",  # a bot: no Origin
                        subprotocols=[Encoding.JSON.subprotocol])  # type: ignore[list-item]
    await bot.close()
    # the server's own names: the configured one, localhost, any IP address
    for host in ("arena.example.org", f"ARENA.example.org.:{port}", f"localhost:{port}",
                 f"127.0.0.1:{port}", "[::1]", "192.0.2.7:80"):
        origin = f"http://{host}" if ":" in host and not host.startswith("[") else None
        headers = {"Host": host, **({"Origin": origin} if origin else {})}
        status, answer, _ = await asyncio.to_thread(_post, port, "/api/guest", headers=headers)
        assert status == 200, (host, answer)
    ws = await connect(f"ws://arena.example.org:{port}/", host="127.0.0.1",
                       origin=f"http://arena.example.org:{port}",  # type: ignore[arg-type]
                       subprotocols=[Encoding.JSON.subprotocol])  # type: ignore[list-item]
    await ws.close()


# -- issue 22, finding 7: replay answers are streamed ---------------------------------------------


@cache
def amplifying_log() -> str:
    """500 turns of the grammar S -> S x 100: a 30 KB log whose replay is about 12 MB of
    JSON, within every replay limit (the attack's: 55 KB to 32 MB)."""
    from arena.games.substitution.grammar import Grammar
    from arena.match import Match

    game = SubstitutionGame(Settings(Grammar.from_text("S->" + "S" * 100 + "\n"), 250))
    match = Match(game, ["a", "b"], seed=1, match_id="amplifier")
    match.run([_Grow(), _Grow()], [random.Random(1), random.Random(2)])
    return to_jsonl(match.record())


def _streamed_post(port: int, path: str, body: bytes, gzipped: bool) -> tuple[int, int, str]:
    """POST `body`, reading the answer a chunk at a time (inflating it if gzipped):
    status, bytes of the answer, its SHA-256. Nothing holds the whole answer."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", path, body=body, headers={
            "Content-Type": "text/plain", "Accept-Encoding": "gzip" if gzipped else "identity"})
        response = connection.getresponse()
        assert (response.getheader("Content-Encoding") == "gzip") == gzipped
        assert int(response.getheader("Content-Length", "0")) > 0  # a whole file, not chunks
        inflate = zlib.decompressobj(wbits=31) if gzipped else None
        digest, size = hashlib.sha256(), 0
        while chunk := response.read(65536):
            while chunk:  # inflated 64 KiB at a time (the answer compresses 400 to 1)
                data, chunk = ((inflate.decompress(chunk, 65536), inflate.unconsumed_tail)
                               if inflate else (chunk, b""))
                digest.update(data)
                size += len(data)
        return response.status, size, digest.hexdigest()
    finally:
        connection.close()


async def test_a_replay_answer_is_streamed_and_never_held_whole(
        arena: Arena, tmp_path: Path) -> None:
    """The server's Python memory while it sends a 12 MB replay answer, gzipped or not,
    peaks at a small part of it: the worker writes it to a file (gzipped there for a
    client that takes gzip) and the server sends it from there a chunk at a time
    (tracemalloc counts the test's client too)."""
    log = amplifying_log().encode()
    expected = tmp_path / "expected.json"
    assert replay_job(log.decode(), out=str(expected)).size == expected.stat().st_size
    assert expected.stat().st_size > 10 << 20 and len(log) < 40_000
    digest = hashlib.sha256(expected.read_bytes()).hexdigest()
    for gzipped in (False, True):
        tracemalloc.start()
        try:
            status, size, got = await asyncio.to_thread(
                _streamed_post, arena.server.port, "/api/replay", log, gzipped)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert status == 200 and (size, got) == (expected.stat().st_size, digest)
        assert peak < 3 << 20, f"{peak} bytes at the peak for a {size}-byte answer"
    assert arena.web is not None
    replays = arena.web.app[REPLAYS]
    assert replays.in_flight == 0
    assert replays.directory is not None and list(replays.directory.iterdir()) == []


async def test_a_client_that_does_not_read_its_replay_is_cut_off_and_frees_its_place(
        make_arena: Any) -> None:
    arena = await make_arena(web=WebConfig(replay_send_seconds=1))
    replays = arena.web.app[REPLAYS]
    log = amplifying_log().encode()
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)  # buffers hold < the answer
    client.connect(("127.0.0.1", arena.server.port))
    reader, writer = await asyncio.open_connection(sock=client)
    writer.write(b"POST /api/replay HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(log) + log)
    await wait_for(lambda: replays.in_flight == 1)
    await wait_for(lambda: replays.in_flight == 0)  # it never read: cut off, place freed
    async with asyncio.timeout(30):
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head)[1])  # type: ignore[index]
        body = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := await reader.read(65536):  # until the server ends the connection
                body += chunk
    assert status_of(head) == 200 and len(body) < length
    writer.close()
    assert list(replays.directory.iterdir()) == []


# -- issue 22, finding 4: deep and huge JSON ------------------------------------------------------


def _with_weights(weights: list[int]) -> str:
    """A small substitution game's log whose header claims these chance weights."""
    lines = to_jsonl(_played(SubstitutionGame(Settings.preset("medium", 3)))).splitlines()
    header = json.loads(lines[0])
    header["settings"]["weights"] = weights * len(header["settings"]["weights"])
    return "\n".join([json.dumps(header), *lines[1:]])


async def test_deep_or_huge_json_gets_a_400_naming_it_never_a_500(
        arena: Arena, caplog: pytest.LogCaptureFixture) -> None:
    """The three inputs that still got a 500: settings nested 10,000 deep, a log header
    nested 50,000 deep (a RecursionError, quoted), replay weights of 10**300 (an
    OverflowError in the dice); and weights just small enough for JSON whose sum the
    dice cannot draw from."""
    deep = "[" * 10_000 + "]" * 10_000
    status, error = await post(arena, "/api/settings/check",
                               raw=f'{{"game": "sim", "settings": {{"x": {deep}}}}}'.encode(),
                               headers={"Content-Type": "application/json"})
    assert status == 400 and error["message"] == "the body nests deeper than 32 levels", error
    header = '{"format": "arena-log", "version": 1, "x": ' + "[" * 50_000 + "]" * 50_000 + "}"
    status, error = await post(arena, "/api/replay", raw=header.encode())
    assert status == 400 and error["code"] == "bad-log", error
    assert error["message"].endswith("line 1: the JSON nests deeper than 32 levels")
    status, error = await post(arena, "/api/replay", raw=_with_weights([10**300]).encode())
    assert status == 400 and error["code"] == "bad-log", error
    assert "the number 10000000000000...000 (301 digits) at $.settings.weights[0] is beyond " \
           "+-2**53" in error["message"]
    status, error = await post(arena, "/api/replay", raw=_with_weights([2**40]).encode())
    assert status == 400 and error["code"] == "bad-log", error
    assert "the weights sum to" in error["message"] and "at most 2147483647" in error["message"]
    status, error = await post(arena, "/api/settings/check", {"game": "durak", "settings": {
        "cards": "0101", "weights": [10**300, 1, 1, 1]}})
    assert status == 400 and "(301 digits)" in error["message"], error
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


async def test_a_replay_that_fails_is_a_500_that_quotes_no_python(
        arena: Arena, caplog: pytest.LogCaptureFixture) -> None:
    assert arena.web is not None
    arena.web.app[REPLAYS].job = worker_jobs.replay_that_fails
    status, error = await post(arena, "/api/replay", raw=b"anything")
    assert status == 500 and error == {"code": "internal-error",
                                       "message": "the replay failed (the server logged it)"}
    assert "RuntimeError: internal detail" in caplog.text  # for the server's administrator
