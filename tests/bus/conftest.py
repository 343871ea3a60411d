"""The bus fixtures: every test of the shared suite runs on both buses.

The NATS bus (``$ARENA_TEST_NATS``, by default the project machines'
``nats://127.0.0.1:4222``) gets a prefix of its own (``arena_test_<random>``), so its
subjects and durable queues are seen by no other test; its JetStream streams are
deleted afterwards. A machine without NATS fails these tests with the way to get it
(``make services``), never skips them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator

import nats
import pytest

from arena.bus import Bus, BusFailure, open_bus

NATS = os.environ.get("ARENA_TEST_NATS", "nats://127.0.0.1:4222")
"""The NATS server (with JetStream) the tests use."""

BACKENDS = ("local", "nats")


def nats_url(prefix: str) -> str:
    return f"{NATS}?prefix={prefix}"


async def drop_streams(prefix: str) -> None:
    """Delete the JetStream streams of the queues under `prefix`."""
    client = await nats.connect(NATS)
    try:
        manager = client.jetstream()._jsm
        for info in await manager.streams_info():
            if info.config.name and info.config.name.startswith(f"{prefix}_"):
                await manager.delete_stream(info.config.name)
    finally:
        await client.close()


@contextlib.asynccontextmanager
async def nats_prefix() -> AsyncIterator[str]:
    """A fresh prefix on `NATS`, its queues deleted afterwards."""
    prefix = "arena_test_" + secrets.token_hex(6)
    try:
        yield prefix
    finally:
        await drop_streams(prefix)


async def connect(url: str) -> Bus:
    try:
        return await open_bus(url)
    except BusFailure as error:
        pytest.fail(f"NATS does not answer at {NATS} ({error}): run 'make services' "
                    "(or set ARENA_TEST_NATS to a server the tests may use)")


@pytest.fixture(params=BACKENDS)
async def bus(request: pytest.FixtureRequest) -> AsyncIterator[Bus]:
    """A fresh bus of each kind, closed (and its queues deleted) afterwards."""
    if request.param == "local":
        opened = await open_bus("local:")
        try:
            yield opened
        finally:
            await opened.close()
        return
    async with nats_prefix() as prefix:
        opened = await connect(nats_url(prefix))
        try:
            yield opened
        finally:
            await opened.close()
