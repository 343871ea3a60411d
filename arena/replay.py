"""The one replay path: a recorded game, turn by turn, through the referee.

For each turn: apply the chance outcome (checked against the seed, when the log has
one), judge the move with the `Referee`, and compare the facts the log recorded after
it (`Game.facts`: the substitution game's bank). At the end: that the game is over and
the recorded result is the referee's. Log validation (`arena.validate`), the web
viewer's frames (`arena.web.replay`) and the golden playthrough tests all replay through
`Replay`; a game's compiled `Game.replay_prefix` is its accelerator, which skips the
turns it can vouch for and never decides a defect itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.chance import ChanceSource
from arena.errors import ArenaError
from arena.game import CHANCE, TERMINAL, Game, Termination
from arena.record import MatchRecord, TurnRecord
from arena.referee import Referee

__all__ = ["Defect", "DefectiveRecord", "Replay", "Step"]


@dataclass(frozen=True)
class Defect:
    """The first thing wrong with a log: where (turn, player) and what (code, message).

    `move` is the move string the referee rejected, for a defect that is a rejected move
    (its `code` and `message` are then the `Rejection`'s), ``None`` for any other defect.
    """

    code: str
    message: str
    turn: int | None = None
    player: int | None = None
    move: str | None = None

    def __str__(self) -> str:
        where = []
        if self.turn is not None:
            where.append(f"turn {self.turn}")
        if self.player is not None:
            where.append(f"player {self.player}")
        prefix = f"{', '.join(where)}: " if where else ""
        move = f"move {self.move!r}: " if self.move is not None else ""
        return f"{prefix}{self.code}: {move}{self.message}"


class DefectiveRecord(ArenaError, ValueError):
    """A record that cannot be taken up where it stopped (`arena.match.Match.resume`):
    `defect` says what is wrong with it."""

    def __init__(self, defect: Defect) -> None:
        super().__init__(str(defect))
        self.defect = defect


@dataclass(frozen=True)
class Step:
    """One replayed turn: its place in the log, its record, and the state after it."""

    index: int
    turn: TurnRecord
    state: Any


class Replay:
    """Replays `record` on `game`, one turn at a time, checking every recorded fact.

    Iterating yields a `Step` per accepted turn and stops at the first defective one;
    `defect` then says what was wrong (``None`` while every turn checked out), and
    `state` is the state after the last accepted turn. `check` replays what is left
    and the result.

    Args:
        record: the game's log.
        game: its rules, bound to the log's settings.
        accelerate: let the game's `Game.replay_prefix` replay the leading turns it can
            vouch for (they are then not yielded: for `check`, not for viewers that
            want every state).

    Example:
        >>> from arena.games.sim import SimGame
        >>> from arena.match import play_match
        >>> from arena.registry import default_registry
        >>> game = SimGame.from_settings({"vertices": 5})
        >>> bot = default_registry().make_bot(game, "sim-random")
        >>> record = play_match(game, [bot, bot], seed=3).record()
        >>> Replay(record, game).check() is None
        True
    """

    def __init__(self, record: MatchRecord, game: Game[Any, Any], *,
                 accelerate: bool = False) -> None:
        self.record = record
        self.game = game
        self.referee = Referee(game)
        self.defect: Defect | None = None
        # bound once: the loop runs for every turn of every log validated
        self._to_act, self._facts, self._check = game.to_act, game.facts, self.referee.check
        self._chance_name = game.type.chance_name
        self._dice = (ChanceSource(record.seed)
                      if record.seed is not None and game.type.chance else None)
        if accelerate:
            self._next, self.state, self._pending = game.replay_prefix(record.turns, self._dice)
        else:
            self._next, self.state, self._pending = 0, game.initial_state(), None

    @property
    def turns_replayed(self) -> int:
        """How many of the log's turns are replayed and accepted so far."""
        return self._next

    @property
    def dice(self) -> ChanceSource | None:
        """The dice, in step with the turns replayed so far (without `accelerate`): a
        match taken up after them draws on from here. None when the game has no
        chance or the log no seed."""
        return self._dice

    def __iter__(self) -> Iterator[Step]:
        turns = self.record.turns
        while self.defect is None and self._next < len(turns) and self._step():
            index = self._next - 1
            yield Step(index, turns[index], self.state)

    def check(self) -> Defect | None:
        """Replay the turns left, then check the recorded result.

        Returns:
            The first defect of the log, or ``None`` if every turn and the result are
            what the referee says.
        """
        turns = self.record.turns
        step = self._step
        while self.defect is None and self._next < len(turns) and step():
            pass
        if self.defect is None:
            self.defect = self._check_result()
        return self.defect

    def _step(self) -> bool:
        """Judge the next turn: True if it checks out (`state` is then the state after
        it), False at a defect (`defect` says which)."""
        index = self._next
        turn = self.record.turns[index]
        defect = self._judge(index, turn)
        if defect is not None:
            self.defect = defect
            return False
        self._next = index + 1
        return True

    def _judge(self, index: int, turn: TurnRecord) -> Defect | None:
        """The defect of turn `index`, or None (and `state` moves past it)."""
        game = self.game
        if turn.turn != index:
            return Defect("turn-number", f"turn {turn.turn} is recorded where turn {index} belongs",
                          index, turn.player)
        chance = None
        if self._to_act(self.state) == CHANCE:
            chance = turn.chance
            if chance is None:
                return Defect(f"missing-{self._chance_name}",
                              f"the turn records no {self._chance_name}", index, turn.player)
            if self._dice is not None:
                expected = self._pending
                if expected is None:
                    expected = self._dice.sample(game.chance_outcomes(self.state))
                self._pending = None
                if expected != chance and _as_json(expected) != chance:
                    return Defect(
                        f"{self._chance_name}-mismatch",
                        f"the {self._chance_name} {chance!r} does not follow from seed "
                        f"{self.record.seed} (it gives {expected!r})", index, turn.player)
        elif turn.chance is not None:
            return Defect(f"unexpected-{self._chance_name}",
                          f"no {self._chance_name} belongs before this move", index, turn.player)
        verdict = self._check(self.state, turn.move, player=turn.player, chance=chance)
        state = verdict.state
        if state is None:
            assert verdict.rejection is not None
            return Defect(verdict.rejection.code, verdict.rejection.message, index, turn.player,
                          turn.move)
        recorded = turn.facts
        for key, value in self._facts(state).items():
            if key not in recorded:
                return Defect(f"missing-{key}", f"the turn does not record the {key}",
                              index, turn.player)
            if recorded[key] != value:
                return Defect(f"{key}-mismatch",
                              f"the log says {key} {recorded[key]!r}, the referee {value!r}",
                              index, turn.player)
        self.state = state
        return None

    def _check_result(self) -> Defect | None:
        game, record, state = self.game, self.record, self.state
        outcome = record.outcome
        if outcome is None:
            return Defect("no-result", f"the log ends after {len(record.turns)} turns without a result")
        if outcome.termination is Termination.NORMAL:
            if game.to_act(state) != TERMINAL:
                return Defect(
                    "unfinished",
                    f"the result is recorded after {len(record.turns)} turns but the game is not over",
                )
            expected = game.outcome(state)
            assert expected is not None
            if outcome.scores is not None and tuple(outcome.scores) != tuple(expected.scores or ()):
                return Defect(
                    "score-mismatch",
                    f"the log says scores {list(outcome.scores)}, the referee {list(expected.scores or ())}",
                )
            if outcome.winner != expected.winner:
                return Defect(
                    "result-mismatch", f"the log says {outcome.result}, the referee {expected.result}"
                )
        elif outcome.termination is not Termination.ABORTED:
            if outcome.loser is None or outcome.loser not in range(game.num_players()):
                return Defect("result-mismatch", f"a {outcome.termination.value} result names no loser")
            if game.num_players() == 2 and outcome.winner != 1 - outcome.loser:
                return Defect("result-mismatch", "the winner of a forfeit must be the other player")
        return None


def _as_json(value: Any) -> Any:
    """A chance outcome as a log holds it (the tiles' dice, a tuple, as a JSON list)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return value
