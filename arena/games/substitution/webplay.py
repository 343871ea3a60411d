"""What the web interface asks of the substitution game: its presets, the settings of a
game started from the lobby, and the turn a page builds step by step.

Pure functions behind the plugin hooks `arena_web_settings` and
`arena_web_partial_move` (`arena.games.substitution.plugin`): no I/O, no web framework.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from arena.errors import SettingsError
from arena.game import Rejection
from arena.games.substitution._core import GameState
from arena.games.substitution.game import SubstitutionGame
from arena.games.substitution.grammar import Grammar
from arena.games.substitution.presets import PRESETS
from arena.games.substitution.settings import MAX_MOVES, Settings

__all__ = ["WEB_MOVES", "builtin_presets", "partial_move", "web_settings"]

WEB_MOVES = 20
"""Moves per player of a game started from the web without ``moves``: long enough to
finish a few words (the thesis's games are longer still)."""

_STEP = re.compile(r"\s*(-?\d{1,9})\s+(\d{1,9})\s+(\d{1,9})\s*")


def builtin_presets() -> list[dict[str, Any]]:
    """The built-in grammars as the lobby lists them (name, description, text)."""
    return [{"name": name, "description": description, "builtin": True,
             "text": Grammar.of(groups).to_text()}
            for name, (groups, description) in PRESETS.items()]


def web_settings(request: Mapping[str, Any], presets: Mapping[str, str]) -> dict[str, Any]:
    """The settings of ``moves`` with ``grammar`` (a preset's name) or ``text`` (a
    grammar).

    Args:
        request: the request's fields (None where absent).
        presets: the saved presets (name -> grammar text).

    Raises:
        SettingsError: moves not positive, an unknown preset, a grammar that does not
            read.
    """
    moves = request.get("moves")
    moves = WEB_MOVES if moves is None else moves
    if moves < 1:
        raise SettingsError(f"moves must be a positive integer, not {moves}",
                            code="moves-range", params={"maximum": MAX_MOVES})
    text = request.get("text")
    if text is None:
        name = request.get("grammar") or "medium"
        builtin = {p["name"]: p["text"] for p in builtin_presets()}
        text = builtin.get(name, presets.get(name))
        if text is None:
            raise SettingsError(f"no grammar preset {name!r}", code="preset-missing",
                                params={"name": str(name)[:60]})
    return Settings(Grammar.from_text(text), moves).to_json()


def partial_move(game: SubstitutionGame, state: GameState, steps: str) -> dict[str, Any] | Rejection:
    """The turn after `steps` (``"-1 0 1, 0 3 0"``): the legal next steps, whether it
    may end (and why not: ``problem``, the referee's words, and ``problem_code``), the derivations and the bank as the steps leave them; or
    the `Rejection` of the first bad step."""
    turn = game.turn(state)
    for index, part in enumerate(steps.split(",") if steps.strip() else []):
        match = _STEP.fullmatch(part)
        if match is None:
            return Rejection("malformed", f"malformed step {part!r}", index)
        step = (int(match[1]), int(match[2]), int(match[3]))
        rejection = turn.check(*step)
        if rejection is not None:
            return Rejection(rejection.code, rejection.message, index)
        turn.apply(*step)
    can_end = turn.can_end()
    problem = None if can_end else turn.end_problem()
    return {
        "roll": turn.roll,
        "applied": [list(s) for s in turn.applied],
        "steps": [list(s) for s in turn.legal_steps()], "can_end": can_end,
        "problem": problem.message if problem is not None else None,
        "problem_code": problem.code if problem is not None else None,  # the page's words
        "derivations": [d.text for d in turn.derivations], "bank": list(turn.bank),
    }
