"""A real `arena serve` in a subprocess on a free loopback port, for tests that drive it
from outside the test's event loop (a browser, schemathesis)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.waiting import wait_for_sync

if TYPE_CHECKING:
    from clients import ArenaClient

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def arena_serve(*args: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run ``arena serve --port PORT *args`` until the block ends; its URL (once it
    answers ``/healthz``) and its process (its output in ``stdout``, read it after)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", str(port), *args],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                return True
        except OSError:
            if process.poll() is None:
                return False
            output = process.stdout.read().decode() if process.stdout else ""
            pytest.fail(f"the server did not start: {output}")

    try:
        wait_for_sync(healthy, 60, "the server answers /healthz")
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def bots_in_background(clients: Sequence[ArenaClient]) -> Iterator[None]:
    """Run SDK `clients` on an event loop of their own in a thread (the test's own thread
    drives a browser) until the block ends; the block begins once all are connected."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    running = [asyncio.run_coroutine_threadsafe(client.run(), loop) for client in clients]
    try:
        for client in clients:
            wait_for_sync(client.connected.is_set, 30, "the bots are connected")
        yield
    finally:
        for client, run in zip(clients, running, strict=True):
            asyncio.run_coroutine_threadsafe(client.stop(), loop).result(timeout=30)
            run.result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
