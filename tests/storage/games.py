"""Games to store: real ones, played by the built-in bots, and made-up endings."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

from arena.game import Outcome, Termination
from arena.games.substitution import Settings
from arena.match import Match
from arena.record import MatchRecord
from arena.registry import default_registry
from arena.seeds import seed_commitment
from arena.storage import StoredTurn

BIG_SEED = 2**127 + 12345
"""A 128-bit seed: no SQL integer holds it."""


def played(game_id: str = "g1", players: tuple[str, str] = ("alice", "bob"),
           seed: int = BIG_SEED, moves: int = 3) -> MatchRecord:
    """A finished substitution game between two random bots."""
    registry = default_registry()
    game = registry.load_game("substitution", Settings.preset("medium", moves).to_json())
    match = Match(game, list(players), seed=seed, match_id=game_id,
                  seed_commitment=seed_commitment(game_id, seed))
    bots = [registry.make_bot(game, "random"), registry.make_bot(game, "random")]
    match.run(bots, [random.Random(1), random.Random(2)])
    return match.record()


def started(record: MatchRecord) -> MatchRecord:
    """`record` as it is when it starts: no turns, no outcome."""
    return replace(record, turns=(), outcome=None, notes=())


def ended(game_id: str, players: tuple[str, ...], winner: int | None,
          game: str = "sim") -> MatchRecord:
    """A game of `players` that ended with `winner` (None: a draw), with no turns."""
    return MatchRecord(game=game, settings={"vertices": 5}, players=players, turns=(),
                       outcome=Outcome(winner, None, Termination.NORMAL), seed=1, id=game_id)


def turns_of(record: MatchRecord, *, start: float = 1000.0) -> list[StoredTurn]:
    """`record`'s turns as the server stores them, one after the other."""
    banks = [10_000.0] * len(record.players)
    stored = []
    for index, turn in enumerate(record.turns):
        banks[turn.player] -= 10 * index
        stored.append(StoredTurn(
            record.id, index, json.dumps(record.turn_json(turn)),
            tuple(banks), 0, start + index))
    return stored


def line(index: int, players: int = 2, **extra: Any) -> str:
    """A made-up turn line of the arena's log format."""
    return json.dumps({"turn": index, "player": index % players, "move": f"m{index}", **extra})
