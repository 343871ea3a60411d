"""`HeapsGame`: a stone-heap game (declarative rules) bound to the game API."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.errors import MalformedMove, SettingsError, unknown_settings
from arena.game import TERMINAL, Game, GameType, LegalOptions, Outcome, Rejection
from arena.games.heaps.examples import EXAMPLES, example_rules
from arena.games.heaps.rules import HeapMove, HeapRules, Op
from arena.limits import SettingLimit
from arena.starts import Params

if TYPE_CHECKING:
    import random


__all__ = ["HeapsGame", "HeapsState"]

DEFAULT_MAX_MOVES = 1000
_MOVE_RE = re.compile(r"\s*(?:(\d+)\s+)?(\+|\*|-|//)\s*(\d+)\s*")


@dataclass(frozen=True, slots=True)
class HeapsState:
    """The heap sizes (in the players' order) and how many moves were made."""

    heaps: tuple[int, ...]
    moves_made: int = 0


class HeapsGame(Game[HeapsState, HeapMove]):
    """Players alternate operations on the heaps; whoever reaches the target wins.

    Settings: ``rules`` (declarative rules, see docs/games/heaps.md) or ``example``
    (a built-in task number such as ``"49932"``; `settings` gives both, and both may be
    given if they agree), an optional ``target`` overriding
    the rules' one, ``start`` (the initial heaps, e.g. ``[7, 10]``) and
    ``max_moves`` (default 1000): a game that long is a draw, so that rules with
    ``-k`` or ``//k``, whose positions can repeat, still end.
    """

    type = GameType(
        name="heaps",
        title="Stone heaps",
        description=(
            "One or two heaps of stones; players alternate adding to or multiplying a "
            "heap as the rules allow; whoever first brings the heaps to the target wins."
        ),
        move_syntax="heap number and operation, e.g. '1 +5' or '2 *2' ('+1' with one heap)",
        # heaps-perfect solves every position below the target: about 0.25 s for a
        # million with one heap; two heaps with the target 50,000 took 22 s and 1.7 GiB
        limits=(
            SettingLimit("positions", "the target to the power of the number of heaps (a "
                         "bound on the positions the perfect player solves)",
                         standard=1_000_000, guest=250_000),
            SettingLimit("max_moves", "the moves after which the game is a draw",
                         standard=10_000, guest=1000),
        ),
    )

    def __init__(
        self,
        rules: HeapRules,
        start: tuple[int, ...],
        example: str | None = None,
        max_moves: int = DEFAULT_MAX_MOVES,
    ) -> None:
        if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
            raise SettingsError(f"heaps: 'max_moves' must be a positive integer, got {max_moves!r}",
                                code="max-moves-positive")
        if len(start) != rules.heaps:
            raise SettingsError(f"heaps: 'start' must give {rules.heaps} heap(s), got {list(start)}",
                                code="start-count", params={"count": rules.heaps})
        if any(isinstance(h, bool) or not isinstance(h, int) or h < rules.min_heap for h in start):
            raise SettingsError(
                f"heaps: 'start' heaps must be integers >= {rules.min_heap}, got {list(start)}",
                code="start-minimum", params={"minimum": rules.min_heap})
        if rules.is_over(start):
            raise SettingsError(f"heaps: the start {list(start)} has already reached the target",
                                code="start-over", params={"start": " ".join(map(str, start))})
        self.rules = rules
        self.start = tuple(start)
        self.example = example
        self.max_moves = max_moves

    def __repr__(self) -> str:
        return f"HeapsGame({self.settings()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HeapsGame) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[Any, ...]:
        return (self.rules, self.start, self.max_moves)

    # -- settings -------------------------------------------------------------------

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> HeapsGame:
        unknown = set(settings) - {"rules", "example", "target", "start", "max_moves"}
        if unknown:
            raise unknown_settings(
                f"heaps: unknown settings {sorted(unknown)} "
                "(known: rules, example, target, start, max_moves)",
                unknown, ("rules", "example", "target", "start", "max_moves"))
        example = settings.get("example")
        if "rules" not in settings and example is None:
            raise SettingsError("heaps: give 'rules' or 'example' (e.g. \"49932\")",
                                code="rules-missing")
        data = example_rules(str(example)) if example is not None else settings["rules"]
        rules = HeapRules.from_mapping(data, target=settings.get("target"))
        if example is not None and "rules" in settings:  # as games send them: both must agree
            given = HeapRules.from_mapping(settings["rules"], target=settings.get("target"))
            if given != rules:
                raise SettingsError(
                    f"heaps: 'rules' differ from example {example!r}'s; give one of them",
                    code="rules-differ", params={"example": str(example)})
        start = settings.get("start")
        if not isinstance(start, (list, tuple)):
            raise SettingsError(f"heaps: 'start' must be a list of heap sizes, got {start!r}",
                                code="start-not-list")
        return cls(
            rules,
            tuple(start),
            str(example) if example is not None else None,
            settings.get("max_moves", DEFAULT_MAX_MOVES),
        )

    @classmethod
    def generate(cls, rng: random.Random, params: Mapping[str, Any]) -> dict[str, Any]:
        """A random start of a built-in example (``example``, default "49932"): each
        heap's size in the range ``start`` (default [1, 20]) within 1..10000, the
        target in the range ``target`` (default: the example's), redrawn while the
        start is already over; ``max_moves`` as the settings' (default theirs)."""
        read = Params("heaps", params)
        [name] = read.choices("example", ["49932"], sorted(EXAMPLES))
        rules = EXAMPLES[name]
        at_least = rules["end"]["at_least"]
        low, high = read.span("start", (1, 20), 1, 10_000)
        target = read.span("target", (at_least, at_least), 1, 10**9)
        max_moves, _ = read.span("max_moves", (DEFAULT_MAX_MOVES, DEFAULT_MAX_MOVES), 1, 10**9)
        read.done()
        for _ in range(1000):
            goal = rng.randint(*target)
            start = [rng.randint(low, high) for _ in range(rules["heaps"])]
            if not HeapRules.from_mapping(example_rules(name), target=goal).is_over(tuple(start)):
                return {"example": name, "target": goal, "start": start, "max_moves": max_moves}
        raise SettingsError(f"heaps generator: every start drawn in start {[low, high]} is "
                            "over already: give smaller heaps or a larger target",
                            code="generator-over", params={"low": low, "high": high})

    def sizes(self) -> dict[str, int]:
        return {"positions": self.rules.target ** self.rules.heaps, "max_moves": self.max_moves}

    def max_move_length(self) -> int:
        return 64  # a move names a few small numbers

    def settings(self) -> dict[str, Any]:
        common = {"start": list(self.start), "max_moves": self.max_moves}
        rules = self.rules.to_mapping()
        if self.example is not None:  # the rules too, so a bot needs no table of examples
            return {"example": self.example, "target": self.rules.target, "rules": rules,
                    **common}
        return {"rules": rules, **common}

    # -- flow -----------------------------------------------------------------------

    def initial_state(self) -> HeapsState:
        return HeapsState(self.start)

    def _over(self, state: HeapsState) -> bool:
        return (
            self.rules.is_over(state.heaps)
            or state.moves_made >= self.max_moves
            or next(self.rules.moves(state.heaps), None) is None
        )

    def to_act(self, state: HeapsState) -> int:
        return TERMINAL if self._over(state) else state.moves_made % 2

    def move_number(self, state: HeapsState) -> int:
        return state.moves_made

    # -- moves ----------------------------------------------------------------------

    def parse_move(self, text: str) -> HeapMove:
        if not isinstance(text, str):
            raise MalformedMove(f"a move must be a string, got {type(text).__name__}")
        match = _MOVE_RE.fullmatch(text)
        if match is None:
            raise MalformedMove(
                f"{text!r} is not a heaps move: expected a heap number and an operation, e.g. '1 +5'"
            )
        if match.group(1) is None and self.rules.heaps > 1:
            raise MalformedMove(f"{text!r} does not say which heap: write '1 {text.strip()}' or '2 ...'")
        heap = int(match.group(1)) - 1 if match.group(1) is not None else 0
        return HeapMove(heap, Op(match.group(2), int(match.group(3))))

    def format_move(self, move: HeapMove) -> str:
        return str(move.op) if self.rules.heaps == 1 else str(move)

    def check_move(self, state: HeapsState, move: HeapMove) -> HeapsState | Rejection:
        if self._over(state):
            return Rejection("game-over", "the game is already over")
        if not 0 <= move.heap < self.rules.heaps:
            return Rejection(
                "no-such-heap", f"heap {move.heap + 1} does not exist (heaps 1..{self.rules.heaps})"
            )
        for legal, after in self.rules.moves(state.heaps):
            if legal == move:
                return HeapsState(after, state.moves_made + 1)
        allowed = ", ".join(str(op) for op in self.rules.ops_for(state.heaps, move.heap)) or "none"
        return Rejection(
            "move-not-allowed",
            f"{move.op} is not allowed on heap {move.heap + 1} with heaps {list(state.heaps)} "
            f"(allowed there: {allowed})",
        )

    def legal_moves(self, state: HeapsState, limit: int = 1000) -> LegalOptions:
        if self._over(state):
            return LegalOptions(())
        moves = [self.format_move(m) for m, _ in self.rules.moves(state.heaps)]
        return LegalOptions(tuple(moves[:limit]), complete=len(moves) <= limit, count=len(moves))

    # -- end ------------------------------------------------------------------------

    def outcome(self, state: HeapsState) -> Outcome | None:
        if not self._over(state):
            return None
        if self.rules.is_over(state.heaps):
            winner = (state.moves_made - 1) % 2
            detail = (
                f"{self.rules.measure} of {list(state.heaps)} reached {self.rules.target}"
            )
        elif state.moves_made >= self.max_moves:
            return Outcome(None, (0, 0), detail=f"no result after {self.max_moves} moves")
        else:
            winner = 1 - state.moves_made % 2
            detail = f"no move is possible from {list(state.heaps)}"
        return Outcome(winner, (1, 0) if winner == 0 else (0, 1), detail=detail)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The contract's parts (`Game.json_schema`): settings, state, move."""
        ops = {"type": "array", "items": {"type": "string", "pattern": r"^(\+|\*|-|//)[0-9]+$"}}
        rules = {
            "type": "object", "additionalProperties": False, "required": ["moves"],
            "description": "the declarative rules (docs/games/heaps.md)",
            "properties": {
                "heaps": {"enum": [1, 2], "description": "how many heaps"},
                "end": {"type": "object", "additionalProperties": False, "properties": {
                    "measure": {"enum": ["sum", "product", "max"]},
                    "at_least": {"type": "integer", "minimum": 1,
                                 "description": "the target: the game ends when the "
                                                "measure of the heaps reaches it"}}},
                "moves": {"type": "object", "additionalProperties": False,
                          "description": "operations allowed: on any heap, the larger, the "
                                         "smaller, and with equal heaps",
                          "properties": {key: ops for key in ("any", "larger", "smaller",
                                                               "equal")}},
                "min_heap": {"type": "integer", "description": "the smallest heap allowed"},
                "title": {"type": "string"},
            },
        }
        return {
            **super().json_schema(),
            "settings": {
                "type": "object", "additionalProperties": False, "required": ["start"],
                "anyOf": [{"required": ["rules"]}, {"required": ["example"]}],
                "properties": {
                    "rules": rules,
                    "example": {"type": "string", "description": (
                        "a built-in task (e.g. '49932'); games send its 'rules' too")},
                    "target": {"type": "integer", "minimum": 1,
                               "description": "overrides the rules' end.at_least"},
                    "start": {"type": "array", "items": {"type": "integer"},
                              "description": "the heaps at the start"},
                    "max_moves": {"type": "integer", "minimum": 1,
                                  "description": "a game this long is a draw"},
                },
            },
            "state": {"type": "object", "additionalProperties": False,
                      "required": ["heaps", "moves_made"],
                      "properties": {
                          "heaps": {"type": "array", "items": {"type": "integer"},
                                    "description": "the heap sizes (heap 1 first)"},
                          "moves_made": {"type": "integer", "minimum": 0,
                                         "description": "moves so far; seat moves_made % 2 "
                                                        "is to move"}}},
            "move": {"type": "string",
                     "pattern": r"^\s*(?:[0-9]+\s+)?(?:\+|\*|-|//)\s*[0-9]+\s*$",
                     "description": cls.type.move_syntax},
        }

    # -- serialization and presentation ---------------------------------------------

    def state_to_json(self, state: HeapsState) -> dict[str, Any]:
        return {"heaps": list(state.heaps), "moves_made": state.moves_made}

    def state_from_json(self, data: Mapping[str, Any]) -> HeapsState:
        heaps, made = data.get("heaps"), data.get("moves_made")
        if (
            not isinstance(heaps, list)
            or len(heaps) != self.rules.heaps
            or not all(isinstance(h, int) and not isinstance(h, bool) for h in heaps)
        ):
            raise ValueError(f"'heaps' must be a list of {self.rules.heaps} integers, got {heaps!r}")
        if isinstance(made, bool) or not isinstance(made, int) or made < 0:
            raise ValueError(f"'moves_made' must be a non-negative integer, got {made!r}")
        return HeapsState(tuple(heaps), made)

    def facts(self, state: HeapsState) -> dict[str, Any]:
        return {"heaps": list(state.heaps)}

    def render(self, state: HeapsState) -> dict[str, Any]:
        """The heaps, the goal and the rules in words, and the mover's options: one per
        legal move, with the heap it changes, a label (``+5``, ``×2``) and the size
        it leaves."""
        over = self._over(state)
        options = [
            {"move": self.format_move(move), "heap": move.heap, "label": op_label(move.op),
             "after": after[move.heap]}
            for move, after in ([] if over else self.rules.moves(state.heaps))
        ]
        return {
            **self.state_to_json(state),
            "target": self.rules.target,
            "measure": self.rules.measure,
            "value": self.rules.measure_of(state.heaps),
            "goal": self.goal_text(),
            "rules_text": self.rules_text(),
            "rules": self.rules_parts(),
            "max_moves": self.max_moves,
            "to_move": None if over else state.moves_made % 2,
            "options": options,
        }

    def goal_text(self) -> str:
        """When the game ends, in words."""
        target = self.rules.target
        if self.rules.heaps == 1:
            return f"the heap reaches {target} stones"
        if self.rules.measure == "max":
            return f"a heap reaches {target} stones"
        return f"the {self.rules.measure} of the heaps reaches {target}"

    def rules_parts(self) -> dict[str, Any]:
        """The operations allowed per case, as labels (a page words them in its language):
        ``any`` heap, the ``larger``, the ``smaller``, and with ``equal`` heaps (None: the
        rules say nothing of equal heaps)."""
        rules = self.rules

        def labels(items: tuple[Op, ...]) -> list[str]:
            return [op_label(op) for op in items]

        return {"heaps": rules.heaps, "any": labels(rules.any), "larger": labels(rules.larger),
                "smaller": labels(rules.smaller),
                "equal": None if rules.equal is None else labels(rules.equal)}

    def rules_text(self) -> list[str]:
        """The operations allowed, one line per case."""
        rules = self.rules

        def ops(items: tuple[Op, ...]) -> str:
            return " or ".join(op_label(op) for op in items)

        if rules.heaps == 1:
            return [f"{ops(rules.any)} on the heap"]
        lines = [f"{ops(rules.any)} on either heap"] if rules.any else []
        if rules.larger:
            lines.append(f"{ops(rules.larger)} on the larger heap")
        if rules.smaller:
            lines.append(f"{ops(rules.smaller)} on the smaller heap")
        if rules.equal is not None:
            lines.append(f"with equal heaps: {ops(rules.equal) or 'nothing'} on either heap")
        return lines

    @classmethod
    def web_lobby(cls) -> dict[str, Any]:
        examples = {
            name: {"title": rules["title"], "target": rules["end"]["at_least"],
                   "start": _EXAMPLE_STARTS.get(name, [1] * rules["heaps"])}
            for name, rules in EXAMPLES.items()
        }
        return {
            "settings": {"example": "49932", "target": 384, "start": [7, 10]},
            "examples": examples,
            "rules": {"heaps": 1, "end": {"measure": "sum", "at_least": 29},
                      "moves": {"any": ["+1", "*2"]}},
            "rules_start": [7],
        }


_EXAMPLE_STARTS = {"49932": [7, 10]}
"""A start position for each built-in example, for the web lobby."""
_OP_SIGNS = {"+": "+", "*": "×", "-": "−", "//": "÷"}


def op_label(op: Op) -> str:
    """An operation as people write it: ``+5``, ``×2``, ``−3``, ``÷2``."""
    return f"{_OP_SIGNS[op.kind]}{op.amount}"
