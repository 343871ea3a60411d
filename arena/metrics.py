"""The process's Prometheus metrics (prometheus-client), served at ``/metrics``
(docs/cluster.md, "Metrics").

What any part of a process measures as it goes lives here, in prometheus-client's
process-wide registry beside its own process metrics (CPU, memory, open files): the
storage's latency (`STORAGE_SECONDS`, timed by both storages around each call), the
bus's messages and request latency (`BUS_MESSAGES`, `BUS_REQUEST_SECONDS`, counted by
both buses), the shared limits' failures (`SHARED_LIMITS_FAILURES`) and the event
loop's lag (`LOOP_LAG_SECONDS`, `watch_loop`). What a server counts anyway (connected
bots, games, moves, house-bot jobs) is read from it when ``/metrics`` is asked
(`arena.web.endpoints.metrics`). No series is labelled by a bot, a game or anything a
stranger names, so the page has a fixed size (a few KB) whatever the load.

This module imports nothing of the arena: storage, the bus, the server and the web all
use it.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Iterator

from prometheus_client import REGISTRY, Counter, Histogram
from prometheus_client.metrics_core import CounterMetricFamily
from prometheus_client.registry import Collector

__all__ = [
    "BUS_MESSAGES", "BUS_REQUEST_SECONDS", "LOOP_LAG_INTERVAL", "LOOP_LAG_SECONDS",
    "SHARED_LIMITS_FAILURES", "STORAGE_SECONDS", "probe_loop", "watch_loop",
]

STORAGE_SECONDS = Histogram(
    "arena_storage_seconds", "Seconds a storage call took, as its caller waited for it",
    ["backend"], registry=REGISTRY,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))


class Tally:
    """One series of a `Tallies`: a count that `inc` adds to."""

    __slots__ = ("created", "value")

    def __init__(self) -> None:
        self.value = 0.0
        self.created = time.time()

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount


class Tallies(Collector):
    """A counter for what happens on every message (the bus's): its series count in
    plain numbers of the event loop's thread, an addition each, and are read when the
    registry is collected; the page shows them as prometheus-client's `Counter` does
    (``_total``, ``_created``). A `Counter`'s ``inc`` takes a lock and checks its
    arguments: 0.6 us, several times a move on each of a cluster's roles (issue 24)."""

    def __init__(self, name: str, documentation: str, labels: tuple[str, ...]) -> None:
        self.name, self.documentation, self.label_names = name, documentation, labels
        self._series: dict[tuple[str, ...], Tally] = {}

    def labels(self, *values: str) -> Tally:
        """The series of these label values (made at its first use)."""
        return self._series.setdefault(values, Tally())

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(self.name, self.documentation, labels=self.label_names)
        for values, tally in list(self._series.items()):
            family.add_metric(values, tally.value, created=tally.created)
        yield family


BUS_MESSAGES = Tallies(
    "arena_bus_messages", "Messages of the bus's publish/subscribe: published by this "
    "process, delivered to its handlers, dropped because a handler fell behind",
    ("bus", "way"))
REGISTRY.register(BUS_MESSAGES)

BUS_REQUEST_SECONDS = Histogram(
    "arena_bus_request_seconds", "Seconds from a request on the bus to its answer",
    ["bus"], registry=REGISTRY,
    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1.0, 10.0))

SHARED_LIMITS_FAILURES = Counter(
    "arena_shared_limits_failures", "Calls to the shared limits' Redis that failed or timed "
    "out: the process enforced the limits on its own counts meanwhile", registry=REGISTRY)

LOOP_LAG_SECONDS = Histogram(
    "arena_event_loop_lag_seconds",
    "How late a callback the event loop was to run ran: what every message waits on top",
    registry=REGISTRY,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0))

LOOP_LAG_INTERVAL = 0.5
"""Seconds between two measurements of the loop's lag (`watch_loop`)."""

_watched: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def watch_loop(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Measure the running (or given) loop's lag every `LOOP_LAG_INTERVAL` seconds from
    now on, by a timer that notes how late it fires (idempotent per loop; no task, so
    nothing is left to stop when the loop closes)."""
    loop = loop or asyncio.get_running_loop()
    if loop in _watched:
        return
    _watched.add(loop)

    def tick(expected: float) -> None:
        now = loop.time()
        LOOP_LAG_SECONDS.observe(max(0.0, now - expected))
        loop.call_at(now + LOOP_LAG_INTERVAL, tick, now + LOOP_LAG_INTERVAL)

    start = loop.time() + LOOP_LAG_INTERVAL
    loop.call_at(start, tick, start)


async def probe_loop() -> float:
    """The running loop's lag now: how long a callback scheduled now waits for its turn
    (also noted in `LOOP_LAG_SECONDS`)."""
    loop = asyncio.get_running_loop()
    ran: asyncio.Future[float] = loop.create_future()
    start = loop.time()

    def run() -> None:
        if not ran.done():
            ran.set_result(loop.time())

    loop.call_soon(run)
    lag = max(0.0, await ran - start)
    LOOP_LAG_SECONDS.observe(lag)
    return lag
