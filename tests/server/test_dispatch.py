"""The port's dispatcher: one request head decides between websockets and aiohttp."""

from __future__ import annotations

import asyncio

import pytest

from arena.server.dispatch import Head, HeadError, parse_head
from tests.server.conftest import Arena
from tests.waiting import wait_for


def test_a_head_is_read_when_it_is_complete() -> None:
    assert parse_head(b"GET / HTTP/1.1\r\nHost: x\r\n", 8192) is None
    assert parse_head(b"GET /a?b=c HTTP/1.1\r\nHost: x\r\n\r\nbody", 8192) == Head(
        "GET", "/a?b=c", websocket=False)
    assert parse_head(b"POST /api/guest HTTP/1.0\r\n\r\n", 8192) == Head(
        "POST", "/api/guest", websocket=False)


@pytest.mark.parametrize("upgrade", [b"websocket", b"WebSocket", b"h2c, websocket",
                                     b"websocket ,foo"])
def test_an_upgrade_naming_websocket_goes_to_websockets(upgrade: bytes) -> None:
    head = b"GET / HTTP/1.1\r\nHost: x\r\nuPgRaDe: " + upgrade + b"\r\n\r\n"
    assert parse_head(head, 8192) == Head("GET", "/", websocket=True)


def test_other_upgrades_go_to_aiohttp() -> None:
    assert parse_head(b"GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n", 8192) == Head(
        "GET", "/", websocket=False)
    assert parse_head(b"GET / HTTP/1.1\r\nX-Upgrade: websocket\r\n\r\n", 8192) == Head(
        "GET", "/", websocket=False)


@pytest.mark.parametrize(("head", "code"), [
    (b"GET / HTTP/2\r\n\r\n", "bad-request-line"),
    (b"GET  / HTTP/1.1\r\n\r\n", "bad-request-line"),
    (b"G(T / HTTP/1.1\r\n\r\n", "bad-request-line"),
    (b"GET /\xff HTTP/1.1\r\n\r\n", "bad-request-line"),
    (b"GET / HTTP/1.1\r\n folded: x\r\n\r\n", "bad-header"),
    (b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "bad-header"),
    (b"GET / HTTP/1.1\r\nX: a\x7fb\r\n\r\n", "bad-header"),
    (b"GET / HTTP/1.1\r\nUpgrade: websocket\r\nUpgrade: websocket\r\n\r\n", "bad-header"),
])
def test_malformed_heads_are_400(head: bytes, code: str) -> None:
    with pytest.raises(HeadError) as refused:
        parse_head(head, 8192)
    assert refused.value.status == 400 and refused.value.code == code


def test_a_head_beyond_the_limit_is_431_even_before_it_ends() -> None:
    with pytest.raises(HeadError) as refused:
        parse_head(b"GET / HTTP/1.1\r\nX: " + b"a" * 200, 100)
    assert refused.value.status == 431
    assert parse_head(b"GET / HTTP/1.1\r\nX: " + b"a" * 60 + b"\r\n\r\n", 100) is not None


async def test_close_ends_http_connections_and_connections_without_a_head(
        arena: Arena) -> None:
    port = arena.server.port
    kept_alive = await asyncio.open_connection("127.0.0.1", port)
    kept_alive[1].write(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    async with asyncio.timeout(10):
        assert (await kept_alive[0].readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
    silent = await asyncio.open_connection("127.0.0.1", port)
    await wait_for(lambda: arena.app.listener.pending, what="the server accepted it")
    await asyncio.gather(arena.app.close(), arena.app.close())  # twice, at once
    await arena.app.close()
    async with asyncio.timeout(10):
        await kept_alive[0].read()  # closed: EOF, not a hang
        assert await silent[0].read() == b""
    assert not arena.app.listener.pending
    for _, writer in (kept_alive, silent):
        writer.close()
