"""A "how to play" page for each game (issue 28): the rules in words and a worked example,
the example's log replayed by the referee and each noted position drawn by the game's
renderer."""

from __future__ import annotations

from typing import Any

import pytest

from .browser import BOTH, accessible, browser, no_overflow, page, server, shot, visitor, wait_phase
from .test_api import GAMES

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses

LAST = {  # what the last noted position of each example shows: the losing triangle, the heap
    # that reached the target, the empty hand, the row turned down, the finished word
    "sim": (".edge.losing", 3),
    "heaps": (".heap .size[data-size='28']", 1),
    "durak": ("#hand-0 .playing-card", 0),
    "tiles": ("#tiles-0 .tile.down", 4),
    "substitution": ("li.finished", 1),
}


@pytest.mark.parametrize("name", sorted(GAMES) + ["substitution"])
def test_how_to_play_each_game_with_a_worked_example(page: Any, server: dict[str, Any],
                                                     name: str) -> None:
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    page.select_option("#game", name)
    page.click("#howto-link")
    wait_phase(page, "howto")
    assert page.locator("#howto-rules li").count() >= 3
    steps = page.locator(".howto-step")
    assert steps.count() >= 3
    for k in range(steps.count()):  # each with the move in words, a note and the board after it
        step = steps.nth(k)
        assert step.locator(":scope > h3").inner_text().startswith(f"Move {step.get_attribute('data-frame')}: ")
        assert step.locator(".board").count() == 1 and step.locator(":scope > p").inner_text()
    assert "wins" in steps.last.locator(":scope > p").inner_text()
    selector, count = LAST[name]
    assert steps.last.locator(selector).count() == count, selector
    no_overflow(page)
    accessible(page)
    page.click("#howto-play")
    wait_phase(page, "lobby")
    assert page.input_value("#game") == name
    shot(page, f"howto-{name}")


@BOTH
def test_how_to_play_on_a_phone_and_a_laptop(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/howto?game=sim")
    wait_phase(page, "howto")
    no_overflow(page)
    accessible(page)
    shot(page, "howto")
