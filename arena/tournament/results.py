"""Game results and what a tournament adds them up to.

The forfeit rule (the same for in-process and server tournaments): a game's scores are
the `Outcome.scores` its rules gave at the end. A game that did not end by the rules
(an illegal move, a timeout, a disconnection, an abort) has no scores: it counts in the
wins, losses and forfeits, and in the Elo figures, but not in the mean scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.game import Outcome, Termination
from arena.tournament.spec import GameKey, Pairing, TournamentSpec

__all__ = ["CellResult", "GameResult", "SwissRound", "TournamentResult", "game_result"]

Scores = tuple[float, float]


def _number(value: float) -> float:
    """Integral scores as ints (as the results database gives them back)."""
    return int(value) if float(value).is_integer() else float(value)


@dataclass(frozen=True)
class GameResult:
    """One game of a tournament: who sat where, who won, and the game's scores."""

    first: int
    second: int
    index: int
    winner: int | None
    """The winning seat (0: first, 1: second), None for a draw."""
    scores: Scores | None
    """The game's own scores; None if the game was forfeited (see the module's rule)."""
    termination: Termination = Termination.NORMAL
    detail: str = field(default="", compare=False)
    """Why a forfeited game ended (the outcome's detail: a crash's signal and last
    standard error, the timeout...); not kept in the results database."""

    @property
    def forfeit(self) -> bool:
        return self.termination is not Termination.NORMAL

    @property
    def key(self) -> GameKey:
        return GameKey.of(self.first, self.second, self.index)

    def points(self, seat: int) -> float:
        """1 for a win of `seat`, ½ for a draw, 0 for a loss."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == seat else 0.0


def game_result(first: int, second: int, index: int, outcome: Outcome) -> GameResult:
    """The result of a finished game, by the forfeit rule of this module."""
    scores: Scores | None = None
    if outcome.termination is Termination.NORMAL and outcome.scores is not None:
        scores = (_number(outcome.scores[0]), _number(outcome.scores[1]))
    detail = outcome.detail if outcome.termination is not Termination.NORMAL else ""
    return GameResult(first, second, index, outcome.winner, scores, outcome.termination,
                      detail)


@dataclass
class CellResult:
    """Results of the games of one seat order (first, second) of a pairing."""

    first_wins: int = 0
    second_wins: int = 0
    draws: int = 0
    forfeits: int = 0
    scores: list[float] = field(default_factory=lambda: [0, 0])
    squares: list[float] = field(default_factory=lambda: [0, 0])
    games: int = 0
    scored: int = 0
    """Games with scores (every game but the forfeits): the mean scores' denominator."""

    def add(self, result: GameResult) -> None:
        self.games += 1
        if result.winner == 0:
            self.first_wins += 1
        elif result.winner == 1:
            self.second_wins += 1
        else:
            self.draws += 1
        if result.forfeit:
            self.forfeits += 1
        if result.scores is not None:
            self.scored += 1
            for seat in (0, 1):
                self.scores[seat] += result.scores[seat]
                self.squares[seat] += result.scores[seat] ** 2

    def mean_scores(self) -> tuple[float, float]:
        n = self.scored or 1
        return self.scores[0] / n, self.scores[1] / n

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "first_wins": self.first_wins,
                "second_wins": self.second_wins, "draws": self.draws, "forfeits": self.forfeits,
                "scored": self.scored, "scores": self.scores, "squares": self.squares}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CellResult:
        return cls(data["first_wins"], data["second_wins"], data["draws"], data["forfeits"],
                   list(data["scores"]), list(data["squares"]), data["games"],
                   data.get("scored", data["games"]))


@dataclass(frozen=True)
class SwissRound:
    """The pairings of one round of a Swiss, and the bot that sat out (if any)."""

    number: int
    pairings: tuple[Pairing, ...]
    bye: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"round": self.number, "pairings": [[p.low, p.high] for p in self.pairings],
                "bye": self.bye}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SwissRound:
        return cls(int(data["round"]), tuple(Pairing(int(a), int(b)) for a, b in data["pairings"]),
                   data.get("bye"))


@dataclass
class TournamentResult:
    """The tables of a tournament: per seat order (`cells`) and per pairing (`pentanomial`).

    `pentanomial[pairing]` counts the pairing's complete pairs by the score of its
    ``low`` bot: 0, ½, 1, 1½ or 2 points out of the pair's two games. Results may be
    added in any order (a pair is counted once both its games are in).
    """

    spec: TournamentSpec
    cells: dict[tuple[int, int], CellResult] = field(default_factory=dict)
    pentanomial: dict[Pairing, list[int]] = field(default_factory=dict)
    rounds: list[SwissRound] = field(default_factory=list)
    _halves: dict[tuple[Pairing, int], float] = field(default_factory=dict, repr=False)
    forfeited: list[GameResult] = field(default_factory=list, repr=False)
    """Every forfeited game, in the order added (with its cause, `GameResult.detail`)."""

    @classmethod
    def empty(cls, spec: TournamentSpec) -> TournamentResult:
        result = cls(spec)
        if spec.format != "swiss":
            for pairing in spec.pairings():
                result.expect(pairing)
        return result

    def expect(self, pairing: Pairing) -> None:
        """Make the table cells of a pairing (empty until its games come in)."""
        for seat in pairing.seats():
            self.cells.setdefault(pairing.players(seat), CellResult())
        if not pairing.self_play:
            self.pentanomial.setdefault(pairing, [0] * 5)

    def add(self, result: GameResult) -> None:
        self.cells.setdefault((result.first, result.second), CellResult()).add(result)
        if result.forfeit:
            self.forfeited.append(result)
        key = result.key
        if key.pairing.self_play:
            return
        points = result.points(key.seat)  # the low bot's points: it sits in seat `key.seat`
        other = self._halves.pop((key.pairing, key.pair), None)
        if other is None:
            self._halves[(key.pairing, key.pair)] = points
        else:
            self.pentanomial.setdefault(key.pairing, [0] * 5)[round(2 * (points + other))] += 1

    def games(self) -> int:
        return sum(cell.games for cell in self.cells.values())

    def points(self, bot: int) -> float:
        """A bot's game points against the others (self-play left out)."""
        total = 0.0
        for (first, second), cell in self.cells.items():
            if first == second:
                continue
            if first == bot:
                total += cell.first_wins + cell.draws / 2
            elif second == bot:
                total += cell.second_wins + cell.draws / 2
        return total

    def pentanomial_of(self, bot: int) -> list[int]:
        """The pentanomial counts of every pair a bot played, from its side."""
        total = [0] * 5
        for pairing, counts in self.pentanomial.items():
            if bot == pairing.low:
                total = [a + b for a, b in zip(total, counts, strict=True)]
            elif bot == pairing.high:
                total = [a + b for a, b in zip(total, reversed(counts), strict=True)]
        return total
