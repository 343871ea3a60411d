"""Single-suit Durak and D-Durak as pure, immutable rules (no I/O, no randomness).

Cards are numbered 1..n; a deal is a 0/1 string whose position i names the owner of
card i + 1. The attacker lays a card; the defender takes it (the attacker lays again)
or beats it with a higher card (both cards leave the game and the beater lays next).
Whoever first has no cards left wins; see `result` for scores, weights and the draw
rule.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import MalformedMove, SettingsError, unknown_settings
from protocol.schema import json_kind

__all__ = [
    "MAX_CARDS",
    "MAX_WEIGHT",
    "MAX_WEIGHTED_CARDS",
    "DurakMove",
    "DurakResult",
    "DurakSettings",
    "DurakState",
    "MoveKind",
    "apply_move",
    "initial_state",
    "judge_move",
    "legal_moves",
    "parse_move",
    "result",
]

MAX_CARDS = 62
"""Largest deal: the solver packs a position into a 64-bit word."""
MAX_WEIGHTED_CARDS = 32
MAX_WEIGHT = 1_000_000
"""Largest absolute card weight, so that encoded values fit 32-bit integers."""


@dataclass(frozen=True)
class DurakSettings:
    """One deal and the rule variant.

    Attributes:
        deal: ``"0110001111"``: character i is the owner (0 or 1) of card i + 1.
        weights: one integer weight per card, or ``None`` (every card counts 1).
        draw_rule: D-Durak: a score of 0 (both run out in one move) is a draw.
        first: the seat that lays the first card.
    """

    deal: str
    weights: tuple[int, ...] | None = None
    draw_rule: bool = False
    first: int = 0

    def __post_init__(self) -> None:
        deal = self.deal
        if not isinstance(deal, str) or not deal or set(deal) - {"0", "1"}:
            raise SettingsError(f"deal {deal!r}: expected a string of 0s and 1s",
                                code="deal-digits", params={"deal": str(deal)[:70]})
        if "0" not in deal or "1" not in deal:
            raise SettingsError(f"deal {deal!r}: each player needs at least one card",
                                code="deal-one-each", params={"deal": deal[:70]})
        limit = MAX_CARDS if self.weights is None else MAX_WEIGHTED_CARDS
        if len(deal) > limit:
            raise SettingsError(f"deal {deal!r}: at most {limit} cards are supported",
                                code="deal-too-long", params={"cards": len(deal), "limit": limit})
        if self.weights is not None:
            if len(self.weights) != len(deal):
                raise SettingsError(
                    f"{len(self.weights)} weights for {len(deal)} cards: give one per card",
                    code="weights-count", params={"weights": len(self.weights), "cards": len(deal)})
            for weight in self.weights:
                if not isinstance(weight, int) or isinstance(weight, bool):
                    raise SettingsError(f"weight {weight!r} is not an integer",
                                        code="weight-not-integer", params={"weight": str(weight)[:40]})
                if abs(weight) > MAX_WEIGHT:
                    raise SettingsError(f"weight {weight} is beyond +-{MAX_WEIGHT}",
                                        code="weight-beyond",
                                        params={"weight": weight, "limit": MAX_WEIGHT})
        if self.first not in (0, 1):
            raise SettingsError(f"first player {self.first!r}: expected 0 or 1", code="first-seat",
                                params={"value": str(self.first)[:40]})

    @property
    def num_cards(self) -> int:
        return len(self.deal)

    def weight(self, card: int) -> int:
        return 1 if self.weights is None else self.weights[card - 1]

    def hand(self, seat: int) -> frozenset[int]:
        return frozenset(i + 1 for i, owner in enumerate(self.deal) if owner == str(seat))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> DurakSettings:
        known = {"cards", "weights", "draw_rule", "first"}
        unknown = set(data) - known
        if unknown:
            raise unknown_settings(
                f"unknown durak settings {sorted(unknown)} (known: {', '.join(sorted(known))})",
                unknown, sorted(known))
        if "cards" not in data:
            raise SettingsError("durak settings need 'cards', the deal as a 0/1 string",
                                code="deal-missing")
        if not isinstance(data["cards"], str):  # 10 would silently become the deal "10"
            raise SettingsError(
                f"durak: 'cards' must be the deal as a string of 0s and 1s (character i is "
                f"the seat holding card i + 1, e.g. \"0110\"), not {json_kind(data['cards'])} "
                f"{data['cards']!r}", code="deal-digits", params={"deal": str(data["cards"])[:70]})
        weights = data.get("weights")
        if weights is not None:
            if isinstance(weights, str):
                weights = parse_weights(weights)
            elif not isinstance(weights, (list, tuple)):
                raise SettingsError(f"weights {weights!r}: expected a list of integers",
                                    code="weights-not-integers", params={"text": str(weights)[:70]})
            weights = tuple(weights)
        draw_rule = data.get("draw_rule", False)
        if not isinstance(draw_rule, bool):
            raise SettingsError(f"draw_rule {draw_rule!r}: expected true or false", code="draw-rule-flag",
                                params={"value": str(draw_rule)[:40]})
        return cls(str(data["cards"]), weights, draw_rule, data.get("first", 0))

    def to_mapping(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "cards": self.deal,
            "draw_rule": self.draw_rule,
            "first": self.first,
        }
        if self.weights is not None:
            data["weights"] = list(self.weights)
        return data


def parse_weights(text: str) -> tuple[int, ...]:
    """``"1,2,-3"`` -> ``(1, 2, -3)``; raise `SettingsError` on anything else."""
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise SettingsError(f"weights {text!r}: expected comma-separated integers",
                            code="weights-not-integers", params={"text": text[:70]}) from None


class MoveKind(enum.Enum):
    LAY = "lay"
    TAKE = "take"
    BEAT = "beat"


@dataclass(frozen=True)
class DurakMove:
    """``lay 7`` (attacker), ``take`` or ``beat 9`` (defender)."""

    kind: MoveKind
    card: int | None = None

    def __str__(self) -> str:
        return self.kind.value if self.card is None else f"{self.kind.value} {self.card}"

    def __repr__(self) -> str:
        return f"DurakMove.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> DurakMove:
        return parse_move(text)


def parse_move(text: str) -> DurakMove:
    """Parse ``lay N``, ``take`` or ``beat N`` (case and spacing are free)."""
    if not isinstance(text, str):
        raise MalformedMove(f"a move is a string, not {type(text).__name__}")
    words = text.split()
    if not words:
        raise MalformedMove("empty move: expected 'lay N', 'take' or 'beat N'")
    try:
        kind = MoveKind(words[0].lower())
    except ValueError:
        raise MalformedMove(
            f"{text!r}: unknown move {words[0]!r} (expected 'lay N', 'take' or 'beat N')"
        ) from None
    if kind is MoveKind.TAKE:
        if len(words) != 1:
            raise MalformedMove(f"{text!r}: 'take' has no card")
        return DurakMove(kind)
    if len(words) != 2:
        raise MalformedMove(f"{text!r}: expected '{kind.value} N' with one card number")
    try:
        card = int(words[1])
    except ValueError:
        raise MalformedMove(f"{text!r}: {words[1]!r} is not a card number") from None
    return DurakMove(kind, card)


@dataclass(frozen=True)
class DurakState:
    """A position: both hands, who attacks, the card waiting for an answer, the end.

    Attributes:
        hands: the cards each seat holds.
        attacker: the seat that lays cards now.
        table: the card laid and not yet answered, or ``None``.
        moves: moves made so far (lays and answers).
        out: once the game is over, the seat that ran out of cards first.
        together: both ran out in the same move (score 0; a draw in D-Durak).
    """

    hands: tuple[frozenset[int], frozenset[int]]
    attacker: int
    table: int | None = None
    moves: int = 0
    out: int | None = None
    together: bool = False

    @property
    def over(self) -> bool:
        return self.out is not None

    @property
    def defender(self) -> int:
        return 1 - self.attacker

    @property
    def to_move(self) -> int | None:
        """The seat to move, ``None`` once the game is over."""
        if self.out is not None:
            return None
        return self.attacker if self.table is None else self.defender


def initial_state(settings: DurakSettings) -> DurakState:
    return DurakState((settings.hand(0), settings.hand(1)), settings.first)


@dataclass(frozen=True)
class Refusal:
    """Why a move breaks the rules (turned into an `arena.game.Rejection`)."""

    code: str
    message: str


def judge_move(settings: DurakSettings, state: DurakState, move: DurakMove) -> Refusal | None:
    """``None`` if `move` is legal for the seat to move, else the reason."""
    if state.over:
        return Refusal("game-over", "the game is already over")
    if move.card is not None and not 1 <= move.card <= settings.num_cards:
        return Refusal(
            "no-such-card", f"card {move.card} does not exist (cards are 1..{settings.num_cards})"
        )
    if move.kind is MoveKind.LAY:
        if state.table is not None:
            return Refusal(
                "must-answer", f"card {state.table} is on the table: 'take' it or 'beat' it"
            )
        if move.card not in state.hands[state.attacker]:
            return Refusal("not-your-card", f"player {state.attacker} has no card {move.card}")
        return None
    if state.table is None:
        return Refusal("nothing-to-answer", "no card is on the table: lay one ('lay N')")
    if move.kind is MoveKind.BEAT:
        if move.card not in state.hands[state.defender]:
            return Refusal("not-your-card", f"player {state.defender} has no card {move.card}")
        if move.card is not None and move.card <= state.table:
            return Refusal(
                "too-low", f"card {move.card} cannot beat {state.table}: beat with a higher card"
            )
    return None


def apply_move(state: DurakState, move: DurakMove) -> DurakState:
    """The state after a legal move (see `judge_move`)."""
    attacker, defender = state.attacker, state.defender
    hands = list(state.hands)
    moves = state.moves + 1
    if move.kind is MoveKind.LAY:
        assert move.card is not None
        hands[attacker] = hands[attacker] - {move.card}
        return DurakState((hands[0], hands[1]), attacker, move.card, moves)
    assert state.table is not None
    if move.kind is MoveKind.TAKE:
        hands[defender] = hands[defender] | {state.table}
        out = attacker if not hands[attacker] else None
        return DurakState((hands[0], hands[1]), attacker, None, moves, out)
    assert move.card is not None
    hands[defender] = hands[defender] - {move.card}
    pair = (hands[0], hands[1])
    if not hands[attacker]:
        return DurakState(pair, attacker, None, moves, attacker, not hands[defender])
    if not hands[defender]:
        return DurakState(pair, defender, None, moves, defender)
    return DurakState(pair, defender, None, moves)


def legal_moves(settings: DurakSettings, state: DurakState) -> list[DurakMove]:
    if state.over:
        return []
    if state.table is None:
        return [DurakMove(MoveKind.LAY, c) for c in sorted(state.hands[state.attacker])]
    beats = sorted(c for c in state.hands[state.defender] if c > state.table)
    return [DurakMove(MoveKind.TAKE)] + [DurakMove(MoveKind.BEAT, c) for c in beats]


@dataclass(frozen=True)
class DurakResult:
    """The end of a game: `winner` is a seat or ``None`` (draw); `payoffs` per seat.

    The player who ran out gets the weight sum of the other's remaining cards and the
    other gets minus that (zero-sum); `score` is its absolute value.
    """

    winner: int | None
    score: int
    payoffs: tuple[int, int]


def result(settings: DurakSettings, state: DurakState) -> DurakResult | None:
    if state.out is None:
        return None
    out, other = state.out, 1 - state.out
    left = 0 if state.together else sum(settings.weight(c) for c in state.hands[other])
    payoffs = (left, -left) if out == 0 else (-left, left)
    if left == 0 and settings.draw_rule:
        winner: int | None = None
    else:
        winner = out if left >= 0 else other
    return DurakResult(winner, abs(left), payoffs)
