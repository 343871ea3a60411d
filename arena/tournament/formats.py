"""Swiss pairing: who meets whom in the next round, from the standings so far.

Rules (deterministic from the tournament's seed):

* the standings order bots by game points (a win 1, a draw ½), ties broken by a
  random order drawn once from the seed;
* each round pairs the best-placed unpaired bot with the next best-placed bot it has
  not met, backtracking when that leaves the rest without a pairing (no rematches);
* with an odd number of bots, the lowest-placed bot that has not had a bye sits out
  and scores half the round's games (as if it had drawn them);
* seats are balanced by construction: every pair of dice is played in both seat
  orders.

At most ⌈n/2⌉ rounds are allowed: then a pairing without rematches always exists (the
pairings not yet played form a graph of degree ≥ n/2, which has a perfect matching by
Dirac's theorem; an odd field adds a virtual bye opponent).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.tournament.results import SwissRound, TournamentResult
from arena.tournament.spec import Pairing

__all__ = ["swiss_round", "swiss_standings", "tiebreak_order"]


def tiebreak_order(bots: int, seed: int) -> list[int]:
    """The seeded order that breaks ties in the standings (first: best placed)."""
    order = list(range(bots))
    random.Random(f"{seed}:swiss").shuffle(order)
    return order


def swiss_standings(result: TournamentResult) -> list[tuple[int, float]]:
    """(bot, points) best first, byes included, ties broken by `tiebreak_order`."""
    spec = result.spec
    n = len(spec.bots)
    points = [result.points(b) for b in range(n)]
    for past in result.rounds:
        if past.bye is not None:
            points[past.bye] += spec.games  # half of the round's 2 × games games
    rank = {bot: position for position, bot in enumerate(tiebreak_order(n, spec.seed))}
    order = sorted(range(n), key=lambda b: (-points[b], rank[b]))
    return [(b, points[b]) for b in order]


def swiss_round(result: TournamentResult) -> SwissRound:
    """The pairings of the next round of a Swiss, given the rounds played so far."""
    ranked = [bot for bot, _ in swiss_standings(result)]
    met = {p for past in result.rounds for p in past.pairings}
    had_bye = {past.bye for past in result.rounds if past.bye is not None}
    number = len(result.rounds) + 1
    if len(ranked) % 2 == 0:
        pairs = _pair(ranked, met)
        if pairs is not None:
            return SwissRound(number, tuple(pairs))
    else:
        for bye in reversed(ranked):
            if bye in had_bye:
                continue
            pairs = _pair([b for b in ranked if b != bye], met)
            if pairs is not None:
                return SwissRound(number, tuple(pairs), bye)
    raise ValueError(f"round {number}: every pairing left would be a rematch")


def _pair(ranked: Sequence[int], met: set[Pairing]) -> list[Pairing] | None:
    """Pair `ranked` (best first) top-down without rematches; None if impossible."""
    if not ranked:
        return []
    top, rest = ranked[0], list(ranked[1:])
    for k, other in enumerate(rest):
        pairing = Pairing.of(top, other)
        if pairing in met:
            continue
        tail = _pair(rest[:k] + rest[k + 1:], met)
        if tail is not None:
            return [pairing, *tail]
    return None
