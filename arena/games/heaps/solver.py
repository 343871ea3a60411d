"""Retrograde colouring of a heap game, as in the seed (EGE tasks 19-21).

Colour 1: the player to move wins with one move (reaches the target). Colour 2: every
move leads to a colour-1 position (the player to move loses: the opponent wins with
his first move). Colour 2k+1: some move leads to a colour-2k position (win with the
(k+1)-th move); colour 2k: every move leads to an odd colour, the largest being
2k-1. Positions left without a colour are draws (only games with cycles have them).

The colouring is a breadth-first retrograde pass: each position counts its
successors still open and is coloured when the last one is settled, so the work is
linear in the number of moves, however many steps the game takes.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

from arena.errors import SettingsError
from arena.games.heaps.rules import HeapRules, HeapSpec, Op

__all__ = ["TASK_WORDING", "ForwardColours", "HeapsReport", "HeapsSolution", "solve_heaps"]

Position = tuple[int, ...]

TASK_WORDING: dict[str, str] = {
    "19-some": (
        "Task 19: Petya cannot win with one move, and after some (an unsuccessful) "
        "move of his Vanya wins with his first move."
    ),
    "19-any": (
        "Task 19: Petya cannot win with one move, and whatever move Petya makes, "
        "Vanya wins with his first move."
    ),
    "20": (
        "Task 20: Petya cannot win with one move, but wins with his second move "
        "whatever Vanya does."
    ),
    "21": (
        "Task 21: Vanya wins with his first or second move whatever Petya does, but "
        "cannot be sure to win with his first move."
    ),
}


@dataclass(frozen=True)
class HeapsSolution:
    """The colour of every non-terminal position, and the EGE answers."""

    colour: Mapping[Position, int]
    """Position (heaps sorted if the game is symmetric) -> colour; absent: draw."""
    draws: tuple[Position, ...]
    task19_some: Sequence[Position]
    """Positions not won in one move with a move to a position won in one move."""
    seconds: float
    symmetric: bool

    def normalise(self, position: Sequence[int]) -> Position:
        return tuple(sorted(position)) if self.symmetric else tuple(position)

    def colour_of(self, position: Sequence[int]) -> int | None:
        return self.colour.get(self.normalise(position))

    def steps(self) -> dict[int, list[Position]]:
        """Colouring step t -> the positions coloured at that step, sorted."""
        by_step: dict[int, list[Position]] = {}
        for position, colour in self.colour.items():
            by_step.setdefault(colour, []).append(position)
        return {t: sorted(by_step[t]) for t in sorted(by_step)}

    def answers(self) -> dict[str, list[Position]]:
        """The positions answering tasks 19 (both readings), 20 and 21."""
        steps = self.steps()
        return {
            "19-some": list(self.task19_some),
            "19-any": steps.get(2, []),
            "20": steps.get(3, []),
            "21": steps.get(4, []),
        }


@dataclass(frozen=True)
class HeapsReport:
    """A solution and how many positions it coloured, printable as JSON or as the seed's text."""

    solution: HeapsSolution
    positions: int

    def to_json(self) -> dict[str, Any]:
        steps = self.solution.steps()
        answers = self.solution.answers()
        return {
            "positions": self.positions,
            "seconds": round(self.solution.seconds, 6),
            "symmetric": self.solution.symmetric,
            "steps": [
                {"step": t, "count": len(ps), "positions": [list(p) for p in ps]}
                for t, ps in steps.items()
            ],
            "draws": {"count": len(self.solution.draws), "positions": [list(p) for p in self.solution.draws]},
            "answers": {
                key: {"question": TASK_WORDING[key], "count": len(ps), "positions": [list(p) for p in ps]}
                for key, ps in answers.items()
            },
        }

    def summary_lines(self) -> list[str]:
        """The seed's printout: ``k wins-in-k loses-in-k`` per move, then z19/z20/z21."""
        steps = self.solution.steps()
        lines = []
        last = max(steps, default=0)
        for k in range(1, (last + 1) // 2 + 1):
            lines.append(f"{k} {len(steps.get(2 * k - 1, []))} {len(steps.get(2 * k, []))}")
        answers = self.solution.answers()
        for label, key in (("z19", "19-any"), ("z20", "20"), ("z21", "21")):
            ps = sorted(answers[key], key=sum)
            lines.append(f"{label}: {ps[:3]} {ps[-3:]}")
        lines.append(f"z19 (after some Petya move): {len(answers['19-some'])} positions")
        if self.solution.draws:
            lines.append(f"draws: {len(self.solution.draws)} positions")
        return lines


MAX_POSITIONS = 20_000_000
"""The general pass gives up beyond this many positions (a game that never ends?)."""


def solve_heaps(
    spec: HeapSpec, starts: Iterable[Position] | None = None, *, max_positions: int = MAX_POSITIONS
) -> HeapsReport:
    """Colour every non-terminal position reachable from `starts` (default: the spec's).

    Raises `SettingsError` if more than `max_positions` positions are reachable.
    """
    if starts is None and isinstance(spec, HeapRules) and spec.increasing:
        return _solve_increasing(spec)
    began = time.perf_counter()
    symmetric = spec.symmetric
    is_over, next_positions = spec.is_over, spec.next_positions

    def norm(p: Position) -> Position:
        return tuple(sorted(p)) if symmetric else p

    # 1. the positions and their successors (terminal successors are not kept)
    successors: dict[Position, tuple[Position, ...]] = {}
    colour: dict[Position, int] = {}
    frontier = [norm(tuple(p)) for p in (starts if starts is not None else spec.start_positions())]
    while frontier:
        pending: list[Position] = []
        for p in frontier:
            if p in successors or is_over(p):
                continue
            wins_now = False
            found: set[Position] = set()
            for q in next_positions(p):
                if is_over(q):
                    wins_now = True
                else:
                    found.add(norm(q))
            successors[p] = nexts = tuple(sorted(found))
            if len(successors) > max_positions:
                raise SettingsError(
                    f"heaps: more than {max_positions} positions are reachable; "
                    "does the game always reach its target?",
                    code="positions-beyond", params={"most": max_positions}
                )
            if wins_now:
                colour[p] = 1
            pending.extend(q for q in nexts if q not in successors)
        frontier = pending

    # 2. retrograde pass, one colour layer at a time
    predecessors: dict[Position, list[Position]] = {}
    open_moves: dict[Position, int] = {}
    for p, nexts in successors.items():
        open_moves[p] = len(nexts)
        for q in nexts:
            predecessors.setdefault(q, []).append(p)
    layer = [p for p, c in colour.items() if c == 1]
    # a position with no moves at all loses at once (colour 0 would be the terminal)
    stuck = [p for p, n in open_moves.items() if n == 0 and p not in colour]
    for p in stuck:
        colour[p] = 2
    t = 1
    later = stuck
    while layer or later:
        next_layer: list[Position] = []
        for q in layer:
            for p in predecessors.get(q, ()):
                if p in colour:
                    continue
                if t % 2 == 1:
                    open_moves[p] -= 1
                    if open_moves[p] == 0:
                        colour[p] = t + 1
                        next_layer.append(p)
                else:
                    colour[p] = t + 1
                    next_layer.append(p)
        t += 1
        if t == 2:
            next_layer.extend(later)
            later = []
        layer = next_layer
    draws = tuple(sorted(p for p in successors if p not in colour))
    some = tuple(
        sorted(
            p for p, nexts in successors.items()
            if colour.get(p) != 1 and any(colour.get(q) == 1 for q in nexts)
        )
    )
    solution = HeapsSolution(colour, draws, some, time.perf_counter() - began, symmetric)
    return HeapsReport(solution, len(successors))


class ForwardColours(Mapping[Position, int]):
    """The colours of the compiled forward pass (`_forward.pyx`), read as a mapping
    from positions (x <= y) to colours without building a dictionary of millions."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def __getitem__(self, position: Position) -> int:
        if len(position) != 2:
            raise KeyError(position)
        index = self.table.index(position[0], position[1])
        if index < 0:
            raise KeyError(position)
        colour: int = self.table.colours[index]
        return colour

    def __iter__(self) -> Iterator[Position]:
        positions: Iterator[Position] = self.table.positions()
        return positions

    def __len__(self) -> int:
        return len(self.table.colours)


class FlaggedPositions(Sequence[Position]):
    """The positions the compiled pass flagged for task 19 ("after some move"), built
    only when asked for: a target of 10^4 flags millions of them."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self._positions: tuple[Position, ...] | None = None

    def _all(self) -> tuple[Position, ...]:
        if self._positions is None:
            self._positions = tuple(self.table.flagged())
        return self._positions

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, index: int) -> Position: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Position]: ...

    def __getitem__(self, index: int | slice) -> Position | Sequence[Position]:
        return self._all()[index]

    def __iter__(self) -> Iterator[Position]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())


_KINDS = {"+": 0, "*": 1}
_MEASURES = {"sum": 0, "product": 1, "max": 2}


def _solve_two_heaps_compiled(rules: HeapRules) -> HeapsReport:
    """`_solve_increasing` for symmetric two-heap games, compiled (targets of 10^4 and
    more: a sum game has about target^2/4 positions)."""
    from arena.games.heaps._forward import forward_colours

    began = time.perf_counter()

    def ops(extra: tuple[Op, ...]) -> list[tuple[int, int]]:
        return [(_KINDS[op.kind], op.amount) for op in dict.fromkeys(rules.any + extra)]

    equal = rules.equal if rules.equal is not None else rules.larger + rules.smaller
    table = forward_colours(
        _MEASURES[rules.measure], rules.target, rules.min_heap,
        ops(equal), ops(rules.smaller), ops(rules.larger),
    )
    colours = ForwardColours(table)
    solution = HeapsSolution(colours, (), FlaggedPositions(table), time.perf_counter() - began, True)
    return HeapsReport(solution, len(colours))


def _solve_increasing(rules: HeapRules) -> HeapsReport:
    """The same colouring when every move adds stones (only +k and *k): each move
    increases the total, so positions taken by decreasing total see their successors
    already coloured, and one forward pass without predecessor lists suffices."""
    if rules.heaps == 2 and rules.symmetric and _compiled_forward():
        return _solve_two_heaps_compiled(rules)
    return _solve_increasing_python(rules)


def _compiled_forward() -> bool:
    try:
        import arena.games.heaps._forward  # noqa: F401
    except ImportError:
        return False
    return True


def _solve_increasing_python(rules: HeapRules) -> HeapsReport:
    """The forward pass in Python (one heap, and the reference for the compiled one)."""
    began = time.perf_counter()
    step, over = rules.successor_function, rules.over_function
    two = rules.heaps == 2
    colour: dict[Position, int] = {}
    some: list[Position] = []
    for p in sorted(rules.start_positions(), key=sum, reverse=True):
        nexts = step(p)
        if not nexts:
            colour[p] = 2  # no move at all: the player to move has lost
            continue
        low_even = high_odd = 0
        won = after_win = False
        for q in nexts:
            if over(q):
                won = True
                break
            if two and q[0] > q[1]:
                q = (q[1], q[0])
            c = colour[q]
            if c & 1:
                high_odd = max(high_odd, c)
                if c == 1:
                    after_win = True
            elif low_even == 0 or c < low_even:
                low_even = c
        if won:
            colour[p] = 1
            continue
        colour[p] = low_even + 1 if low_even else high_odd + 1
        if after_win:
            some.append(p)
    solution = HeapsSolution(
        colour, (), tuple(sorted(some)), time.perf_counter() - began, rules.symmetric
    )
    return HeapsReport(solution, len(colour))
