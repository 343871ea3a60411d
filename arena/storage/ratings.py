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

__all__ = ["INITIAL_SIGMA", "VERSION_SIGMA_STEP", "initial_rating", "rate", "widened_sigma"]

_MODEL = PlackettLuce()

INITIAL_SIGMA = _MODEL.rating().sigma
"""A new bot's uncertainty (openskill's 25/3)."""

VERSION_SIGMA_STEP = INITIAL_SIGMA / 3
"""What a new version of a bot adds to its uncertainty (`widened_sigma`)."""


def widened_sigma(sigma: float) -> float:
    """A bot's uncertainty once a new version of it is registered: its mean stays (the
    new version starts from the previous one's rating), its sigma grows by
    `VERSION_SIGMA_STEP`, at most to a new bot's `INITIAL_SIGMA`, so the first games of
    the new version move its rating faster. The storages apply it in SQL, as
    ``min(INITIAL_SIGMA, sigma + VERSION_SIGMA_STEP)``, to every rating of the bot.

        >>> round(widened_sigma(2.0), 3), round(widened_sigma(8.0), 3)
        (4.778, 8.333)
    """
    return min(INITIAL_SIGMA, sigma + VERSION_SIGMA_STEP)


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
