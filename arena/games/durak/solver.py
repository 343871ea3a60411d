"""The exact Durak solver: values, optimal and "tricky" moves, and every reply.

Positions are solved in canonical form (`Position`): cards already played are dropped
and the rest renumbered 1..m, the player to lay is called "mover" (``0`` in the owner
string). Two deals that agree after this compression have the same solution, which is
what the seed's program exploits; here it also keys the persistent store.

The search itself (`_core.CSearch`, compiled, or `_search.PySearch`) is alpha-beta
with a table of bounds; values are found by MTD(f), a series of null-window searches
that converges on the exact value. Every legal reply is searched: taking and beating
with *each* higher card (beats with cards of one run of the defender's cards give the
same canonical position, so only one of them is searched without losing exactness).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.games.durak.values import Verdict, decode

if TYPE_CHECKING:
    from arena.games.durak.store import SolutionStore

try:
    from arena.games.durak._core import CSearch as _Engine

    COMPILED = True
except ImportError:  # pragma: no cover - the extension is not built
    from arena.games.durak._search import PySearch as _Engine  # type: ignore[assignment]

    COMPILED = False

__all__ = ["COMPILED", "DurakSolver", "LayAnalysis", "Position", "Solution"]

INF = 1_000_000_000
TABLE_LIMIT = 16_000_000
"""Entries (24 bytes each, plus free slots) after which an engine's table is emptied
between queries, so a long-running bot does not grow without bound."""
TAKE = -1
"""The reply "take" where a beating card index is expected."""


@dataclass(frozen=True)
class Position:
    """A canonical position with the mover to lay a card.

    Attributes:
        owners: one character per card still in play, lowest first: ``0`` the mover's,
            ``1`` the opponent's.
        weights: the weights of those cards, or ``None`` for the unweighted game.
        draw_rule: D-Durak.
    """

    owners: str
    weights: tuple[int, ...] | None = None
    draw_rule: bool = False

    def __post_init__(self) -> None:
        if not self.owners or set(self.owners) - {"0", "1"}:
            raise ValueError(f"owners {self.owners!r}: expected 0s and 1s")
        if "0" not in self.owners or "1" not in self.owners:
            raise ValueError(f"owners {self.owners!r}: both players need a card")
        if self.weights is not None and len(self.weights) != len(self.owners):
            raise ValueError("one weight per card is needed")

    @property
    def size(self) -> int:
        return len(self.owners)

    @property
    def variant(self) -> str:
        return "d-durak" if self.draw_rule else "durak"

    def key(self) -> str:
        """The store key: owners, then the weights if any."""
        if self.weights is None:
            return self.owners
        return self.owners + "/" + ",".join(str(w) for w in self.weights)

    def masks(self) -> tuple[int, int]:
        """``(remaining, mover)`` bit masks for the search engines."""
        remaining = (1 << self.size) - 1
        mover = sum(1 << i for i, owner in enumerate(self.owners) if owner == "0")
        return remaining, mover

    def mover_cards(self) -> list[int]:
        return [i + 1 for i, owner in enumerate(self.owners) if owner == "0"]

    def beats(self, card: int) -> list[int]:
        """The opponent's cards that can beat `card` (1-based canonical numbers)."""
        return [i + 1 for i in range(card, self.size) if self.owners[i] == "1"]

    @classmethod
    def from_hands(
        cls,
        mover: Sequence[int] | frozenset[int],
        opponent: Sequence[int] | frozenset[int],
        weights: Sequence[int] | None = None,
        draw_rule: bool = False,
    ) -> tuple[Position, tuple[int, ...]]:
        """The canonical position and the original card number of each of its cards.

        `weights`, if given, is indexed by original card number minus one.
        """
        mine = set(mover)
        cards = tuple(sorted(mine | set(opponent)))
        owners = "".join("0" if c in mine else "1" for c in cards)
        ws = tuple(weights[c - 1] for c in cards) if weights is not None else None
        return cls(owners, ws, draw_rule), cards


@dataclass(frozen=True)
class LayAnalysis:
    """Laying one card: its value (best reply assumed) and each reply's value.

    Values are encoded for the mover (`arena.games.durak.values`). `replies` maps
    ``0`` (take) or a beating card to the value after it.
    """

    card: int
    value: int
    replies: dict[int, int] = field(hash=False)

    @property
    def best_replies(self) -> list[int]:
        return sorted(r for r, v in self.replies.items() if v == self.value)

    @property
    def must_take(self) -> bool:
        """Taking is the only good answer, and beating is possible (and a mistake)."""
        return len(self.replies) > 1 and self.best_replies == [0]

    @property
    def must_beat(self) -> bool:
        """Beating is the only good answer: taking is a mistake."""
        return 0 not in self.best_replies


def reply_text(reply: int) -> str:
    return "take" if reply == 0 else f"beat {reply}"


@dataclass(frozen=True)
class Solution:
    """Everything the solver reports about a position (canonical card numbers)."""

    position: Position
    value: int
    lays: tuple[LayAnalysis, ...]

    @property
    def verdict(self) -> Verdict:
        return decode(self.value)

    @property
    def optimal_moves(self) -> list[int]:
        return [lay.card for lay in self.lays if lay.value == self.value]

    @property
    def catch_take(self) -> int | None:
        """The smallest optimal card the opponent must take (beating it is a mistake)."""
        cards = [lay.card for lay in self.lays if lay.value == self.value and lay.must_take]
        return min(cards) if cards else None

    @property
    def catch_pass(self) -> int | None:
        """The largest optimal card the opponent must beat (taking it is a mistake)."""
        cards = [lay.card for lay in self.lays if lay.value == self.value and lay.must_beat]
        return max(cards) if cards else None

    def to_json(self, cards: Sequence[int] | None = None) -> dict[str, Any]:
        """The report; `cards` maps canonical numbers (1-based) to the caller's numbers."""

        def name(card: int) -> int:
            return card if cards is None else cards[card - 1]

        verdict = self.verdict
        return {
            "winner": verdict.winner,
            "score": verdict.score,
            "payoff": verdict.payoff,
            "value": self.value,
            "optimal_moves": [name(c) for c in self.optimal_moves],
            "catch_take": None if self.catch_take is None else name(self.catch_take),
            "catch_pass": None if self.catch_pass is None else name(self.catch_pass),
            "replies": {
                str(name(lay.card)): {
                    "payoff": decode(lay.value).payoff,
                    "value": lay.value,
                    "best": [reply_text(name(r) if r else 0) for r in lay.best_replies],
                    "all": {
                        reply_text(name(r) if r else 0): v for r, v in sorted(lay.replies.items())
                    },
                }
                for lay in self.lays
            },
        }

    def to_store(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "lays": [
                [lay.card, lay.value, [[r, v] for r, v in sorted(lay.replies.items())]]
                for lay in self.lays
            ],
        }

    @classmethod
    def from_store(cls, position: Position, data: dict[str, Any]) -> Solution:
        lays = tuple(
            LayAnalysis(card, value, {int(r): int(v) for r, v in replies})
            for card, value, replies in data["lays"]
        )
        return cls(position, int(data["value"]), lays)


def exact(search: Callable[[int, int], int], guess: int = 0) -> int:
    """MTD(f): the exact value from fail-soft null-window searches ``search(a, b)``."""
    lower, upper = -INF, INF
    value = guess
    while lower < upper:
        beta = value + 1 if value == lower else value
        value = search(beta - 1, beta)
        if value < beta:
            upper = value
        else:
            lower = value
    return value


class DurakSolver:
    """Solves canonical positions, keeping search tables between calls.

    One engine serves every unweighted position of a variant (their table keys are
    canonical); weighted positions get an engine per weight list (a few are kept).
    An optional `store` (see `arena.games.durak.store`) persists whole solutions.
    """

    def __init__(
        self, store: SolutionStore | None = None, *, max_weighted_engines: int = 4
    ) -> None:
        self.store = store
        self._engines: dict[tuple[Any, ...], Any] = {}
        self._max_weighted = max_weighted_engines

    def engine(self, position: Position) -> Any:
        key = (position.weights, position.draw_rule)
        engine = self._engines.get(key)
        if engine is None:
            if position.weights is not None:
                weighted = [k for k in self._engines if k[0] is not None]
                if len(weighted) >= self._max_weighted:
                    del self._engines[weighted[0]]
                engine = _Engine(position.size, list(position.weights), position.draw_rule)
            else:
                engine = _Engine(62, None, position.draw_rule)
            self._engines[key] = engine
        elif engine.table_size() > TABLE_LIMIT:
            engine.clear()
        return engine

    @property
    def nodes(self) -> int:
        return sum(engine.nodes for engine in self._engines.values())

    def value(self, position: Position, guess: int = 0) -> int:
        """The encoded value for the mover."""
        engine = self.engine(position)
        remaining, mover = position.masks()
        return exact(lambda a, b: engine.value(remaining, mover, a, b), guess)

    def lay_value(self, position: Position, card: int, guess: int = 0) -> int:
        """The value after the mover lays `card` (canonical, 1-based) and the best reply."""
        engine = self.engine(position)
        remaining, mover = position.masks()
        return exact(lambda a, b: engine.lay_value(remaining, mover, card - 1, a, b), guess)

    def reply_value(self, position: Position, card: int, reply: int, guess: int = 0) -> int:
        """The value after `card` is laid and answered: `reply` 0 = take, else the beat."""
        engine = self.engine(position)
        remaining, mover = position.masks()
        beat = reply - 1 if reply else TAKE
        return exact(lambda a, b: engine.reply_value(remaining, mover, card - 1, beat, a, b), guess)

    def solve(self, position: Position) -> Solution:
        """The full report; taken from the store when it is there."""
        if self.store is not None:
            stored = self.store.get(position)
            if stored is not None:
                return stored
        value = self.value(position)
        lays = []
        for card in position.mover_cards():
            replies = {0: self.reply_value(position, card, 0, value)}
            for beat in position.beats(card):
                replies[beat] = self.reply_value(position, card, beat, value)
            lays.append(LayAnalysis(card, min(replies.values()), replies))
        solution = Solution(position, value, tuple(lays))
        if self.store is not None:
            self.store.put(solution)
        return solution
