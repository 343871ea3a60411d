"""The ladder page of a server with several ladders (`arena serve --config` with
``[[ladders]]``): a selector of the ladders, each ladder's own leaderboard and chart,
the ladder shown kept in the address; read as a person reads the page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match import Match
from arena.registry import default_registry
from arena.storage.sqlite import SQLiteDatabase

from .browser import BOTH, axe_violations, browser, no_overflow, page, shot, visitor, wait_phase
from .live import arena_serve

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses

CONFIG = """
workers = 1
[[ladders]]
name = "sim-6"
game = "sim"
settings = { vertices = 6 }

[[ladders]]
name = "sim-5-practice"
game = "sim"
settings = { vertices = 5 }
rated = false

[[ladders]]
name = "durak-8"
game = "durak"
settings = { cards = "01101001" }
"""


def _seed(path: Path) -> None:
    """Rated games on two ladders: sim-6 between ann and bob, durak-8 between cid and dan."""
    registry = default_registry()
    storage = SQLiteDatabase(path)
    for ladder, game_name, settings, bot, players in (
            ("sim-6", "sim", {"vertices": 6}, "sim-random", ("ann", "bob")),
            ("durak-8", "durak", {"cards": "01101001"}, "durak-greedy", ("cid", "dan"))):
        game = registry.load_game(game_name, settings)
        for index in range(2):
            seats = list(players) if index == 0 else list(players[::-1])
            match = Match(game, seats, seed=index, match_id=f"{ladder}-{index}")
            match.run([registry.make_bot(game, bot), registry.make_bot(game, bot)],
                      [random.Random(index), random.Random(index + 5)])
            record = match.record()
            storage.start_game(record, ladder=True, pair=None, ladder_name=ladder)
            storage.finish_game(record, rated=True)
    storage.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("ladders")
    _seed(base / "arena.sqlite")
    config = base / "arena.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with arena_serve("--config", str(config), "--db", str(base / "arena.sqlite"),
                     "--guests-per-client", "1000") as (url, process):
        yield {"url": url}
    if process.stdout:
        process.stdout.close()


def rows(page: Any) -> list[list[str]]:
    """The leaderboard as a person reads it: its rows' cells."""
    return [[cell.strip() for cell in row.split("\t")]
            for row in page.locator("#leaderboard tr").all_inner_texts()[1:]]


@BOTH
def test_each_ladder_has_its_own_leaderboard_chosen_on_the_page(page: Any,
                                                                server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    choices = page.locator("#ladder-select option").all_inner_texts()
    assert [choice.split(" · ")[0] for choice in choices] == ["sim-6", "sim-5-practice",
                                                              "durak-8"]
    assert "Durak" in choices[2]  # each with its game's title
    assert page.locator("#ladder-select").input_value() == "sim-6"  # the first ladder
    assert "Sim" in page.inner_text("#ladder-about")
    assert sorted(row[1] for row in rows(page)) == ["ann", "bob"]
    assert page.locator("#rating-chart polyline").count() == 2
    no_overflow(page)
    assert axe_violations(page) == []  # the selector is labelled, the page readable
    shot(page, "ladders")

    page.select_option("#ladder-select", "durak-8")
    page.wait_for_function("() => location.hash === '#/ladder?ladder=durak-8'")
    wait_phase(page, "ladder")
    page.wait_for_function("() => document.querySelector('#leaderboard') !== null"
                           " && document.querySelector('#leaderboard').innerText.includes('cid')")
    assert sorted(row[1] for row in rows(page)) == ["cid", "dan"]
    assert "Durak" in page.inner_text("#ladder-about")
    assert [int(row[0]) for row in rows(page)] == [1, 2]

    page.select_option("#ladder-select", "sim-5-practice")
    page.wait_for_function("() => location.hash === '#/ladder?ladder=sim-5-practice'")
    page.wait_for_function("() => document.body.dataset.phase === 'ladder'"
                           " && document.querySelector('#ladder-select').value === 'sim-5-practice'")
    about = page.inner_text("#ladder-about")
    assert "unrated" in about and "no rated games yet" in page.inner_text("main")
    assert page.locator("#leaderboard").count() == 0

    page.goto(server["url"] + "/#/ladder?ladder=durak-8")  # the address shows that ladder
    wait_phase(page, "ladder")
    assert page.locator("#ladder-select").input_value() == "durak-8"
    assert sorted(row[1] for row in rows(page)) == ["cid", "dan"]
