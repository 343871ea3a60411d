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

__all__ = ["DEFAULT_MAX_LEGAL", "builds_in_steps", "legal_fields", "steps_answer"]

DEFAULT_MAX_LEGAL = 1000
"""Longest ``legal`` list sent (``limits.max_legal`` in ``welcome``)."""


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
