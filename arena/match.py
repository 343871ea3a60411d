"""A match in progress, without I/O: the one game loop behind every way of playing.

`Match` holds the state, rolls the chance events from its own seeded generator, asks
the `Referee` about every move and records the game. It does no I/O and keeps no
clock: the in-process runner (`play_match`) and the server drive it (logs are
replayed by `arena.replay`, on the same referee and dice). It keeps one state, the
current one: each accepted move's log record (the move string and the game's facts) is
made when the move is played. A game stored as it was played is taken up again where it
stopped by `Match.resume`, through that same replay.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from arena.bots import Bot, BotGaveUp, finish_bot, prepare_bot
from arena.chance import ChanceSource
from arena.errors import MalformedMove
from arena.game import CHANCE, TERMINAL, Game, Outcome, Rejection, Termination
from arena.record import MatchRecord, Note, TurnRecord
from arena.referee import Referee, Verdict, too_long
from arena.replay import Defect, DefectiveRecord, Replay

__all__ = ["Match", "play_match"]

StateT = TypeVar("StateT")


class Match:
    """One game being played: state, dice, referee and record.

    (Compiled as an extension type: `match.pxd` declares its fields.)

    Args:
        game: the rules bound to settings.
        players: a display name per seat.
        seed: seeds the chance events; stored in the record.
        match_id: stored in the record.
        seed_commitment: the commitment to `seed` published before the first move
            (`arena.seeds`); stored in the record.

    Example:
        >>> from arena.games.sim import SimGame
        >>> match = Match(SimGame.from_settings({"vertices": 5}), ["a", "b"], seed=1)
        >>> match.to_act(), match.submit(0, "0 1").accepted, match.to_act()
        (0, True, 1)
        >>> match.submit(0, "1 2").rejection.code
        'not-your-turn'
    """

    def __init__(
        self,
        game: Game[StateT, Any],
        players: Sequence[str],
        *,
        seed: int | None = None,
        match_id: str = "",
        seed_commitment: str | None = None,
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
        self.seed_commitment = seed_commitment
        self.state: Any = game.initial_state()
        self.outcome: Outcome | None = None
        self._turns: list[TurnRecord] = []
        self._chance = ChanceSource(seed) if game.type.chance else None
        self._pending_chance: Any = None
        self._seat = TERMINAL
        self.notes: list[Note] = []
        """The bots' debug lines (`note`), stored with the record."""
        self._roll()

    @classmethod
    def resume(cls, game: Game[Any, Any], record: MatchRecord) -> Match:
        """The match `record` stopped at, to play on: a game stored as it was played,
        taken up again (a server that restarts).

        Its turns are replayed through `arena.replay.Replay`, the one replay path (each
        move judged by the referee, each roll checked against the seed, each recorded
        fact compared); then the dice go on from where the replay left them, so the
        game goes on exactly as it would have. Its debug lines are kept.

        Raises:
            DefectiveRecord: a turn is not what the referee and the dice say, the
                record has a result, or a game of chance has no seed.
        """
        if record.outcome is not None:
            raise DefectiveRecord(Defect("game-over", "the record has a result: the game is over"))
        if game.type.chance and record.seed is None:
            raise DefectiveRecord(Defect("no-seed", "the record of a game of chance has no seed"))
        replay = Replay(record, game)
        for _ in replay:
            pass
        if replay.defect is not None:
            raise DefectiveRecord(replay.defect)
        match = cls(game, record.players, seed=record.seed, match_id=record.id,
                    seed_commitment=record.seed_commitment)
        match._take_up(replay.state, record.turns, replay.dice, record.notes)
        return match

    def _take_up(self, state: Any, turns: Sequence[TurnRecord], dice: ChanceSource | None,
                 notes: Sequence[Note]) -> None:
        """Continue from a replayed `state` after `turns`, drawing on from `dice`."""
        self.state = state
        self._turns = list(turns)
        if dice is not None:
            self._chance = dice
        self._pending_chance = None
        self.notes = list(notes)
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
        """Judge and, if legal, play `move` for `seat`. The state is kept on rejection.

        Args:
            seat: who moves.
            move: a move string or the game's parsed move.

        Returns:
            The referee's `Verdict`: the new state, or the `Rejection` (``game-over``
            once the game is over, ``malformed`` for a string that does not parse).
            Never raises for a bad move.
        """
        if self.outcome is not None:
            return Verdict(None, Rejection("game-over", "the game is already over"))
        if isinstance(move, str):
            limit = self.referee.max_move_length
            if 0 <= limit < len(move):
                return Verdict(None, too_long(move, limit))
            try:
                move = self.game.parse_move(move)
            except MalformedMove as error:
                return Verdict(None, Rejection("malformed", str(error), error.step))
        verdict = self.referee.judge(self.state, move, seat)
        state = verdict.state
        if state is not None:
            game = self.game
            self._turns.append(TurnRecord(len(self._turns), seat, game.format_move(move),
                                          self._pending_chance, game.facts(state)))
            self.state = state
            self._pending_chance = None
            self._roll()
        return verdict

    def note(self, seat: int, text: str, turn: int | None = None) -> None:
        """Keep a bot's debug line with the game (`turn`: by default the current one)."""
        self.notes.append(Note(len(self._turns) if turn is None else turn, seat, text))

    def run(self, bots: Sequence[Bot], rngs: Sequence[random.Random]) -> Outcome:
        """Play to the end with in-process bots; an illegal move forfeits at once.

        Args:
            bots: one bot per seat.
            rngs: one generator per seat, passed to its bot's `choose_move`.

        Returns:
            The outcome (also `outcome`).

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
        """End the game against `seat` (illegal move, timeout, disconnect).

        Args:
            seat: the seat that loses.
            termination: why.
            detail: for people (who played what).

        Returns:
            The outcome: the other seat wins a two-player game, nobody a larger one;
            no scores.
        """
        others = [s for s in range(len(self.players)) if s != seat]
        winner = others[0] if len(others) == 1 else None
        self.outcome = Outcome(winner, None, termination, loser=seat, detail=detail)
        return self.outcome

    def abort(self, detail: str = "") -> Outcome:
        """End the game with no result (the server stopped); returns the outcome."""
        self.outcome = Outcome(None, None, Termination.ABORTED, detail=detail)
        return self.outcome

    # -- record -----------------------------------------------------------------------

    @property
    def turns(self) -> list[TurnRecord]:
        """The accepted moves so far, as log records."""
        return list(self._turns)

    @property
    def turn_count(self) -> int:
        """How many moves were accepted so far."""
        return len(self._turns)

    def record(self) -> MatchRecord:
        """The game so far as a log record (`arena.record`), replayable by `arena.replay`."""
        return MatchRecord(
            game=self.game.type.name,
            settings=self.game.settings(),
            players=self.players,
            turns=tuple(self._turns),
            outcome=self.outcome,
            seed=self.seed,
            id=self.id,
            chance_name=self.game.type.chance_name,
            seed_commitment=self.seed_commitment,
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

    Args:
        game: the rules bound to settings.
        bots: one bot per seat.
        seed: seeds the dice and the bots' generators.
        names: the players' names in the record (default: the bots' class names).
        match_id: the record's id.

    Returns:
        The finished `Match` (its `outcome` and `record()`).
    """
    names = list(names) if names is not None else [type(bot).__name__ for bot in bots]
    match = Match(game, names, seed=seed, match_id=match_id)
    match.run(bots, [random.Random(f"{seed}:bot:{seat}") for seat in range(len(bots))])
    return match
