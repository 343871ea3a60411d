"""The referee: judges proposed moves for any game, the same way everywhere.

Live games, tournaments and log validation all go through `Referee.check`. It never
raises on bad input from a player: a malformed move string, a move out of turn or an
illegal move all come back as a `Verdict` carrying a `Rejection`, and the state the
caller holds is untouched (states are immutable values).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from arena.errors import MalformedMove
from arena.game import CHANCE, TERMINAL, Game, Rejection

__all__ = ["Referee", "Verdict"]

StateT = TypeVar("StateT")


class Verdict(tuple[StateT | None, Rejection | None]):
    """The referee's answer: the new state, or the rejection (an immutable pair).

    A tuple subclass rather than a dataclass: one is made for every move, and this
    module is compiled, so building one costs no interpreter frame.
    """

    __slots__ = ()

    def __new__(cls, state: StateT | None, rejection: Rejection | None = None) -> Verdict[StateT]:
        return tuple.__new__(cls, (state, rejection))

    @property
    def state(self) -> StateT | None:
        return self[0]

    @property
    def rejection(self) -> Rejection | None:
        return self[1]

    @property
    def accepted(self) -> bool:
        return self[1] is None

    def __repr__(self) -> str:
        return f"Verdict(state={self[0]!r}, rejection={self[1]!r})"


class Referee(Generic[StateT]):
    """Judges moves for one game (rules bound to settings).

    Example, embedding the substitution game's rules::

        from arena.games.substitution import SubstitutionGame, Settings
        from arena import Referee

        game = SubstitutionGame(Settings.preset("medium", moves=200))
        referee = Referee(game)
        state = game.initial_state()
        verdict = referee.check(state, "-1 0 1", player=0, chance=0)
        if verdict.accepted:
            state = verdict.state
        else:
            print(verdict.rejection.code, verdict.rejection.message)
    """

    def __init__(self, game: Game[StateT, Any]) -> None:
        self.game = game
        self._to_act = game.to_act
        self._check_move = game.check_move

    def check(
        self,
        state: StateT,
        move: Any,
        *,
        player: int | None = None,
        chance: Any = None,
    ) -> Verdict[StateT]:
        """Judge `move` (a move string or a parsed move) in `state`.

        Args:
            state: the state before the move. If a chance event is pending (the dice
                have not been rolled), pass its outcome as `chance`.
            move: the move string, or the game's parsed move object.
            player: the seat that claims to move; checked against the state if given.
            chance: the chance outcome to apply first (the substitution game's roll).
        """
        game = self.game
        if chance is not None:
            if self._to_act(state) != CHANCE:
                return Verdict(
                    None, Rejection("unexpected-chance", "no chance event is pending here")
                )
            try:
                state = game.apply_chance(state, chance)
            except (ValueError, TypeError) as error:
                name = game.type.chance_name
                return Verdict(None, Rejection(f"bad-{name}", f"{name} {chance!r}: {error}"))
        seat = self._to_act(state)
        if seat == TERMINAL:
            return Verdict(None, Rejection("game-over", "the game is already over"))
        if seat == CHANCE:
            name = game.type.chance_name
            return Verdict(None, Rejection(f"missing-{name}", f"the {name} has not been made yet"))
        if player is not None and player != seat:
            return Verdict(
                None, Rejection("not-your-turn", f"player {player} moved, but player {seat} is to move")
            )
        if isinstance(move, str):
            try:
                move = game.parse_move(move)
            except MalformedMove as error:
                return Verdict(None, Rejection("malformed", str(error)))
        result = self._check_move(state, move)
        if isinstance(result, Rejection):
            return Verdict(None, result)
        return Verdict(result)
