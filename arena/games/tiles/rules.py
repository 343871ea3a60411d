"""The Balinese dice-tile game as pure, immutable rules.

Every player has a row of tiles 1..n (n <= 12), all face up. A turn rolls two dice
x, y; the player may turn down tiles x and y (both must be up; on a double, the single
tile x), or the tile x + y (if up), or do nothing. As in the seed, doing nothing is
allowed only when no move exists; with `voluntary_skip` on it is always allowed. Solo: turn
all tiles down in as few turns as possible. Two or more players take turns; the first
to turn all their tiles down wins.

Boards are bit masks: bit ``t - 1`` is set while tile ``t`` is up.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import MalformedMove, SettingsError, unknown_settings

__all__ = [
    "MAX_TILES",
    "ROLLS",
    "Choice",
    "TilesMove",
    "TilesSettings",
    "TilesState",
    "move_options",
    "parse_move",
    "tiles_of",
]

MAX_TILES = 12
"""Two dice make at most 12, so a 13th tile could never be turned down."""

Roll = tuple[int, int]
ROLLS: tuple[tuple[Roll, int], ...] = tuple(
    ((x, y), 1 if x == y else 2) for x in range(1, 7) for y in range(x, 7)
)
"""The 21 unordered rolls with their weights out of 36."""


def tiles_of(board: int) -> list[int]:
    """The tiles still up on `board`, ascending."""
    return [t + 1 for t in range(MAX_TILES) if (board >> t) & 1]


def board_of(tiles: list[int] | tuple[int, ...]) -> int:
    return sum(1 << (t - 1) for t in set(tiles))


class Choice(enum.Enum):
    PAIR = "pair"
    SUM = "sum"
    PASS = "pass"


def move_options(board: int, roll: Roll) -> dict[Choice, int]:
    """The boards each legal turning-down choice leaves (passing excluded)."""
    x, y = roll
    options: dict[Choice, int] = {}
    pair = (1 << (x - 1)) | (1 << (y - 1))
    if board & pair == pair:
        options[Choice.PAIR] = board & ~pair
    total = 1 << (x + y - 1)
    if x + y <= MAX_TILES and board & total:
        options[Choice.SUM] = board & ~total
    return options


@dataclass(frozen=True)
class TilesSettings:
    """`tiles` per row, `players` (1 = solo), `voluntary_skip` (off: the seed's rules),
    and a turn cap.

    `max_turns` ends a game that drags on (a player who keeps passing): solo it ends
    unfinished, with two or more players it is a draw.
    """

    tiles: int = 12
    players: int = 1
    voluntary_skip: bool = False
    max_turns: int = 1000

    def __post_init__(self) -> None:
        for name, value, low, high in (
            ("tiles", self.tiles, 1, MAX_TILES),
            ("players", self.players, 1, 8),
            ("max_turns", self.max_turns, 1, 10**6),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise SettingsError(f"{name} {value!r}: expected an integer in {low}..{high}",
                                    code="setting-range", params={
                                        "name": name, "value": str(value)[:30],
                                        "minimum": low, "maximum": high})
        if not isinstance(self.voluntary_skip, bool):
            raise SettingsError(f"voluntary_skip {self.voluntary_skip!r}: expected true/false",
                                code="skip-flag", params={"value": str(self.voluntary_skip)[:30]})

    @property
    def full_board(self) -> int:
        return (1 << self.tiles) - 1

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TilesSettings:
        known = {"tiles", "players", "voluntary_skip", "max_turns"}
        unknown = set(data) - known
        if unknown:
            raise unknown_settings(
                f"unknown tiles settings {sorted(unknown)} (known: {', '.join(sorted(known))})",
                unknown, sorted(known))
        return cls(**{k: data[k] for k in known if k in data})

    def to_mapping(self) -> dict[str, Any]:
        return {
            "tiles": self.tiles,
            "players": self.players,
            "voluntary_skip": self.voluntary_skip,
            "max_turns": self.max_turns,
        }


@dataclass(frozen=True)
class TilesMove:
    """``pair``, ``sum`` or ``pass``; or explicit tiles (``3 5`` or ``8``)."""

    choice: Choice | None
    tiles: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.choice is not None:
            return self.choice.value
        return " ".join(str(t) for t in self.tiles)

    def __repr__(self) -> str:
        return f"TilesMove.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> TilesMove:
        return parse_move(text)


def parse_move(text: str) -> TilesMove:
    if not isinstance(text, str):
        raise MalformedMove(f"a move is a string, not {type(text).__name__}")
    words = text.replace(",", " ").split()
    if not words:
        raise MalformedMove("empty move: expected 'pair', 'sum', 'pass' or tile numbers")
    if len(words) == 1 and words[0].lower() in {c.value for c in Choice}:
        return TilesMove(Choice(words[0].lower()))
    try:
        tiles = tuple(sorted(int(w) for w in words))
    except ValueError:
        raise MalformedMove(
            f"{text!r}: expected 'pair', 'sum', 'pass' or one or two tile numbers"
        ) from None
    if len(tiles) > 2:
        raise MalformedMove(f"{text!r}: at most two tiles are turned down per turn")
    if len(tiles) == 2 and tiles[0] == tiles[1]:
        raise MalformedMove(f"{text!r}: a tile is turned down once (a double names one tile)")
    return TilesMove(None, tiles)


@dataclass(frozen=True)
class TilesState:
    """Boards per player, whose turn it is, the pending roll (``None`` = to roll).

    `turns` counts the turns each player has finished; `winner` is set when someone
    has turned all tiles down; `stopped` marks a game ended by the turn cap.
    """

    boards: tuple[int, ...]
    to_move: int = 0
    roll: Roll | None = None
    turns: tuple[int, ...] = (0,)
    winner: int | None = None
    stopped: bool = False

    @property
    def over(self) -> bool:
        return self.winner is not None or self.stopped
