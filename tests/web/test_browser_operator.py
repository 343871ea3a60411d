"""What an operator sees on the operators' page (#/operator): the health card, people,
bots and seasons; a person who is not an operator, and a visitor signed in as nobody, are
told the page is not theirs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from arena.passwords import Passwords
from arena.server.health import health_report
from arena.storage.sqlite import SQLiteDatabase

from .browser import accessible, browser, no_overflow, open_page, shot, visitor, wait_phase
from .live import arena_serve
from .test_browser_accounts import PASSWORD

__all__ = ["browser", "server", "visitor"]  # the fixtures this module uses


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("operator")
    database = base / "arena.sqlite"
    storage = SQLiteDatabase(database)
    try:
        hashed = Passwords(threads=1).hash_now(PASSWORD)
        storage.add_person("olga", hashed, operator=True)
        storage.add_person("ann", hashed)
        storage.add_owned_bot("ann", "ann-bot", max_bots=5)
    finally:
        storage.close()
    seasons = base / "seasons.toml"
    seasons.write_text('[[seasons]]\nname = "course"\nladder = "substitution"\n'
                       'start = 2020-01-01T00:00:00Z\nend = 2099-01-01T00:00:00Z\n')
    with arena_serve("--db", str(database), "--seasons", str(seasons),
                     "--guests-per-client", "1000") as (url, process):
        yield {"url": url, "db": database}
    if process.stdout:
        process.stdout.close()


def sign_in(page: Any, url: str, name: str) -> None:
    page.goto(url + "/#/account")
    wait_phase(page, "account")
    page.fill("#signin-name", name)
    page.fill("#signin-password", PASSWORD)
    page.click("#signin")
    wait_phase(page, "mine")


def test_an_operator_reads_health_people_and_bots(browser: Any, server: dict[str, Any],
                                                  visitor: dict[str, str]) -> None:
    for page in open_page(browser, visitor, "desktop"):
        page.goto(server["url"] + "/#/operator")
        wait_phase(page, "not-operator")
        assert "for the server's operators" in page.inner_text("#not-operator")
        sign_in(page, server["url"], "olga")
        page.click("#operator-link")
        wait_phase(page, "operator")
        assert page.inner_text("#signed-in") == "Signed in as olga."
        assert page.inner_text("#health dd[data-fact='Status']") == "working"
        assert page.inner_text("#health dd[data-fact='Storage']").endswith("arena.sqlite")
        assert "GiB free of" in page.inner_text("#health dd[data-fact='Disk']")
        people = page.locator("#people tr").all_inner_texts()
        assert [row.split("\t")[0] for row in people[1:]] == ["ann", "olga"]
        assert [row.split("\t")[3] for row in people[1:]] == ["no", "yes"]
        bots = {row.split("\t")[0]: row.split("\t") for row in
                page.locator("#bots tr").all_inner_texts()[1:]}
        assert bots["ann-bot"][1:4] == ["ann", "1", "no"]  # its owner, version, not connected
        assert page.inner_text("#guests").endswith(": 1")  # the visitor's, not listed
        assert page.inner_text("#no-games") == "No games are being played."
        seasons = page.locator("#seasons tr").all_inner_texts()
        assert seasons[1].split("\t")[:3] == ["course", "substitution", "running"]
        no_overflow(page)
        accessible(page)
        shot(page, "operator")


def test_a_person_who_is_not_an_operator_is_told_so(browser: Any, server: dict[str, Any],
                                                    visitor: dict[str, str]) -> None:
    for page in open_page(browser, visitor, "desktop"):
        sign_in(page, server["url"], "ann")
        assert page.locator("#operator-link").count() == 0
        page.goto(server["url"] + "/#/operator")
        wait_phase(page, "not-operator")
        assert "for the server's operators" in page.inner_text("#not-operator")
        assert page.locator("#people").count() == 0


def test_the_operators_page_speaks_russian_on_a_phone(browser: Any, server: dict[str, Any],
                                                     visitor: dict[str, str]) -> None:
    for page in open_page(browser, visitor, "phone", locale="ru-RU"):
        page.goto(server["url"] + "/#/operator")
        wait_phase(page, "not-operator")
        assert "для операторов сервера" in page.inner_text("#not-operator")
        sign_in(page, server["url"], "olga")
        page.goto(server["url"] + "/#/operator")
        wait_phase(page, "operator")
        assert page.inner_text("#health-title") == "Состояние"
        assert page.inner_text("#people-title") == "Люди"
        assert page.inner_text("#health-status") == "работает"
        no_overflow(page)  # the tables scroll in their own boxes on a phone
        accessible(page)


def _answering(body: dict[str, Any]) -> Any:
    """A route handler that answers `body` as JSON."""
    return lambda route: route.fulfill(json=body)


def test_an_unhealthy_servers_reason_reads_in_russian(browser: Any, server: dict[str, Any],
                                                     visitor: dict[str, str]) -> None:
    """Why the server is unhealthy reads in the page's language from its ``reason_code``
    (issue 28); the database's own words follow, marked English. (The page is given the
    report a failing database makes, `health_report`'s.)"""
    failing = health_report(closing=False, failure="OperationalError: database or disk is full",
                            failure_code="storage-failed", games=None, sessions={},
                            ladder=True, recovered=0)
    resuming = health_report(closing=False, failure="resuming the games a stop or a crash "
                             "left running", failure_code="resuming-games", games=None,
                             sessions={}, ladder=True, recovered=0)
    for page in open_page(browser, visitor, "desktop", locale="ru-RU"):
        sign_in(page, server["url"], "olga")
        for report, said in [
                (failing, ("неисправен (базой данных нельзя пользоваться: "
                           "OperationalError: database or disk is full)")),
                (resuming, ("неисправен (возобновляет партии, оставшиеся после остановки "
                            "или сбоя)"))]:
            page.unroute("**/api/operator/health")
            page.route("**/api/operator/health", _answering({
                **report, "operator": "olga", "storage": "arena.sqlite", "disk": None}))
            page.goto(server["url"] + "/#/operator?" + report["reason_code"])
            wait_phase(page, "operator")
            assert page.inner_text("#health-status") == said
            english = page.locator("#health-status [lang=en]")
            assert english.count() == (1 if report is failing else 0)
