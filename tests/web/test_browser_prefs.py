"""Comfort (issue 28): a dark colour scheme (the system's, or the header's switch, remembered)
that axe-core finds readable on every page state, an optional sound on your turn, and move
animations that respect a wish for reduced motion."""

from __future__ import annotations

from typing import Any

import pytest

from .a11y_states import LOBBY, PAGES
from .browser import (
    BOTH,
    axe_violations,
    browser,
    my_turn,
    no_overflow,
    page,
    server,
    settle,
    shot,
    start_from_lobby,
    visitor,
    wait_phase,
)

__all__ = ["browser", "page", "server", "visitor"]  # the fixtures this module uses

BACKGROUND = "getComputedStyle(document.body).backgroundColor"


def dark(page: Any) -> bool:
    red, green, blue = (int(c) for c in page.evaluate(BACKGROUND).strip("rgba()").split(",")[:3])
    return red + green + blue < 120


@BOTH
def test_every_page_reads_well_in_the_dark(page: Any, server: dict[str, Any]) -> None:
    page.emulate_media(color_scheme="dark")
    found: dict[str, list[str]] = {}

    def check(name: str) -> None:
        assert dark(page), name
        problems = axe_violations(page)  # colour contrast among them
        if problems:
            found[name] = problems

    for path in (*PAGES, "/howto?game=durak"):
        page.goto(server["url"] + "/#" + path)
        settle(page)
        check(path)
    for record in (server["games"][0], *(r.id for r in server["others"].values())):
        page.goto(f"{server['url']}/#/replay?id={record}&move=2")
        wait_phase(page, "replay")
        check(f"replay {record}")
    for name, choose in LOBBY.items():
        start_from_lobby(page, server, name, choose=choose)
        assert my_turn(page)
        check(f"play {name}")
        if name == "durak":
            shot(page, "durak-dark")
        page.click("#resign")
        wait_phase(page, "over")
    no_overflow(page)
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())
    # the check can fail: pale text on the dark page
    page.evaluate("""() => document.getElementById('main').append(Object.assign(
        document.createElement('p'), {textContent: 'dim text', style: 'color: #333'}))""")
    assert any(v.startswith("color-contrast") for v in axe_violations(page))


def test_the_scheme_switch_is_remembered(page: Any, server: dict[str, Any]) -> None:
    page.emulate_media(color_scheme="dark")
    page.goto(server["url"] + "/#/ladder")
    wait_phase(page, "ladder")
    assert dark(page) and page.input_value("#theme") == "auto"
    page.select_option("#theme", "light")  # light, whatever the system prefers
    assert not dark(page)
    page.reload()
    wait_phase(page, "ladder")
    assert not dark(page) and page.input_value("#theme") == "light"
    page.emulate_media(color_scheme="light")
    page.select_option("#theme", "dark")
    assert dark(page)
    shot(page, "ladder-dark")
    page.select_option("#theme", "auto")
    assert not dark(page)


COUNT_TONES = """() => { window.tones = 0; const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.tones += 1; return start.apply(this, args); }; }"""


@pytest.mark.parametrize("wanted", [True, False])
def test_a_sound_on_your_turn_when_asked_for(page: Any, server: dict[str, Any], wanted: bool) -> None:
    page.add_init_script(script=f"({COUNT_TONES})()")
    page.goto(server["url"] + "/#/")
    wait_phase(page, "lobby")
    assert page.get_attribute("#sound", "aria-pressed") == "false"
    if wanted:
        page.click("#sound")
        assert page.get_attribute("#sound", "aria-pressed") == "true"
    before = page.evaluate("window.tones")
    assert before == (1 if wanted else 0)  # the switch itself sounds once
    start_from_lobby(page, server, "sim", seat=1, choose={"#sim-vertices": "5", "#bot": "sim-random"})
    assert my_turn(page)  # the house moved first: now it is ours
    assert page.evaluate("window.tones") == (before + 1 if wanted else 0)
    page.click("#resign")
    wait_phase(page, "over")


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_moves_arrive_animated_unless_motion_is_reduced(page: Any, server: dict[str, Any],
                                                        motion: str) -> None:
    page.emulate_media(reduced_motion=motion)
    page.goto(f"{server['url']}/#/replay?id={server['others']['heaps'].id}&move=1")
    wait_phase(page, "replay")
    marked = page.locator("#replay-board .last-move").first
    assert marked.evaluate("e => getComputedStyle(e).animationName") == \
        ("arrive" if motion == "no-preference" else "none")
    page.goto(f"{server['url']}/#/replay?id={server['others']['sim'].id}&move=1")
    wait_phase(page, "replay")
    edge = page.locator("#replay-board .edge.last").first
    assert edge.evaluate("e => getComputedStyle(e).animationName") == \
        ("drawn" if motion == "no-preference" else "none")
