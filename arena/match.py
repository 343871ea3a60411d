"""A match in progress, without I/O: the one game loop behind every way of playing.

`Match` holds the state, rolls the chance events from its own seeded generator, asks
the `Referee` about every move and records the game. It does no I/O and keeps no
clock: the in-process runner (`play_match`), the server and log replay drive it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any, TypeVar

from arena.bots import Bot, BotGaveUp, finish_bot, prepare_bot
from arena.errors import MalformedMove
from arena.game import CHANCE, TERMINAL, Game, Outcome, Rejection, Termination
from arena.record import MatchRecord, Note, TurnRecord
from arena.referee import Referee, Verdict

__all__ = ["ChanceSource", "Match", "play_match"]

StateT = TypeVar("StateT")


class ChanceSource:
    """Samples chance outcomes from integer weights with a seeded generator.

    The draw is ``r = floor(random() * total)``, then the first outcome whose
    cumulative weight exceeds ``r`` (the thesis program's `RandomProvider` draws the
    same way from .NET's generator). Python's Mersenne Twister `random()` is stable
    across versions, so a seed always gives the same dice.
    """

    def __init__(self, seed: int | str | None) -> None:
        self._random = random.Random(seed).random
        self._table: tuple[Sequence[tuple[Any, int]], tuple[Any, ...], list[int], int] | None = None

    def sample(self, outcomes: Sequence[tuple[Any, int]]) -> Any:
        table = self._table
        if table is None or table[0] is not outcomes:
            table = _sampling_table(outcomes)
            self._table = table
        values = table[1]
        cumulative = table[2]
        r = int(self._random() * table[3])
        for index in range(len(cumulative)):
            if r < cumulative[index]:
                return values[index]
        return values[-1]


def _sampling_table(
    outcomes: Sequence[tuple[Any, int]],
) -> tuple[Sequence[tuple[Any, int]], tuple[Any, ...], list[int], int]:
    """The outcomes, their values and cumulative weights, for `ChanceSource.sample`."""
    cumulative = list(itertools.accumulate(weight for _, weight in outcomes))
    return outcomes, tuple(value for value, _ in outcomes), cumulative, cumulative[-1]


class Match:
    """One game being played: state, dice, referee and record.

    (Compiled as an extension type: `match.pxd` declares its fields.)

    Args:
        game: the rules bound to settings.
        players: a display name per seat.
        seed: seeds the chance events; stored in the record.
        match_id: stored in the record.
    """

    def __init__(
        self,
        game: Game[StateT, Any],
        players: Sequence[str],
        *,
        seed: int | None = None,
        match_id: str = "",
    ) -> None:
        self.game = game
        self.referee = Referee(game)
        # Bound once: the loop below runs for every move of every game.
        self._to_act = game.to_act
        self._apply_chance = game.apply_chance
        self._chance_outcomes = game.chance_outcomes
        self.players = tuple(players)
        self.seed = seed
        self.id = match_id
        self.state: Any = game.initial_state()
        self.outcome: Outcome | None = None
        self._history: list[tuple[int, Any, Any, Any]] = []
        self._chance = ChanceSource(seed) if game.type.chance else None
        self._pending_chance: Any = None
        self._seat = TERMINAL
        self.notes: list[Note] = []
        """The bots' debug lines (`note`), stored with the record."""
        self._roll()

    # -- flow -------------------------------------------------------------------------

    def _roll(self) -> None:
        """Resolve chance events until a player (or nobody) is to act."""
        to_act = self._to_act
        seat = to_act(self.state)
        while seat == CHANCE:
            assert self._chance is not None
            outcome = self._chance.sample(self._chance_outcomes(self.state))
            self.state = self._apply_chance(self.state, outcome)
            self._pending_chance = outcome
            seat = to_act(self.state)
        self._seat = seat
        if seat == TERMINAL and self.outcome is None:
            self.outcome = self.game.outcome(self.state)

    def to_act(self) -> int:
        """The seat to move, or `TERMINAL` once the game is over (forfeits included)."""
        return TERMINAL if self.outcome is not None else self._seat

    @property
    def pending_chance(self) -> Any:
        """The chance outcome the seat to act is moving after (the roll)."""
        return self._pending_chance

    def submit(self, seat: int, move: Any) -> Verdict:
        """Judge and, if legal, play `move` for `seat`. The state is kept on rejection."""
        if self.outcome is not None:
            return Verdict(None, Rejection("game-over", "the game is already over"))
        if isinstance(move, str):
            try:
                move = self.game.parse_move(move)
            except MalformedMove as error:
                return Verdict(None, Rejection("malformed", str(error)))
        verdict = self.referee.judge(self.state, move, seat)
        state = verdict.state
        if state is not None:
            self._history.append((seat, move, self._pending_chance, state))
            self.state = state
            self._pending_chance = None
            self._roll()
        return verdict

    def note(self, seat: int, text: str, turn: int | None = None) -> None:
        """Keep a bot's debug line with the game (`turn`: by default the current one)."""
        self.notes.append(Note(len(self._history) if turn is None else turn, seat, text))

    def run(self, bots: Sequence[Bot], rngs: Sequence[random.Random]) -> Outcome:
        """Play to the end with in-process bots; an illegal move forfeits at once.

        Each bot's optional ``prepare(game)`` hook runs first (`arena.bots.prepare_bot`),
        its optional ``game_over`` hook last (`arena.bots.finish_bot`: the debug lines
        it returns are kept with the record). A bot that raises `BotGaveUp` (a program
        that ran out of time or died) forfeits with the termination it names.
        """
        game = self.game
        for bot in bots:
            prepare_bot(bot, game)
        while (seat := self.to_act()) != TERMINAL:
            try:
                move = bots[seat].choose_move(game, self.state, rngs[seat])
            except BotGaveUp as failure:
                self.forfeit(seat, failure.termination, f"{self.players[seat]}: {failure}")
                break
            verdict = self.submit(seat, move)
            if verdict.rejection is not None:
                shown = move if isinstance(move, str) else game.format_move(move)
                self.forfeit(
                    seat,
                    Termination.ILLEGAL_MOVE,
                    f"{self.players[seat]} played {shown!r}: {verdict.rejection}",
                )
        assert self.outcome is not None
        for seat, bot in enumerate(bots):
            for turn, text in finish_bot(bot, game, seat, self.outcome):
                self.note(seat, text, turn)
        return self.outcome

    def forfeit(self, seat: int, termination: Termination, detail: str = "") -> Outcome:
        """End the game against `seat` (illegal move, timeout, disconnect)."""
        others = [s for s in range(len(self.players)) if s != seat]
        winner = others[0] if len(others) == 1 else None
        self.outcome = Outcome(winner, None, termination, loser=seat, detail=detail)
        return self.outcome

    def abort(self, detail: str = "") -> Outcome:
        self.outcome = Outcome(None, None, Termination.ABORTED, detail=detail)
        return self.outcome

    # -- record -----------------------------------------------------------------------

    @property
    def turns(self) -> list[TurnRecord]:
        """The accepted moves so far, as log records (built on demand)."""
        game = self.game
        return [
            TurnRecord(index, seat, game.format_move(move), chance, game.facts(state))
            for index, (seat, move, chance, state) in enumerate(self._history)
        ]

    def record(self) -> MatchRecord:
        return MatchRecord(
            game=self.game.type.name,
            settings=self.game.settings(),
            players=self.players,
            turns=tuple(self.turns),
            outcome=self.outcome,
            seed=self.seed,
            id=self.id,
            chance_name=self.game.type.chance_name,
            notes=tuple(self.notes),
        )


def play_match(
    game: Game[StateT, Any],
    bots: Sequence[Bot],
    *,
    seed: int,
    names: Sequence[str] | None = None,
    match_id: str = "",
) -> Match:
    """Play a whole game between in-process bots; an illegal move forfeits at once.

    Each bot gets its own generator, seeded from the game seed and its seat, so a game
    is reproducible from its seed and the bots' specs.
    """
    names = list(names) if names is not None else [type(bot).__name__ for bot in bots]
    match = Match(game, names, seed=seed, match_id=match_id)
    match.run(bots, [random.Random(f"{seed}:bot:{seat}") for seat in range(len(bots))])
    return match
