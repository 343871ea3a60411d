"""What a person sees of the seasons: the list with each season's phase, and an ended
season's page with its frozen standings, its final's ranking and champion (played by
three house bots in the `arena serve` under test), and the standings' downloads."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from arena.seasons import Standing
from arena.storage.sqlite import SQLiteDatabase

from .browser import (
    BOTH,
    accessible,
    browser,
    no_overflow,
    open_page,
    page,
    shot,
    visitor,
    wait_phase,
)
from .live import arena_serve
from .test_browser_i18n import names_of, reads_russian
from .test_seasons import seed_ratings

CONNECTED_REPORT: dict[str, Any] = {  # a final of connected bots as the server stores it (test_connected_finals.py)
    "tournament": None, "mode": "connected", "format": "round-robin", "games": 1, "total": 2,
    "bots": ["ann", "bob"], "champion": "ann", "played": {}, "forfeits": {}, "rounds": None,
    "ranking": [{"rank": rank, "bot": bot, "season_rank": rank, "points": 2.0 * wins,
                 "games": 2, "wins": 2 * wins, "losses": 2 - 2 * wins, "draws": 0, "elo": None}
                for rank, bot, wins in ((1, "ann", 1), (2, "bob", 0))],
    "pairings": [{"bots": ["ann", "bob"], "pentanomial": [0, 0, 0, 0, 1], "points": [2.0, 0.0],
                  "elo": None, "elo_ci": [None, None]}]}


def seed_connected_final(path: Any) -> None:
    """A past season (no longer configured) whose final of connected bots is over."""
    database = SQLiteDatabase(path)
    standings = [Standing(rank, bot, 25.0, 1.0, 4, 2, 2, 0, True)
                 for rank, bot in ((1, "ann"), (2, "bob"))]
    database.freeze_season("winter", "sim", standings, 1.0)
    database.claim_season_final("winter", 1.0, stale_before=2.0)
    database.set_season_final("winter", "finished", CONNECTED_REPORT, 2.0)
    database.close()

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses

NOW = datetime.now(UTC)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("seasons")
    seed_ratings(base / "arena.sqlite")
    seed_connected_final(base / "arena.sqlite")
    (base / "tournaments").mkdir()
    (base / "seasons.toml").write_text(f"""
[[seasons]]
name = "spring"
ladder = "sim"
start = {_iso(NOW - timedelta(days=30))}
end = {_iso(NOW - timedelta(days=1))}
min_games = 2
final = {{ format = "round-robin", top = 3, games = 1 }}

[[seasons]]
name = "summer"
ladder = "sim"
start = {_iso(NOW - timedelta(days=1))}
end = {_iso(NOW + timedelta(days=30))}
""", encoding="utf-8")
    with arena_serve("--db", str(base / "arena.sqlite"), "--game", "sim", "--settings",
                     '{"vertices": 5}', "--seasons", str(base / "seasons.toml"),
                     "--tournaments", str(base / "tournaments"),
                     "--guests-per-client", "1000") as (url, process):
        yield {"url": url}
    if process.stdout:
        process.stdout.close()


@BOTH
def test_a_season_s_standings_and_final_as_a_person_reads_them(page: Any,
                                                               server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/seasons")
    wait_phase(page, "seasons")
    rows = page.locator("#season-list tr[data-season]")
    assert rows.count() == 3  # spring, summer, and the past winter
    summer = page.locator('#season-list tr[data-season="summer"]')
    assert summer.locator(".phase").inner_text() == "running"
    no_overflow(page)
    accessible(page)
    page.get_by_role("link", name="spring").click()
    # the final is played in the server's worker: its ranking shows once it is over
    page.wait_for_selector("#final-ranking")
    wait_phase(page, "season")
    assert page.locator("h1").inner_text() == "Season spring"
    assert page.locator("#season-phase").inner_text().startswith("over · ladder sim")
    assert "Final standings (frozen at the end)" in page.locator("main").inner_text()
    standings = page.locator("#season-standings tr")
    assert standings.count() == 5  # a heading and four bots
    first = standings.nth(1).locator("td")
    assert first.nth(0).inner_text() == "1" and first.nth(1).inner_text().endswith("(house bot)")
    last = standings.nth(4).locator("td")
    assert last.nth(0).inner_text() == "—" and last.nth(1).inner_text() == "alice"  # one game
    champion = page.locator("#final-champion").inner_text()
    ranking = page.locator("#final-ranking tr")
    assert ranking.count() == 4
    top = ranking.nth(1).locator("td")
    assert champion == f"Champion: {top.nth(1).inner_text()}"
    assert page.get_by_role("link", name="The final's full report (tables, Elo, pairings)") \
        .get_attribute("href").startswith("#/tournament?name=season-spring-")
    csv_link = page.get_by_role("link", name="CSV")
    with urllib.request.urlopen(server["url"] + csv_link.get_attribute("href"),
                                timeout=10) as answer:
        lines = answer.read().decode("utf-8").splitlines()
    assert lines[0].startswith("rank,bot,rating") and len(lines) == 5
    no_overflow(page)
    accessible(page)
    shot(page, "season")
    # a final of connected bots, played by the server: its pairings instead of a link
    page.goto(server["url"] + "/#/season?name=winter")
    page.wait_for_selector("#final-pairings")
    wait_phase(page, "season")
    assert page.locator("#final-champion").inner_text() == "Champion: ann"
    pairs = page.locator("#final-pairings tr")
    assert pairs.count() == 2  # a heading and one pairing
    cells = pairs.nth(1).locator("td")
    assert cells.nth(0).inner_text() == "ann – bob" and cells.nth(1).inner_text() == "2 – 0"
    assert cells.nth(2).inner_text() == "—"  # no Elo from one pair
    assert page.get_by_role("link", name="The final's full report (tables, Elo, pairings)") \
        .count() == 0
    no_overflow(page)
    accessible(page)


def test_the_season_pages_speak_russian(browser: Any, visitor: dict[str, str],
                                        server: dict[str, Any]) -> None:
    for russian in open_page(browser, visitor, "desktop", locale="ru-RU"):
        russian.goto(server["url"] + "/#/season?name=summer")
        wait_phase(russian, "season")
        assert russian.locator("h1").inner_text() == "Сезон summer"
        assert russian.locator("#season-phase").inner_text().startswith("идёт · рейтинг sim")
        assert "Таблица сейчас (фиксируется в конце)" in russian.locator("main").inner_text()
        assert russian.get_by_role("link", name="Сезоны").is_visible()
        seasons = {"spring", "summer", "winter", "sim", "CSV", "JSON", "UTC", "alice", "ann",
                   "bob"}  # names, formats
        for path in ("/season?name=summer", "/seasons", "/season?name=spring",
                     "/season?name=winter"):
            russian.goto(server["url"] + "/#" + path)
            wait_phase(russian, "season", "seasons")
            reads_russian(russian, sorted(set(names_of(russian)) | seasons), path)
