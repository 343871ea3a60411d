"""The referee: judges proposed moves for any game, the same way everywhere.

Live games, tournaments and log validation all go through `Referee.check`. It never
raises on bad input from a player: a malformed move string, a move out of turn or an
illegal move all come back as a `Verdict` carrying a `Rejection`, and the state the
caller holds is untouched (states are immutable values).
"""

from __future__ import annotations

from typing import Any

from arena.errors import MalformedMove
from arena.game import CHANCE, TERMINAL, Game, Rejection

__all__ = ["Referee", "Verdict", "too_long"]


def too_long(move: str, limit: int) -> Rejection:
    """The rejection of a move string longer than any legal move (`Game.max_move_length`)."""
    return Rejection("too-long", f"the move is {len(move)} characters long; no legal move "
                                 f"of this game is longer than {limit}")



class Verdict:
    """The referee's answer: the new state, or the rejection (an immutable value).

    (Compiled as an extension type with read-only fields: one is made for every move.)
    """

    state: Any
    rejection: Rejection | None

    def __init__(self, state: Any, rejection: Rejection | None = None) -> None:
        self.state = state
        self.rejection = rejection

    @property
    def accepted(self) -> bool:
        return self.rejection is None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Verdict)
            and self.state == other.state
            and self.rejection == other.rejection
        )

    def __hash__(self) -> int:
        return hash((self.state, self.rejection))

    def __repr__(self) -> str:
        return f"Verdict(state={self.state!r}, rejection={self.rejection!r})"


class Referee:
    """Judges moves for one game (rules bound to settings).

    (Compiled as an extension type: `referee.pxd` declares its fields.)

    Args:
        game: the rules bound to settings.

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

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self._to_act = game.to_act
        self._check_move = game.check_move
        bound = game.max_move_length()
        self.max_move_length = -1 if bound is None else bound
        """The longest move string read (`Game.max_move_length`; -1: any)."""

    def check(
        self,
        state: Any,
        move: Any,
        *,
        player: int | None = None,
        chance: Any = None,
    ) -> Verdict:
        """Judge `move` (a move string or a parsed move) in `state`.

        Args:
            state: the state before the move. If a chance event is pending (the dice
                have not been rolled), pass its outcome as `chance`.
            move: the move string, or the game's parsed move object.
            player: the seat that claims to move; checked against the state if given.
            chance: the chance outcome to apply first (the substitution game's roll).

        Returns:
            A `Verdict`: the state after the move, or the `Rejection` (``malformed``,
            ``not-your-turn``, ``game-over``, ``missing-<chance>``,
            ``unexpected-chance``, ``bad-<chance>`` or the game's own code). It never
            raises for bad input: the caller's `state` is untouched either way.
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
        return self.judge(state, move, -1 if player is None else player)

    def judge(self, state: Any, move: Any, player: int) -> Verdict:
        """`check` once any chance outcome is applied; `player` -1 skips the seat check.

        (The match loop calls this directly: positional arguments, compiled.)
        """
        game = self.game
        seat = self._to_act(state)
        if seat == TERMINAL:
            return Verdict(None, Rejection("game-over", "the game is already over"))
        if seat == CHANCE:
            name = game.type.chance_name
            return Verdict(None, Rejection(f"missing-{name}", f"the {name} has not been made yet"))
        if player != -1 and player != seat:
            return Verdict(
                None, Rejection("not-your-turn", f"player {player} moved, but player {seat} is to move")
            )
        if isinstance(move, str):
            if 0 <= self.max_move_length < len(move):
                return Verdict(None, too_long(move, self.max_move_length))
            try:
                move = game.parse_move(move)
            except MalformedMove as error:
                return Verdict(None, Rejection("malformed", str(error), error.step))
        result = self._check_move(state, move)
        if isinstance(result, Rejection):
            return Verdict(None, result)
        return Verdict(result)
