"""A person challenges a connected bot from the ladder page, in a real Chromium: the
button, the play page that waits for the answer, the game in the seat it chose."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from arena.storage.sqlite import SQLiteDatabase
from clients import ArenaClient, BuiltinBot

from .browser import _seed_database, browser, page, visitor, wait_phase
from .live import arena_serve, bots_in_background

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server whose ladder has rated games of alpha and beta, with alpha connected
    (out of the pairing, accepting every challenge) and beta not, and gamma connected
    with no rated game yet."""
    base = tmp_path_factory.mktemp("challenge")
    _seed_database(base / "arena.sqlite")
    database = SQLiteDatabase(base / "arena.sqlite")
    tokens = [database.add_bot("alpha"), database.add_bot("gamma")]
    database.close()
    with arena_serve("--db", str(base / "arena.sqlite"), "--guests-per-client", "1000") as (
            url, process):
        url_ws = "ws" + url.removeprefix("http") + "/"
        clients = [ArenaClient(url_ws, token, BuiltinBot("random"), accept={"mode": "auto"},
                               seek=False, reconnect_delay=0.05) for token in tokens]
        # connected before the page opens: the ladder page asks /api/bots who is
        with bots_in_background(clients):
            yield {"url": url}
    if process.stdout:
        process.stdout.close()



def test_challenging_a_connected_bot_from_the_ladder_page(page: Any,
                                                          server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    # alpha is connected: its row has the button; beta is not: no button; gamma, not
    # rated yet, is listed below the table with its own
    assert page.locator("#leaderboard button.challenge").count() == 1
    assert page.locator("#unrated-bots button.challenge").get_attribute("data-bot") == "gamma"
    button = page.locator("#leaderboard button.challenge")
    assert button.get_attribute("data-bot") == "alpha" and button.inner_text() == "Challenge"
    button.click()
    wait_phase(page, "choose")  # alpha accepted at once: the person moves first
    assert "alpha is challenged" in page.inner_text("#events")
    page.click("#resign")
    assert wait_phase(page, "over") == "over"
    assert page.inner_text("#result h2").startswith("You lost")
