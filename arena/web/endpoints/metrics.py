"""``/metrics``: the process's Prometheus metrics, for the operators (docs/cluster.md,
"Metrics").

The page is the process-wide registry (`arena.metrics`: storage latency, event-loop
lag, prometheus-client's process metrics) followed by what the server counts anyway,
read when asked (`ServerCollector`). It is for operators only: a request must carry an
operator account's token as ``Authorization: Bearer TOKEN`` (Prometheus:
``authorization: {credentials_file: ...}``); a token once accepted is remembered for
`TOKEN_MEMORY` seconds, so a scrape costs no database query. Its budget: no series is
labelled by anything a stranger names, so the page is a few KB and is made in well
under a millisecond, whatever the load.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from aiohttp import web
from cachetools import TTLCache
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from arena.metrics import probe_loop, watch_loop
from arena.storage.interface import hash_token
from arena.web.http import ApiError
from arena.web.routes import Endpoint, service_of

if TYPE_CHECKING:
    from arena.service import ArenaService

__all__ = ["ENDPOINTS", "TOKEN_MEMORY", "ServerCollector"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""Prometheus's text format (version 0.0.4, what every Prometheus reads)."""

TOKEN_MEMORY = 60.0
"""Seconds an operator's token, once accepted, is taken without asking the database
(a revoked token is refused at the latest this long after)."""

_accepted: TTLCache[str, bool] = TTLCache(maxsize=64, ttl=TOKEN_MEMORY)


class ServerCollector(Collector):
    """What the server counts anyway (`ArenaService.counts`), as metrics, read when
    collected."""

    def __init__(self, service: ArenaService) -> None:
        self.service = service

    def collect(self) -> Iterator[Metric]:
        counts = self.service.counts()
        yield GaugeMetricFamily("arena_connected_bots", "Bots connected to this process",
                                value=counts.connected_bots)
        yield GaugeMetricFamily("arena_games_in_flight", "Games this process plays now",
                                value=counts.games_in_flight)
        yield CounterMetricFamily(
            "arena_moves", "Moves this process accepted (rate(): moves per second)",
            value=counts.moves)
        yield CounterMetricFamily("arena_games_finished", "Games this process finished",
                                  value=counts.games_finished)
        yield GaugeMetricFamily(
            "arena_house_bot_jobs", "House-bot jobs given to the workers and not done "
            "(running or waiting: the queue)", value=counts.house_bot_jobs)
        yield GaugeMetricFamily("arena_house_bot_workers", "Worker processes for house bots",
                                value=counts.house_bot_workers)
        yield GaugeMetricFamily(
            "arena_hosted_slots_used", "Hosted slots held now (the gateway running the "
            "hosted bots of a cluster: by every host's games)", value=counts.hosted_slots_used)
        yield GaugeMetricFamily("arena_hosted_slots_peak",
                                "The most hosted slots held at once since the process started",
                                value=counts.hosted_slots_peak)
        yield GaugeMetricFamily("arena_hosted_games_waiting",
                                "Games waiting for hosted slots (the queue)",
                                value=counts.hosted_games_waiting)


async def _check_operator(request: web.Request) -> None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    challenge = {"WWW-Authenticate": 'Bearer realm="arena metrics"'}
    if scheme.lower() != "bearer" or not token:
        raise ApiError(401, "the metrics are for operators: send an operator's token as "
                       "Authorization: Bearer TOKEN", code="unauthorized", headers=challenge)
    key = hash_token(token)
    if key in _accepted:
        return
    account = await service_of(request).records.authenticate(token)
    if account is None or not account.operator:
        raise ApiError(403, "the metrics are for operators: this token is not an operator's",
                       code="forbidden")
    _accepted[key] = True


async def metrics(request: web.Request) -> web.Response:
    """The process's metrics in Prometheus's text format (operators only)."""
    await _check_operator(request)
    watch_loop()  # from the first scrape on, the lag is measured all the time
    await probe_loop()
    served = CollectorRegistry(auto_describe=False)
    served.register(ServerCollector(service_of(request)))
    body = generate_latest(REGISTRY) + generate_latest(served)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})


ENDPOINTS = (
    Endpoint("GET", "/metrics", metrics, "The process's Prometheus metrics (operators only)",
             "status", content="text/plain", answers={
                 200: "connected bots, games in flight, moves, storage latency, event-loop "
                      "lag, house-bot jobs, the process's CPU, memory and open files",
                 401: "no token (Authorization: Bearer TOKEN)",
                 403: "a token that is not an operator's"}),
)
