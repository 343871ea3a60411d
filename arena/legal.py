"""Legal moves as a bot sees them: the ``legal``, ``legal_count`` and ``legal_steps``
fields of a turn (with the ``legal-moves`` capability, and in the line protocol's
``turn`` lines), and the answer to a query about a partial move.

One computation for the server, the stdio bridge and the local runner, so that every
bot sees the same thing. Listing is bounded: at most `max_legal` moves are listed
(one more is asked of the game to know whether the list is whole); beyond that,
``legal`` is null and ``legal_count`` says how many there are when the game can count
them cheaply (null otherwise). A game whose moves are built in steps (the substitution
game, `Game.legal_steps`) also gets ``legal_steps``: the first steps and whether the
empty move is legal, so a bot can build any move one step at a time.
"""

from __future__ import annotations

from typing import Any

from arena.game import Game, Rejection

__all__ = ["DEFAULT_MAX_LEGAL", "LEGAL_ERROR_CODES", "builds_in_steps", "illegal_steps",
           "legal_fields", "not_step_built", "steps_answer"]

DEFAULT_MAX_LEGAL = 1000
"""Longest ``legal`` list sent (``limits.max_legal`` in ``welcome``)."""


LEGAL_ERROR_CODES = {
    "illegal-steps": "the steps asked about are no legal start of a move (the message "
                     "names the game's rejection code and the 0-based step)",
    "not-step-built": "the game's moves are not built in steps: use the turn's 'legal' list",
    "game-over": "the game is over",
    "stale-turn": "the turn asked about is already played",
    "future-turn": "the turn asked about has not begun",
    "not-your-turn": "the other seat is to move",
    "no-server": "the stdio bridge could not ask the server (not connected, or no answer)",
}
"""Every code of an error answering a ``legal`` request (a ``?legal`` line), the same on
the server, in the stdio bridge and in the local runner, with what it means."""


def illegal_steps(rejection: Rejection) -> tuple[str, str]:
    """The ``illegal-steps`` error (code, message) for a partial move the game refused."""
    step = "" if rejection.step is None else f" (step {rejection.step})"
    return "illegal-steps", f"{rejection.code}{step}: {rejection.message}"


def not_step_built(game: Game[Any, Any]) -> tuple[str, str]:
    """The ``not-step-built`` error (code, message) for a game whose moves are whole."""
    return "not-step-built", (f"{game.type.name} moves are not built in steps: use the "
                              "'legal' list of the turn")


def builds_in_steps(game: Game[Any, Any]) -> bool:
    """Whether the game's moves are built step by step (it implements `legal_steps`)."""
    return type(game).legal_steps is not Game.legal_steps


def legal_fields(game: Game[Any, Any], state: Any, max_legal: int = DEFAULT_MAX_LEGAL
                 ) -> dict[str, Any]:
    """``legal`` (or null), ``legal_count`` (or null) and, for step-built games,
    ``legal_steps``, for the seat to act in `state`."""
    fields: dict[str, Any]
    try:
        options = game.legal_moves(state, max_legal + 1)
    except NotImplementedError:  # a game that does not list its moves
        fields = {"legal": None, "legal_count": None}
    else:
        listed = options.complete and len(options.moves) <= max_legal
        fields = {"legal": list(options.moves) if listed else None,
                  "legal_count": options.count}
    if builds_in_steps(game):
        steps = game.legal_steps(state, "")
        fields["legal_steps"] = (None if isinstance(steps, Rejection)
                                 else steps_json(game, steps.steps, steps.can_end, steps.problem))
    return fields


def steps_json(game: Game[Any, Any], steps: Any, can_end: bool, problem: str | None
               ) -> dict[str, Any]:
    return {"steps": list(steps), "can_end": can_end, "problem": problem,
            "separator": game.type.step_separator}


def steps_answer(game: Game[Any, Any], state: Any, prefix: str) -> dict[str, Any] | Rejection:
    """The answer to a query about the partial move `prefix` (the ``legal`` message, the
    line protocol's ``?legal``): ``legal_steps`` after it, or why it is no legal start.

    Raises:
        NotImplementedError: the game's moves are not built in steps.
    """
    steps = game.legal_steps(state, prefix)
    if isinstance(steps, Rejection):
        return steps
    return steps_json(game, steps.steps, steps.can_end, steps.problem)
