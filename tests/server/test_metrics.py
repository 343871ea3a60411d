"""``/metrics`` (arena.web.endpoints.metrics): the process's Prometheus metrics, read
after a game, for operators only."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from tests.waiting import wait_for

from .conftest import SUBST


def scrape(arena, token: str | None) -> tuple[int, str, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{arena.server.port}/metrics")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def samples(text: str) -> dict[str, float]:
    """Each sample by its name and labels (``arena_moves_total``,
    ``arena_storage_seconds_count{backend="sqlite"}``)."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found


async def test_the_metrics_after_a_game(arena) -> None:
    token = await arena.add_bot("prometheus", operator=True)
    await arena.client("alice", "random")
    await arena.client("bob", "random")
    status, kind, text = await asyncio.to_thread(scrape, arena, token)
    assert status == 200 and kind.startswith("text/plain; version=0.0.4")
    before = samples(text)
    record = await arena.server.play_game("substitution", SUBST, ["alice", "bob"], seed=3)

    status, _, text = await asyncio.to_thread(scrape, arena, token)
    after = samples(text)
    assert after["arena_connected_bots"] == 2
    assert after["arena_games_in_flight"] == 0
    assert after["arena_games_finished_total"] == before["arena_games_finished_total"] + 1
    assert after["arena_moves_total"] - before["arena_moves_total"] == len(record.turns) > 0
    calls = 'arena_storage_seconds_count{backend="sqlite"}'
    assert after[calls] > before[calls]  # the game was stored, and its calls timed
    assert after['arena_storage_seconds_bucket{backend="sqlite",le="+Inf"}'] == after[calls]
    assert after["arena_event_loop_lag_seconds_count"] >= 2  # measured at each scrape
    assert after["arena_house_bot_jobs"] == 0 and after["arena_house_bot_workers"] >= 1
    assert "process_open_fds" in after  # prometheus-client's own, on Linux
    assert len(text) < 20_000  # the budget: a fixed set of series


async def test_a_live_game_counts_its_moves_as_they_come(arena) -> None:
    token = await arena.add_bot("prometheus", operator=True)
    await arena.client("alice", "random")
    await arena.client("bob", "random")
    live = arena.server.start_game("substitution", {**SUBST, "moves": 200}, ["alice", "bob"])
    await wait_for(lambda: live.turn >= 4)
    _, _, text = await asyncio.to_thread(scrape, arena, token)
    seen = samples(text)
    assert seen["arena_games_in_flight"] == 1
    assert seen["arena_moves_total"] >= 4


async def test_the_metrics_are_for_operators_only(arena) -> None:
    bot = await arena.add_bot("alice")
    status, kind, text = await asyncio.to_thread(scrape, arena, None)
    assert status == 401 and kind.startswith("application/json") and "operator" in text
    status, _, text = await asyncio.to_thread(scrape, arena, bot)
    assert status == 403 and "not an operator's" in text
    status, _, _ = await asyncio.to_thread(scrape, arena, "not a token")
    assert status == 403
