"""Ladder ratings with openskill's Plackett-Luce model.

Each bot has a rating per ladder (a server may run several, each with its own): `mu`, `sigma` and the displayed conservative rating
``mu - 3 sigma`` (openskill's ``ordinal()``), which starts at 0 and rises as the
ladder grows confident. A forfeit counts as a loss for the seat that forfeited;
aborted games are not rated.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

from arena.game import Outcome, Termination
from arena.storage.interface import RatingRow

__all__ = ["initial_rating", "rate"]

_MODEL = PlackettLuce()


def initial_rating(bot: str, game: str, ladder: str) -> RatingRow:
    fresh = _MODEL.rating()
    return RatingRow(bot, game, fresh.mu, fresh.sigma, 0, 0, 0, 0, ladder)


def rate(before: Sequence[RatingRow], outcome: Outcome) -> list[RatingRow]:
    """The ratings after a game, in seat order (unchanged for an aborted game)."""
    if outcome.termination is Termination.ABORTED or len(before) < 2:
        return list(before)
    if outcome.winner is None:
        ranks = [1.0] * len(before)
    else:
        ranks = [1.0 if seat == outcome.winner else 2.0 for seat in range(len(before))]
    teams = [[_MODEL.rating(mu=row.mu, sigma=row.sigma, name=row.bot)] for row in before]
    rated = _MODEL.rate(teams, ranks=ranks)
    after = []
    for seat, (row, team) in enumerate(zip(before, rated, strict=True)):
        won = outcome.winner == seat
        drew = outcome.winner is None
        after.append(RatingRow(
            row.bot, row.game, team[0].mu, team[0].sigma, row.games + 1,
            row.wins + int(won), row.losses + int(not won and not drew), row.draws + int(drew),
            row.ladder,
        ))
    return after
