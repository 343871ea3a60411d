"""What a person reads and reaches (issue 28's bugs, each seen in a screenshot): the turn's
box never hides the board's moves, the substitution turn's buttons stay on the screen as
the bank grows, two copies of a bot are told apart, the clocks say what they count, and
Durak's 0 : 0 is explained. The page-wide checks (nothing cut mid-word, no JavaScript
object, exponent, protocol text or account name; no console error) run in every browser
test (tests/web/browser.py)."""

from __future__ import annotations

import re
from typing import Any

from .browser import (
    BOTH,
    browser,
    my_turn,
    no_overflow,
    page,
    server,
    shot,
    start_from_lobby,
    start_game,
    visitor,
    wait_phase,
)

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses

COVERED = """() => {
  const covered = [];
  for (const el of document.querySelectorAll('#play-area [data-move]')) {
    for (const block of ['start', 'end']) {  // at the top of the screen and at its bottom
      el.scrollIntoView({ block });
      const box = el.getBoundingClientRect();
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      if (!el.contains(top)) covered.push(`${el.dataset.move} (${block}) under ${top && top.id || top && top.className}`);
    }
  }
  return covered;
}"""


@BOTH
def test_the_turn_line_hides_none_of_the_boards_moves(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "heaps", choose={"#bot": "heaps-random"})
    assert my_turn(page)
    assert page.inner_text("#builder").startswith("Your turn:")
    height = page.locator("#builder").bounding_box()["height"]
    assert height < 0.1 * page.viewport_size["height"], height  # a line, not a box
    assert page.evaluate(COVERED) == []
    shot(page, "heaps-turn")
    if page.viewport_name == "phone":  # the check can fail: the old box, stuck to the bottom
        page.evaluate("""() => { const box = document.getElementById('builder');
          box.parentElement.append(box);
          Object.assign(box.style, {position: 'sticky', bottom: '0', background: '#fff', padding: '2em 1em'}); }""")
        assert page.evaluate(COVERED) != []


def test_the_steps_of_a_turn_stay_on_the_screen_as_the_bank_grows(page: Any,
                                                                  server: dict[str, Any]) -> None:
    start_game(page, server, moves=40)  # the medium grammar: rolls that fit nowhere are banked
    grown = 0  # turns with a bank of six groups or more, on a page longer than the screen
    while grown < 2:
        assert wait_phase(page, "choose", "over") == "choose", page.inner_text("main")[:600]
        grown += page.evaluate("""() => document.querySelectorAll('#bank tr').length > 6
          && document.documentElement.scrollHeight > innerHeight + 100""")
        for where in ("0", "document.documentElement.scrollHeight"):  # the page's top and bottom
            page.evaluate(f"scrollTo(0, {where})")
            box = page.locator("#finish").bounding_box()
            assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 800, (where, box)
        if page.is_enabled("#finish"):
            page.click("#finish")
        else:
            page.locator("button.choice").first.click()
    no_overflow(page)
    shot(page, "play-long")
    page.click("#resign")
    wait_phase(page, "over")


def test_two_copies_of_a_bot_are_told_apart(page: Any, server: dict[str, Any]) -> None:
    page.goto(server["url"] + "/#/bots")
    wait_phase(page, "bots")
    page.select_option("#bots-game", "sim")
    page.select_option("#sim-vertices", "6")
    page.fill("#bot-first", "sim-random")
    page.fill("#bot-second", "sim-random")
    page.click("#start-match")
    page.wait_for_selector("#watch-area #result, #replay-result")  # watched, or replayed if over
    heading = page.inner_text("main h1" if page.locator("#watch-area").count() else "#viewer h2")
    assert "sim-random (house bot, first) vs sim-random (house bot, second)" in heading, heading
    no_overflow(page)


def test_the_clocks_say_what_they_count(page: Any, server: dict[str, Any]) -> None:
    start_from_lobby(page, server, "sim", choose={"#sim-vertices": "5", "#bot": "sim-random"})
    assert my_turn(page)
    mine, theirs = page.inner_text("#clock-0"), page.inner_text("#clock-1")
    # the mover's allowance for this move and its bank, each under its name; the other's bank
    assert re.fullmatch(r"You\s+move \d+:\d\d\s+bank 10:00", mine), mine
    assert re.fullmatch(r"sim-random \(house bot\)\s+bank 10:00", theirs), theirs
    page.click("#resign")
    wait_phase(page, "over")


def test_running_out_together_in_durak_is_explained(page: Any, server: dict[str, Any]) -> None:
    # the seed's example: card 1 is the bot's, card 2 ours; it lays 1, we beat it with 2
    start_from_lobby(page, server, "durak", seat=1, choose={"#durak-deal": "given", "#bot": "durak-greedy"},
                     fill={"#durak-cards": "01"})
    assert my_turn(page)
    page.click("#play-area [data-move='beat 2']")
    wait_phase(page, "over")
    assert page.inner_text("#result h2") == "You lost 0 : 0"
    explained = page.inner_text("#result-explained")
    assert "Both ran out of cards in the same move" in explained
    assert "durak-greedy (house bot)" in explained and "still wins" in explained
    no_overflow(page)
    shot(page, "durak-together")
