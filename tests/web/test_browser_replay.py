"""Replays people can share and study (issue 28): the move shown is in the address and a link
opens it, Home, End and Space, the move list follows the move shown."""

from __future__ import annotations

from typing import Any

from .browser import BOTH, MOVES, browser, no_overflow, page, server, shot, visitor, wait_phase

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses

SHOWN = """() => { const list = document.getElementById('move-list').getBoundingClientRect();
  const item = document.querySelector('#move-list button[aria-current]').getBoundingClientRect();
  return item.top >= list.top - 1 && (item.bottom <= list.bottom + 1 || item.height > list.height); }"""


def index(page: Any) -> int:
    return int(page.get_attribute("#frame-label", "data-index"))


@BOTH
def test_a_link_opens_its_move_and_the_keys_step(page: Any, server: dict[str, Any]) -> None:
    game_id = server["games"][0]
    page.goto(f"{server['url']}/#/replay?id={game_id}&move=7")  # a shared link
    wait_phase(page, "replay")
    assert index(page) == 7
    assert page.get_attribute("#move-list button[data-frame='7']", "aria-current") == "step"
    page.click("#next")
    assert page.url.endswith(f"#/replay?id={game_id}&move=8")  # the address follows
    page.locator("#replay-board").click()  # the keys, from the board (not a field)
    page.keyboard.press("End")
    assert index(page) == 2 * MOVES and page.url.endswith(f"&move={2 * MOVES}")
    assert page.evaluate(SHOWN)  # the move list scrolled to the last move
    page.keyboard.press("Home")
    assert index(page) == 0
    page.select_option("#speed", "100")
    page.locator("#replay-board").click()
    page.keyboard.press(" ")  # play
    assert page.get_attribute("#play", "aria-pressed") == "true"
    page.wait_for_function("Number(document.getElementById('frame-label').dataset.index) >= 3")
    page.keyboard.press(" ")  # pause
    assert page.get_attribute("#play", "aria-pressed") == "false"
    stopped = index(page)
    page.keyboard.press("ArrowRight")
    assert index(page) == stopped + 1
    page.reload()  # the address keeps the position
    wait_phase(page, "replay")
    assert index(page) == stopped + 1
    no_overflow(page)
    shot(page, "replay-linked")


def test_the_move_list_follows_the_move_shown(page: Any, server: dict[str, Any]) -> None:
    page.set_viewport_size({"width": 1366, "height": 500})  # a list shorter than the game
    page.goto(f"{server['url']}/#/replay?id={server['games'][0]}")
    wait_phase(page, "replay")
    assert page.evaluate("() => { const l = document.getElementById('move-list'); "
                         "return l.scrollHeight > l.clientHeight; }")
    for step in range(1, 2 * MOVES + 1):
        page.click("#next")
        assert index(page) == step
        assert page.evaluate(SHOWN), (step, page.evaluate("""() => [document.getElementById('move-list'),
          document.querySelector('#move-list button[aria-current]')].map((e) => JSON.stringify(e.getBoundingClientRect()))
          .concat([document.getElementById('move-list').scrollTop])"""))
