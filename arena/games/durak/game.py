"""`DurakGame`: single-suit Durak rules behind the generic `arena.game.Game` API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.errors import SettingsError
from arena.game import TERMINAL, Game, GameType, LegalOptions, Outcome, Rejection
from arena.games.durak import rules
from arena.games.durak.rules import DurakMove, DurakSettings, DurakState, MoveKind
from arena.limits import SettingLimit
from arena.starts import Params, draw_flag

if TYPE_CHECKING:
    import random


__all__ = ["DurakGame"]

_GAME_TYPE = GameType(
    name="durak",
    title="Single-suit Durak",
    description=(
        "Cards 1..n split between two players. The attacker lays a card; the defender "
        "takes it (the attacker lays again) or beats it with a higher card (both leave, "
        "the beater lays next). Whoever first has no cards wins, scoring the opponent's "
        "remaining cards (or their weights). D-Durak: running out together is a draw."
    ),
    move_syntax="'lay N' (attacker), 'take' or 'beat N' (defender); N is a card number",
    # durak-perfect's first move takes about 1.5 s with 32 cards, 6 s with 36, and
    # grows about fourfold for every four cards more
    limits=(SettingLimit("cards", "the cards in the deal", standard=32, guest=24),),
)


class DurakGame(Game[DurakState, DurakMove]):
    """The rules bound to one deal (`DurakSettings`)."""

    type = _GAME_TYPE

    def __init__(self, settings: DurakSettings) -> None:
        self.rules = settings

    def __repr__(self) -> str:
        return f"DurakGame({self.rules!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DurakGame) and other.rules == self.rules

    def __hash__(self) -> int:
        return hash(self.rules)

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> DurakGame:
        if not isinstance(settings, Mapping):
            raise SettingsError("durak settings must be a mapping", code="settings-not-object")
        return cls(DurakSettings.from_mapping(settings))

    @classmethod
    def generate(cls, rng: random.Random, params: Mapping[str, Any]) -> dict[str, Any]:
        """A random deal: ``cards`` in the deal, a range (default [6, 10]) within
        2..62; ``equal_hands`` (default true: half each, the odd card to a random
        seat; false: every card to a random seat, each seat one at least);
        ``draw_rule`` and ``first`` (true/false/"random", 0/1/"random"; default
        false and 0)."""
        read = Params("durak", params)
        low, high = read.span("cards", (6, 10), 2, rules.MAX_CARDS)
        equal = read.flag("equal_hands", True)
        draw_rule = read.flag("draw_rule", False)
        first = read.get("first", 0)
        if first not in (0, 1, "random") or isinstance(first, bool):
            raise SettingsError(f"durak generator: first must be 0, 1 or \"random\", not {first!r}",
                                code="generator-first", params={"value": str(first)[:40]})
        read.done()
        count = rng.randint(low, high)
        if draw_flag(rng, equal):
            owners = [0] * (count // 2) + [1] * (count // 2)
            if count % 2:
                owners.append(rng.randint(0, 1))
            rng.shuffle(owners)
        else:
            owners = [rng.randint(0, 1) for _ in range(count)]
            while len(set(owners)) < 2:  # each seat holds a card
                owners[rng.randrange(count)] = 1 - owners[0]
        return {"cards": "".join(map(str, owners)), "draw_rule": draw_flag(rng, draw_rule),
                "first": rng.randint(0, 1) if first == "random" else first}

    def settings(self) -> dict[str, Any]:
        return self.rules.to_mapping()

    def sizes(self) -> dict[str, int]:
        return {"cards": self.rules.num_cards}

    def max_move_length(self) -> int:
        return 64  # a move names a few small numbers

    def initial_state(self) -> DurakState:
        return rules.initial_state(self.rules)

    def to_act(self, state: DurakState) -> int:
        seat = state.to_move
        return TERMINAL if seat is None else seat

    def parse_move(self, text: str) -> DurakMove:
        return rules.parse_move(text)

    def format_move(self, move: DurakMove) -> str:
        return str(move)

    def check_move(self, state: DurakState, move: DurakMove) -> DurakState | Rejection:
        if not isinstance(move, DurakMove):
            return Rejection("malformed", f"{move!r} is not a durak move")
        refusal = rules.judge_move(self.rules, state, move)
        if refusal is not None:
            return Rejection(refusal.code, refusal.message)
        return rules.apply_move(state, move)

    def legal_moves(self, state: DurakState, limit: int = 1000) -> LegalOptions:
        moves = [str(m) for m in rules.legal_moves(self.rules, state)]
        return LegalOptions(tuple(moves[:limit]), complete=len(moves) <= limit, count=len(moves))

    def outcome(self, state: DurakState) -> Outcome | None:
        end = rules.result(self.rules, state)
        if end is None:
            return None
        detail = (
            "both ran out in the same move"
            if state.together
            else f"player {state.out} ran out of cards first"
        )
        return Outcome(end.winner, end.payoffs, detail=detail)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The contract's parts (`Game.json_schema`): settings, state, move."""
        cards = {"type": "array", "items": {"type": "integer", "minimum": 1}}
        seat_or_null = {"type": ["integer", "null"], "enum": [0, 1, None]}
        return {
            **super().json_schema(),
            "settings": {
                "type": "object", "additionalProperties": False, "required": ["cards"],
                "properties": {
                    "cards": {"type": "string", "pattern": "^[01]+$", "description": (
                        "the deal: character i (0-based) is the seat holding card i + 1")},
                    "weights": {"type": "array", "items": {"type": "integer"},
                                "description": "one weight per card (absent: each counts 1)"},
                    "draw_rule": {"type": "boolean",
                                  "description": "D-Durak: running out together is a draw"},
                    "first": {"enum": [0, 1], "description": "the seat that lays first"},
                },
            },
            "state": {
                "type": "object", "additionalProperties": False,
                "required": ["hands", "attacker", "table", "moves", "out", "together"],
                "properties": {
                    "hands": {"type": "array", "items": cards, "minItems": 2, "maxItems": 2,
                              "description": "each seat's cards, ascending (no hidden cards)"},
                    "attacker": {"enum": [0, 1], "description": "the seat that lays cards"},
                    "table": {"type": ["integer", "null"],
                              "description": "the card to beat or take (null: none)"},
                    "moves": {"type": "integer", "minimum": 0, "description": "moves so far"},
                    "out": {**seat_or_null, "description": "the seat that ran out first"},
                    "together": {"type": "boolean",
                                 "description": "both ran out in the same move"},
                },
            },
            "move": {"type": "string", "pattern": (
                r"^\s*(?:[Tt][Aa][Kk][Ee]|(?:[Ll][Aa][Yy]|[Bb][Ee][Aa][Tt])\s+[+-]?[0-9]+)\s*$"),
                "description": cls.type.move_syntax},
        }

    def state_to_json(self, state: DurakState) -> dict[str, Any]:
        return {
            "hands": [sorted(state.hands[0]), sorted(state.hands[1])],
            "attacker": state.attacker,
            "table": state.table,
            "moves": state.moves,
            "out": state.out,
            "together": state.together,
        }

    def state_from_json(self, data: Mapping[str, Any]) -> DurakState:
        try:
            lists = [[int(c) for c in hand] for hand in data["hands"]]
            hands = tuple(frozenset(hand) for hand in lists)
            attacker = int(data["attacker"])
            table = None if data.get("table") is None else int(data["table"])
            out = None if data.get("out") is None else int(data["out"])
            state = DurakState(
                (hands[0], hands[1]),
                attacker,
                table,
                int(data.get("moves", 0)),
                out,
                bool(data.get("together", False)),
            )
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise ValueError(f"bad durak state: {error}") from None
        cards = [c for hand in lists for c in hand] + ([table] if table is not None else [])
        if len(hands) != 2 or attacker not in (0, 1) or out not in (None, 0, 1):
            raise ValueError("bad durak state: two hands and seats 0/1 expected")
        if len(cards) != len(set(cards)) or not all(1 <= c <= self.rules.num_cards for c in cards):
            raise ValueError("bad durak state: cards repeat or do not exist")
        return state

    def facts(self, state: DurakState) -> dict[str, Any]:
        return {"hands": [sorted(state.hands[0]), sorted(state.hands[1])]}

    def render(self, state: DurakState) -> dict[str, Any]:
        """Both hands (the game has no hidden cards), the table, the cards that left the
        game, what each hand is worth, and the mover's options with labels."""
        view = self.state_to_json(state)
        view["to_move"] = state.to_move
        view["defender"] = state.defender
        view["cards"] = self.rules.num_cards
        view["weights"] = list(self.rules.weights) if self.rules.weights else None
        view["draw_rule"] = self.rules.draw_rule
        played = set(range(1, self.rules.num_cards + 1)) - state.hands[0] - state.hands[1]
        view["played"] = sorted(played - ({state.table} if state.table else set()))
        view["worth"] = [sum(self.rules.weight(c) for c in hand) for hand in state.hands]
        view["options"] = [
            {"move": str(move), "kind": move.kind.value, "card": move.card,
             "label": _label(move, state)}
            for move in rules.legal_moves(self.rules, state)
        ]
        return view

    @classmethod
    def web_lobby(cls) -> dict[str, Any]:
        return {
            "settings": {"cards": "01101001", "draw_rule": False, "first": 0},
            "max_cards": rules.MAX_CARDS,
            "max_weighted_cards": rules.MAX_WEIGHTED_CARDS,
        }

    def move_number(self, state: DurakState) -> int:
        return state.moves


def _label(move: DurakMove, state: DurakState) -> str:
    if move.kind is MoveKind.TAKE:
        return f"take {state.table}"
    if move.kind is MoveKind.BEAT:
        return f"beat {state.table} with {move.card}"
    return f"lay {move.card}"
