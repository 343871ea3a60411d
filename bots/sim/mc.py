"""The seed's Monte-Carlo player.

Play `trials` random games from the position. After a won game (won for the player
to move now) its edges score `win` and the opponent's edges score `lose`; after a
lost game the other way round; a draw scores nothing. Play a free edge with the best
total, chosen at random among ties.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.sim import SimGame, SimMove, SimPosition
from arena.games.sim.rules import geometry

__all__ = ["MonteCarloBot"]


class MonteCarloBot:
    def __init__(self, trials: int = 200, win: float = 1.0, lose: float = -1.0) -> None:
        self.trials = trials
        self.win = win
        self.lose = lose

    def choose_move(self, game: Any, state: SimPosition, rng: random.Random) -> SimMove:
        assert isinstance(game, SimGame)
        geo = geometry(state.vertices, state.graph)
        me = state.seat_to_move
        start = (state.red, state.green)
        free = [e for e in range(geo.num_edges) if state.free >> e & 1]
        scores = [0.0] * geo.num_edges
        closing = geo.closing_pairs
        for _ in range(self.trials):
            masks = list(start)
            left = free[:]
            seat = me
            loser = None
            while left:
                edge = left.pop(rng.randrange(len(left)))
                mask = masks[seat]
                masks[seat] = mask | 1 << edge
                if any(mask & pair == pair for pair in closing[edge]):
                    loser = seat
                    break
                seat ^= 1
            if loser is None:
                continue  # a draw tells nothing
            mine_score, their_score = (self.lose, self.win) if loser == me else (self.win, self.lose)
            mine, theirs = masks[me], masks[1 - me]
            for e in free:
                bit = 1 << e
                if mine & bit:
                    scores[e] += mine_score
                elif theirs & bit:
                    scores[e] += their_score
        best = max(scores[e] for e in free)
        return game.edge_move(rng.choice([e for e in free if scores[e] == best]))
