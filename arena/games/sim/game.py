"""`SimGame`: Sim bound to the game API (settings, move codec, judging, JSON)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.errors import MalformedMove, SettingsError, unknown_settings
from arena.game import TERMINAL, Game, GameType, LegalOptions, Outcome, Rejection
from arena.games.sim.rules import MAX_VERTICES, MIN_VERTICES, SimPosition, edge_mask, geometry
from arena.limits import SettingLimit
from arena.starts import Params

if TYPE_CHECKING:
    import random


__all__ = ["SimGame", "SimMove"]

_MOVE_RE = re.compile(r"\s*(-?\d+)\s+(-?\d+)\s*")
_COLOURS = ("red", "green")


@dataclass(frozen=True, slots=True)
class SimMove:
    """An edge to colour, its vertices in ascending order (`SimMove.of` sorts them)."""

    low: int
    high: int

    @classmethod
    def of(cls, a: int, b: int) -> SimMove:
        return cls(min(a, b), max(a, b))

    def __str__(self) -> str:
        return f"{self.low} {self.high}"


class SimGame(Game[SimPosition, SimMove]):
    """Sim on a graph (K_n by default): colour edges in turn; whoever completes a
    triangle of their colour loses."""

    type = GameType(
        name="sim",
        title="Sim",
        description=(
            "Players colour the free edges of the complete graph K_n (or of any simple "
            "graph given as an edge list) in turn, red first. Whoever completes a triangle "
            "of their own colour loses; a full board without one is a draw (impossible on "
            "K_n for n >= 6)."
        ),
        move_syntax="two vertex numbers 'i j' (0-based, either order), e.g. '0 3'",
        limits=(SettingLimit("vertices", "the vertices of the board", standard=MAX_VERTICES,
                             guest=MAX_VERTICES),),
    )

    def __init__(self, vertices: int = 6, edges: Any = None) -> None:
        if isinstance(vertices, bool) or not isinstance(vertices, int):
            raise SettingsError(f"sim: 'vertices' must be an integer, got {vertices!r}",
                                code="vertices-range", params={
                                    "value": str(vertices)[:30], "minimum": MIN_VERTICES,
                                    "maximum": MAX_VERTICES})
        if not MIN_VERTICES <= vertices <= MAX_VERTICES:
            raise SettingsError(
                f"sim: 'vertices' must be between {MIN_VERTICES} and {MAX_VERTICES}, "
                f"got {vertices}", code="vertices-range",
                params={"value": vertices, "minimum": MIN_VERTICES, "maximum": MAX_VERTICES})
        try:
            graph = None if edges is None else edge_mask(vertices, edges)
        except ValueError as error:
            raise SettingsError(f"sim: 'edges': {error}", code=getattr(error, "code", None),
                                params=getattr(error, "params", None)) from None
        self.vertices = vertices
        self.graph = graph
        """The graph's edge mask, ``None`` for the complete graph."""
        self.geometry = geometry(vertices, graph)

    def __repr__(self) -> str:
        if self.graph is None:
            return f"SimGame(vertices={self.vertices})"
        return f"SimGame(vertices={self.vertices}, edges={self.settings()['edges']})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, SimGame) and other.vertices == self.vertices
                and other.graph == self.graph)

    def __hash__(self) -> int:
        return hash(("sim", self.vertices, self.graph))

    # -- settings -------------------------------------------------------------------

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> SimGame:
        unknown = set(settings) - {"vertices", "edges"}
        if unknown:
            raise unknown_settings(
                f"sim: unknown settings {sorted(unknown)} (known: vertices, edges)",
                unknown, ("vertices", "edges"))
        return cls(settings.get("vertices", 6), settings.get("edges"))

    @classmethod
    def generate(cls, rng: random.Random, params: Mapping[str, Any]) -> dict[str, Any]:
        """A random Sim size: ``vertices``, a range (default [5, 7]) within 3..8."""
        read = Params("sim", params)
        low, high = read.span("vertices", (5, 7), MIN_VERTICES, MAX_VERTICES)
        read.done()
        return {"vertices": rng.randint(low, high)}

    def settings(self) -> dict[str, Any]:
        if self.graph is None:
            return {"vertices": self.vertices}
        return {"vertices": self.vertices,
                "edges": [list(edge) for edge in self.geometry.graph_edges()]}

    def sizes(self) -> dict[str, int]:
        return {"vertices": self.vertices}

    def max_move_length(self) -> int:
        return 64  # a move names a few small numbers

    # -- flow -----------------------------------------------------------------------

    def initial_state(self) -> SimPosition:
        return SimPosition(self.vertices, 0, 0, self.graph)

    def to_act(self, state: SimPosition) -> int:
        return TERMINAL if state.is_over() else state.seat_to_move

    def move_number(self, state: SimPosition) -> int:
        return state.moves_made

    # -- moves ----------------------------------------------------------------------

    def parse_move(self, text: str) -> SimMove:
        if not isinstance(text, str):
            raise MalformedMove(f"a move must be a string, got {type(text).__name__}")
        match = _MOVE_RE.fullmatch(text)
        if match is None:
            raise MalformedMove(
                f"{text!r} is not a Sim move: expected two vertex numbers such as '0 3'"
            )
        return SimMove.of(int(match.group(1)), int(match.group(2)))

    def format_move(self, move: SimMove) -> str:
        return str(move)

    def check_move(self, state: SimPosition, move: SimMove) -> SimPosition | Rejection:
        if state.is_over():
            return Rejection("game-over", "the game is already over")
        n = self.vertices
        for vertex in (move.low, move.high):
            if not 0 <= vertex < n:
                return Rejection(
                    "vertex-out-of-range", f"vertex {vertex} is not between 0 and {n - 1}"
                )
        if move.low == move.high:
            return Rejection("same-vertex", f"an edge joins two different vertices, got {move}")
        edge = self.geometry.edge_index[move.low][move.high]
        if not self.geometry.has_edge(edge):
            return Rejection("not-an-edge", f"{move.low}-{move.high} is not an edge of the graph")
        bit = 1 << edge
        for seat, mask in enumerate((state.red, state.green)):
            if mask & bit:
                return Rejection("edge-taken", f"edge {move} is already {_COLOURS[seat]}")
        return state.with_edge(edge)

    def legal_moves(self, state: SimPosition, limit: int = 1000) -> LegalOptions:
        if state.is_over():
            return LegalOptions(())
        free = [str(SimMove(*self.geometry.edges[e])) for e in _bits(state.free)]
        return LegalOptions(tuple(free[:limit]), complete=len(free) <= limit, count=len(free))

    def edge_move(self, edge: int) -> SimMove:
        """The move that colours edge number `edge`."""
        return SimMove(*self.geometry.edges[edge])

    def move_edge(self, move: SimMove) -> int:
        return self.geometry.edge_index[move.low][move.high]

    # -- end ------------------------------------------------------------------------

    def outcome(self, state: SimPosition) -> Outcome | None:
        loser = state.loser()
        if loser is not None:
            triangle = self.geometry.triangle_in(state.green if loser else state.red)
            shown = "-".join(map(str, triangle or ()))
            return Outcome(
                1 - loser,
                (1, 0) if loser else (0, 1),
                detail=f"{_COLOURS[loser]} completed the triangle {shown}",
            )
        if state.free == 0:
            return Outcome(None, (0, 0), detail="all edges coloured without a triangle")
        return None

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The contract's parts (`Game.json_schema`): settings, state, move."""
        edges = {"type": "array", "items": {
            "type": "array", "items": {"type": "integer", "minimum": 0},
            "minItems": 2, "maxItems": 2}}
        return {
            **super().json_schema(),
            "settings": {"type": "object", "additionalProperties": False,
                         "properties": {"vertices": {
                             "type": "integer", "minimum": MIN_VERTICES,
                             "maximum": MAX_VERTICES, "default": 6,
                             "description": "n of the complete graph K_n"}}},
            "state": {"type": "object", "additionalProperties": False,
                      "required": ["vertices", "red", "green"],
                      "properties": {
                          "vertices": {"type": "integer", "description": "n of K_n"},
                          "red": {**edges, "description": "edges coloured by seat 0, as "
                                                          "[low, high] vertex pairs"},
                          "green": {**edges, "description": "edges coloured by seat 1"}}},
            "move": {"type": "string", "pattern": r"^\s*-?[0-9]+\s+-?[0-9]+\s*$",
                     "description": cls.type.move_syntax},
        }

    # -- serialization and presentation ---------------------------------------------

    def state_to_json(self, state: SimPosition) -> dict[str, Any]:
        edges = self.geometry.edges
        return {
            "vertices": state.vertices,
            "red": [list(edges[e]) for e in _bits(state.red)],
            "green": [list(edges[e]) for e in _bits(state.green)],
        }

    def state_from_json(self, data: Mapping[str, Any]) -> SimPosition:
        if data.get("vertices") != self.vertices:
            raise ValueError(f"state has {data.get('vertices')!r} vertices, game has {self.vertices}")
        masks = []
        for colour in _COLOURS:
            mask = 0
            for item in data.get(colour, []):
                if not isinstance(item, (list, tuple)) or len(item) != 2:
                    raise ValueError(f"{colour} edge {item!r} is not a pair of vertices")
                a, b = item
                if not (isinstance(a, int) and isinstance(b, int)) or a == b or not (
                    0 <= a < self.vertices and 0 <= b < self.vertices
                ) or not self.geometry.has_edge(self.geometry.edge_index[a][b]):
                    raise ValueError(f"{colour} edge {item!r} is not an edge of the graph")
                mask |= 1 << self.geometry.edge_index[a][b]
            masks.append(mask)
        red, green = masks
        if red & green:
            raise ValueError("an edge is both red and green")
        if red.bit_count() - green.bit_count() not in (0, 1):
            raise ValueError("red must have as many edges as green, or one more")
        return SimPosition(self.vertices, red, green, self.graph)

    def facts(self, state: SimPosition) -> dict[str, Any]:
        loser = state.loser()
        if loser is None:
            return {}
        triangle = self.geometry.triangle_in(state.green if loser else state.red)
        return {"triangle": list(triangle or ())}

    def render(self, state: SimPosition) -> dict[str, Any]:
        """The board for the web UI: vertices on a circle (unit coordinates, vertex 0 at
        the top), the coloured edges, who moves, the free edges the mover may colour
        (``options``) and, at the end, the losing triangle."""
        n = self.vertices
        points = [
            [round(math.cos(2 * math.pi * k / n - math.pi / 2), 4),
             round(math.sin(2 * math.pi * k / n - math.pi / 2), 4)]
            for k in range(n)
        ]
        over = state.is_over()
        free = [] if over else [self.geometry.edges[e] for e in _bits(state.free)]
        return {
            **self.state_to_json(state),
            "graph": [list(edge) for edge in self.geometry.graph_edges()],
            "points": points,
            "colours": list(_COLOURS),
            "to_move": None if over else state.seat_to_move,
            "options": [{"move": f"{a} {b}", "label": f"{a}–{b}", "edge": [a, b]}
                        for a, b in free],
            "loser": state.loser(),
            **self.facts(state),
        }

    @classmethod
    def web_lobby(cls) -> dict[str, Any]:
        return {"settings": {"vertices": 6}, "vertices": [MIN_VERTICES, MAX_VERTICES],
                "graphs": GRAPHS}


GRAPHS: dict[str, dict[str, Any]] = {
    # Graphs the web lobby offers besides K_n (any edge list may be typed in).
    "K6 minus an edge": {"vertices": 6, "edges": [
        [a, b] for a in range(6) for b in range(a + 1, 6) if (a, b) != (0, 1)]},
    "octahedron K2,2,2": {"vertices": 6, "edges": [
        [a, b] for a in range(6) for b in range(a + 1, 6) if b - a != 3]},
    "wheel: hub 0, rim 1-5": {"vertices": 6, "edges": [
        [0, k] for k in range(1, 6)] + [[k, k % 5 + 1] for k in range(1, 6)]},
    "K3,3 (no triangle: always a draw)": {"vertices": 6, "edges": [
        [a, b] for a in range(3) for b in range(3, 6)]},
    "K7 minus a triangle": {"vertices": 7, "edges": [
        [a, b] for a in range(7) for b in range(a + 1, 7) if not (a < 3 and b < 3)]},
}


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
