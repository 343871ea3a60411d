"""Accessible boards (issue 28): axe-core finds no serious or critical violation on any page
state at either viewport; every game can be played with the keyboard alone, the focus
coming back to the board after each move; Durak's cards are told apart by more than
colour."""

from __future__ import annotations

from typing import Any

import pytest

from .a11y_states import LOBBY, PAGES
from .browser import (
    BOTH,
    axe_violations,
    browser,
    my_turn,
    page,
    server,
    settle,
    start_from_lobby,
    visitor,
    wait_phase,
)
from .test_api import GAMES

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses

@BOTH
def test_axe_finds_nothing_serious_on_any_page(page: Any, server: dict[str, Any]) -> None:
    found: dict[str, list[str]] = {}

    def check(name: str) -> None:
        problems = axe_violations(page)
        if problems:
            found[name] = problems

    for path in PAGES:
        page.goto(server["url"] + "/#" + path)
        assert settle(page) != "error", path
        check(path)
    for record in (server["games"][0], *(r.id for r in server["others"].values())):
        page.goto(f"{server['url']}/#/replay?id={record}")
        wait_phase(page, "replay")
        page.click("#last")
        check(f"replay {record}")
    for name in sorted(GAMES) + ["substitution"]:
        start_from_lobby(page, server, name, choose=LOBBY[name])
        assert my_turn(page)
        check(f"play {name}")
        if name == "sim":  # and a spectator's page of it
            watcher = page.context.new_page()
            watcher.goto(page.url.replace("#/play", "#/watch"))
            wait_phase(watcher, "watching")
            problems = axe_violations(watcher)
            if problems:
                found["watch sim"] = problems
            watcher.close()
        page.click("#resign")
        wait_phase(page, "over")
        check(f"over {name}")
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())
    # the check can fail: a button in a button, a field without a label
    page.evaluate("""() => document.getElementById('main').append(Object.assign(
        document.createElement('button'), {innerHTML: '<a href="#/">in</a>'}))""")
    assert any(v.startswith("nested-interactive") for v in axe_violations(page))


def tab_to(page: Any, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches `selector` (as a keyboard user would)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("sel => Boolean(document.activeElement && document.activeElement.matches(sel))",
                         selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def key_move(page: Any, name: str) -> None:
    """One whole move with the keyboard: Tab to a legal choice, Enter (and on)."""
    if name == "sim":  # a vertex, then the other end of a free edge
        tab_to(page, "#sim-board .vertex.clickable")
        page.keyboard.press("Enter")
        page.wait_for_selector("#sim-board .vertex.selected")
        tab_to(page, "#sim-board .vertex.target")
        page.keyboard.press("Enter")
    elif name == "substitution":  # the turn's steps, then Finish turn
        while not page.is_enabled("#finish"):
            tab_to(page, "#builder button.choice")
            page.keyboard.press("Enter")
            wait_phase(page, "choose")
        tab_to(page, "#finish")
        page.keyboard.press("Enter")
    else:  # a move button or card on the board
        tab_to(page, "#play-area [data-move]:not([disabled])")
        page.keyboard.press(" " if name == "durak" else "Enter")


KEYBOARD = {  # each game's lobby choices, and the moves to play before resigning
    "substitution": ({"#grammar": "", "#bot": "random"}, {"#grammar-text": "S->aS|Sb\nS->c|cc\n", "#moves": "2"}),
    "sim": ({"#sim-vertices": "5", "#bot": "sim-random"}, {}),
    "heaps": ({"#bot": "heaps-random"}, {}),
    "durak": ({"#durak-deal": "given", "#bot": "durak-greedy"}, {"#durak-cards": "01101001"}),
    "tiles": ({"#bot": "tiles-random"}, {}),
}


@pytest.mark.parametrize("name", sorted(KEYBOARD))
def test_every_game_is_played_with_the_keyboard_alone(page: Any, server: dict[str, Any],
                                                      name: str) -> None:
    choose, fill = KEYBOARD[name]
    start_from_lobby(page, server, name, choose=choose, fill=fill)
    moves = 0
    while my_turn(page) and moves < 6:
        if moves:  # the focus came back to the board after the last move
            assert page.evaluate("Boolean(document.activeElement.closest('#play-area'))"), \
                page.evaluate("document.activeElement.outerHTML.slice(0, 120)")
        key_move(page, name)
        moves += 1
    assert moves >= 1
    if wait_phase(page, "choose", "over") == "choose":  # a long game: resign, by keyboard too
        tab_to(page, "#resign")
        page.keyboard.press("Enter")
        wait_phase(page, "over")
    assert page.locator("#result h2").is_visible()


def test_durak_cards_differ_by_more_than_colour(page: Any, server: dict[str, Any]) -> None:
    page.goto(f"{server['url']}/#/replay?id={server['others']['durak'].id}")
    wait_phase(page, "replay")
    page.click("#next")
    page.click("#next")  # a card laid, one of each hand, and those out of the game
    shape = """sel => { const el = document.querySelector(sel); if (!el) return null;
      const s = getComputedStyle(el);
      return [s.borderBottomStyle, s.borderTopStyle, s.textDecorationLine, s.fontWeight].join(' '); }"""
    seen = {}
    for place in ("seat-0", "seat-1", "on-table", "played"):
        seen[place] = page.evaluate(shape, f"#replay-board #deck .{place}")
    shown = {k: v for k, v in seen.items() if v is not None}
    assert len(shown) >= 3, seen
    assert len(set(shown.values())) == len(shown), seen  # no two differ by colour alone
    label = page.get_attribute("#replay-board #deck [data-card='1']", "aria-label")
    assert label is not None and label.startswith("card 1: "), label
