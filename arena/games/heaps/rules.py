"""Stone-heap games (EGE tasks 19-21) as data: operations, declarative rules, positions.

A position is the tuple of heap sizes. Players alternate; a move applies one
operation to one heap; the game ends as soon as a measure of the heaps (sum,
product, largest heap) reaches the target, and the player who reached it wins.

Declarative rules (a mapping, read from TOML or JSON; see docs/games/heaps.md)::

    heaps = 2
    [end]
    measure = "product"      # sum | product | max
    at_least = 384
    [moves]
    larger = ["+5"]          # on the larger heap when the heaps differ
    smaller = ["*2"]         # on the smaller heap when the heaps differ
    equal = ["+3"]           # on either heap when they are equal
    any = []                 # on any heap, always

Nothing here does I/O: files are read in `arena.games.heaps.files`.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.errors import SettingsError
from protocol.schema import json_kind

__all__ = ["MEASURES", "HeapMove", "HeapRules", "HeapSpec", "Op"]

Position = tuple[int, ...]

MEASURES = ("sum", "product", "max")
_OP_RE = re.compile(r"\s*(\+|\*|-|//)\s*(\d+)\s*")
_MOVE_KEYS = ("any", "larger", "smaller", "equal")


class HeapSpec(Protocol):
    """What the retrograde solver needs to know about a heap game."""

    @property
    def heaps(self) -> int: ...

    @property
    def symmetric(self) -> bool:
        """True if swapping the heaps gives the same game (positions are then sorted)."""
        ...

    def is_over(self, position: Position) -> bool: ...

    def next_positions(self, position: Position) -> Iterator[Position]: ...

    def start_positions(self) -> Iterator[Position]:
        """Non-terminal positions to colour; positions they lead to are added."""
        ...


@dataclass(frozen=True, slots=True)
class Op:
    """An operation on one heap: ``+k``, ``*k``, ``-k`` or ``//k`` (floor division)."""

    kind: str
    amount: int

    @classmethod
    def parse(cls, text: str) -> Op:
        match = _OP_RE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise SettingsError(
                f"heaps: cannot read the operation {text!r}: write +k, *k, -k or //k, e.g. '+5'",
                code="op-unreadable", params={"op": str(text)[:40]})
        op = cls(match.group(1), int(match.group(2)))
        if op.kind in ("*", "//") and op.amount < 2 or op.kind in ("+", "-") and op.amount < 1:
            raise SettingsError(f"heaps: the operation {text!r} does not change the heap",
                                code="op-no-change", params={"op": text})
        return op

    def apply(self, heap: int) -> int:
        if self.kind == "+":
            return heap + self.amount
        if self.kind == "*":
            return heap * self.amount
        if self.kind == "-":
            return heap - self.amount
        return heap // self.amount

    def __str__(self) -> str:
        return f"{self.kind}{self.amount}"


@dataclass(frozen=True, slots=True)
class HeapMove:
    """Apply `op` to heap number `heap` (0-based)."""

    heap: int
    op: Op

    def __str__(self) -> str:
        return f"{self.heap + 1} {self.op}"


@dataclass(frozen=True)
class HeapRules:
    """Declarative rules, bound to a target."""

    heaps: int
    measure: str
    target: int
    any: tuple[Op, ...] = ()
    larger: tuple[Op, ...] = ()
    smaller: tuple[Op, ...] = ()
    equal: tuple[Op, ...] | None = None
    min_heap: int = 1
    symmetric: bool = True

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, target: int | None = None) -> HeapRules:
        """Read rules from TOML/JSON-like data; `target` overrides ``end.at_least``."""
        if not isinstance(data, Mapping):
            raise SettingsError(f"heaps: rules must be a table/object, got {json_kind(data)}",
                                code="rules-not-object")
        unknown = set(data) - {"heaps", "end", "moves", "min_heap", "title"}
        if unknown:
            raise SettingsError(
                f"heaps: unknown rule keys {sorted(unknown)} (known: heaps, end, moves, min_heap)",
                code="rules-unknown-keys", params={"keys": ", ".join(sorted(map(str, unknown)))})
        heaps = data.get("heaps", 1)
        if heaps not in (1, 2) or isinstance(heaps, bool):
            raise SettingsError(f"heaps: 'heaps' must be 1 or 2, got {heaps!r}",
                                code="rules-heaps")
        end = data.get("end", {})
        if not isinstance(end, Mapping) or set(end) - {"measure", "at_least"}:
            raise SettingsError("heaps: 'end' must have 'measure' and 'at_least' only",
                                code="rules-end")
        measure = end.get("measure", "sum")
        if measure not in MEASURES:
            raise SettingsError(f"heaps: end.measure must be one of {', '.join(MEASURES)}, got {measure!r}",
                                code="rules-measure", params={"known": ", ".join(MEASURES)})
        goal = target if target is not None else end.get("at_least")
        if isinstance(goal, bool) or not isinstance(goal, int) or goal < 1:
            raise SettingsError(f"heaps: the target (end.at_least) must be a positive integer, got {goal!r}",
                                code="target-positive")
        moves = data.get("moves")
        if not isinstance(moves, Mapping) or not moves:
            raise SettingsError("heaps: 'moves' must list operations, e.g. moves.any = ['+1', '*2']",
                                code="rules-no-moves")
        bad = set(moves) - set(_MOVE_KEYS)
        if bad:
            raise SettingsError(f"heaps: unknown move kinds {sorted(bad)} (known: {', '.join(_MOVE_KEYS)})",
                                code="rules-move-kinds",
                                params={"kinds": ", ".join(sorted(map(str, bad))),
                                        "known": ", ".join(_MOVE_KEYS)})
        if heaps == 1 and set(moves) - {"any"}:
            raise SettingsError("heaps: with one heap only moves.any is meaningful",
                                code="rules-one-heap-any")
        ops: dict[str, tuple[Op, ...]] = {}
        for key, texts in moves.items():
            if isinstance(texts, str) or not isinstance(texts, Sequence):
                raise SettingsError(f"heaps: moves.{key} must be a list such as ['+1', '*2']",
                                    code="rules-moves-list", params={"key": str(key)})
            ops[key] = tuple(Op.parse(t) for t in texts)
        min_heap = data.get("min_heap", 1)
        if isinstance(min_heap, bool) or not isinstance(min_heap, int) or min_heap < (
            1 if measure == "product" else 0
        ):
            raise SettingsError(f"heaps: min_heap must be an integer >= 1 (>= 0 unless product), got {min_heap!r}",
                                code="rules-min-heap")
        return cls(
            heaps, measure, goal, ops.get("any", ()), ops.get("larger", ()),
            ops.get("smaller", ()), ops.get("equal"), min_heap,
        )

    def to_mapping(self) -> dict[str, Any]:
        moves: dict[str, list[str]] = {}
        for key in _MOVE_KEYS:
            value = getattr(self, key)
            if value:
                moves[key] = [str(op) for op in value]
        if self.equal is not None:
            moves["equal"] = [str(op) for op in self.equal]
        return {
            "heaps": self.heaps,
            "end": {"measure": self.measure, "at_least": self.target},
            "moves": moves,
            "min_heap": self.min_heap,
        }

    # -- the game -------------------------------------------------------------------

    def measure_of(self, position: Position) -> int:
        if self.measure == "sum":
            return sum(position)
        if self.measure == "product":
            return math.prod(position)
        return max(position)

    def is_over(self, position: Position) -> bool:
        return self.measure_of(position) >= self.target

    def ops_for(self, position: Position, heap: int) -> tuple[Op, ...]:
        """The operations allowed on heap number `heap` in `position`."""
        if self.heaps == 1:
            return self.any
        mine, other = position[heap], position[1 - heap]
        if mine == other:
            extra = self.equal if self.equal is not None else self.larger + self.smaller
        else:
            extra = self.larger if mine > other else self.smaller
        return _unique(self.any + extra)

    def moves(self, position: Position) -> Iterator[tuple[HeapMove, Position]]:
        """Legal moves and the positions they lead to (heaps never go below min_heap)."""
        for heap in range(self.heaps):
            for op in self.ops_for(position, heap):
                size = op.apply(position[heap])
                if size < self.min_heap or size == position[heap]:
                    continue
                yield HeapMove(heap, op), position[:heap] + (size,) + position[heap + 1 :]

    def next_positions(self, position: Position) -> Iterator[Position]:
        """The positions one move away (what the solver needs: no move labels)."""
        return iter(self.successor_function(position))

    @property
    def increasing(self) -> bool:
        """Does every move add stones (only +k and *k)? Then no position repeats."""
        return all(op.kind in "+*" for op in self.any + self.larger + self.smaller + (self.equal or ()))

    @functools.cached_property
    def over_function(self) -> Callable[[Position], bool]:
        """`is_over` as a closure (the solver's hot loop)."""
        target = self.target
        if self.heaps == 1:
            return lambda p: p[0] >= target
        if self.measure == "sum":
            return lambda p: p[0] + p[1] >= target
        if self.measure == "product":
            return lambda p: p[0] * p[1] >= target
        return lambda p: p[0] >= target or p[1] >= target

    @functools.cached_property
    def successor_function(self) -> Callable[[Position], list[Position]]:
        """`next_positions` as a closure over plain functions (the solver's hot loop)."""
        functions = {"+": operator.add, "*": operator.mul, "-": operator.sub, "//": operator.floordiv}

        def plain(ops: tuple[Op, ...]) -> tuple[tuple[Callable[[int, int], int], int], ...]:
            return tuple((functions[op.kind], op.amount) for op in _unique(ops))

        low = self.min_heap
        on_any = plain(self.any)
        if self.heaps == 1:

            def one(position: Position) -> list[Position]:
                x = position[0]
                return [(v,) for f, k in on_any if (v := f(x, k)) >= low and v != x]

            return one
        on_equal = plain(self.any + (self.equal if self.equal is not None else self.larger + self.smaller))
        on_larger = plain(self.any + self.larger)
        on_smaller = plain(self.any + self.smaller)

        def two(position: Position) -> list[Position]:
            x, y = position
            out: list[Position] = []
            if x == y:
                for f, k in on_equal:
                    v = f(x, k)
                    if v >= low and v != x:
                        out.append((v, y))
                        out.append((x, v))
                return out
            ops_x, ops_y = (on_smaller, on_larger) if x < y else (on_larger, on_smaller)
            for f, k in ops_x:
                v = f(x, k)
                if v >= low and v != x:
                    out.append((v, y))
            for f, k in ops_y:
                v = f(y, k)
                if v >= low and v != y:
                    out.append((x, v))
            return out

        return two

    def start_positions(self) -> Iterator[Position]:
        """Every non-terminal position, the heaps in ascending order (the measures are
        monotone, so each row stops at the first terminal position)."""
        low = self.min_heap
        if self.heaps == 1:
            x = low
            while not self.is_over((x,)):
                yield (x,)
                x += 1
            return
        x = low
        while not self.is_over((x, x)):
            y = x
            while not self.is_over((x, y)):
                yield (x, y)
                y += 1
            x += 1


def _unique(ops: tuple[Op, ...]) -> tuple[Op, ...]:
    return tuple(dict.fromkeys(ops))
