"""What a tournament is: its bots, format and seed, and how its games are named.

A *pairing* is two bots (``low < high`` by index, or one bot against itself). Pair
``i`` of a pairing is two games on the dice of `game_seed(seed, i)`, one in each seat
order: seat 0 puts ``low`` first, seat 1 puts ``high`` first (self-play has only seat
0: swapping identical bots replays the same game). A game is therefore keyed by
(pairing, pair index, seat); its id ``F-S-I`` names the first bot, the second bot and
the pair index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "FORMATS",
    "GameKey",
    "Pairing",
    "TournamentSpec",
    "game_id",
    "game_seed",
    "parse_game_id",
]

FORMATS = ("round-robin", "gauntlet", "swiss")


@dataclass(frozen=True, order=True)
class Pairing:
    """Two bots by index (``low <= high``); equal for a bot against itself."""

    low: int
    high: int

    @classmethod
    def of(cls, a: int, b: int) -> Pairing:
        return cls(min(a, b), max(a, b))

    @property
    def self_play(self) -> bool:
        return self.low == self.high

    def seats(self) -> tuple[int, ...]:
        """Seat orders played per pair: both, or one for self-play."""
        return (0,) if self.self_play else (0, 1)

    def players(self, seat: int) -> tuple[int, int]:
        """(first, second) bot indexes of the game in `seat` order."""
        return (self.low, self.high) if seat == 0 else (self.high, self.low)


@dataclass(frozen=True, order=True)
class GameKey:
    """The identity of one game: written once in a tournament's results."""

    pairing: Pairing
    pair: int
    seat: int

    @classmethod
    def of(cls, first: int, second: int, index: int) -> GameKey:
        pairing = Pairing.of(first, second)
        return cls(pairing, index, 0 if first == pairing.low else 1)

    @property
    def first(self) -> int:
        return self.pairing.players(self.seat)[0]

    @property
    def second(self) -> int:
        return self.pairing.players(self.seat)[1]

    @property
    def id(self) -> str:
        return game_id(self.first, self.second, self.pair)


def game_seed(seed: int, index: int) -> int:
    """The dice seed of pair `index` of every pairing."""
    return seed * 1_000_003 + index


def game_id(first: int, second: int, index: int) -> str:
    """``"F-S-I"``: first bot's index, second bot's index, pair index (all 0-based)."""
    return f"{first}-{second}-{index}"


def parse_game_id(text: str) -> tuple[int, int, int]:
    try:
        first, second, index = (int(part) for part in text.split("-"))
    except ValueError:
        raise ValueError(f"{text!r} is not a game id (first-second-index, e.g. 0-3-17)") from None
    return first, second, index


@dataclass(frozen=True)
class TournamentSpec:
    """Everything a tournament's results depend on.

    `games` is the number of pairs of dice per pairing (per round in a Swiss): each
    pairing of two bots plays ``2 × games`` games. Formats: ``round-robin`` (every
    pairing, or the given `pairs`), ``gauntlet`` (the first bot against each other
    one) and ``swiss`` (`rounds` rounds paired by score; `arena.tournament.formats`).
    """

    game: str
    settings: dict[str, Any]
    bots: tuple[str, ...]
    games: int
    seed: int = 0
    pairs: tuple[tuple[int, int], ...] | None = None
    """Which (first, second) games a round robin plays; ``None`` is every ordered pair,
    self-play included. Both seat orders of a pairing must be listed."""
    format: str = "round-robin"
    rounds: int = 0
    """Rounds of a Swiss (at most half the number of bots, rounded up)."""

    def __post_init__(self) -> None:
        n = len(self.bots)
        if n == 0:
            raise ValueError("a tournament needs at least one bot")
        if self.games < 1:
            raise ValueError(f"games must be at least 1, not {self.games}")
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r} (formats: {', '.join(FORMATS)})")
        if self.format != "round-robin" and n < 2:
            raise ValueError(f"a {self.format} needs at least two bots")
        if self.pairs is not None:
            if self.format != "round-robin":
                raise ValueError("explicit pairs are for round robins")
            listed = set(self.pairs)
            for first, second in listed:
                if not (0 <= first < n and 0 <= second < n):
                    raise ValueError(f"pair ({first}, {second}) names a bot that is not listed")
                if (second, first) not in listed:
                    raise ValueError(
                        f"pair ({first}, {second}) is listed without ({second}, {first}): a "
                        "pairing plays both seat orders on the same dice"
                    )
        if self.format == "swiss":
            most = (n + 1) // 2
            if not 1 <= self.rounds <= most:
                raise ValueError(
                    f"a Swiss of {n} bots has 1 to {most} rounds (so that a pairing without "
                    f"rematches always exists), not {self.rounds}; for more, play a round robin"
                )
        elif self.rounds:
            raise ValueError("rounds are for a Swiss (--format swiss)")

    def pairings(self) -> list[Pairing]:
        """The pairings of a round robin or gauntlet (a Swiss pairs round by round)."""
        n = len(self.bots)
        if self.format == "swiss":
            raise ValueError("a Swiss is paired round by round (arena.tournament.formats)")
        if self.format == "gauntlet":
            return [Pairing(0, j) for j in range(1, n)]
        if self.pairs is not None:
            return sorted({Pairing.of(a, b) for a, b in self.pairs})
        return [Pairing(i, j) for i in range(n) for j in range(i, n)]

    def total_games(self) -> int:
        if self.format == "swiss":
            return self.rounds * (len(self.bots) // 2) * 2 * self.games
        return sum(len(p.seats()) for p in self.pairings()) * self.games

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "settings": self.settings,
            "bots": list(self.bots),
            "games": self.games,
            "seed": self.seed,
            "pairs": None if self.pairs is None else [list(p) for p in self.pairs],
            "format": self.format,
            "rounds": self.rounds,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentSpec:
        pairs = data.get("pairs")
        return cls(
            game=data["game"],
            settings=data["settings"],
            bots=tuple(data["bots"]),
            games=int(data["games"]),
            seed=int(data.get("seed", 0)),
            pairs=None if pairs is None else tuple((int(a), int(b)) for a, b in pairs),
            format=str(data.get("format", "round-robin")),
            rounds=int(data.get("rounds", 0)),
        )
