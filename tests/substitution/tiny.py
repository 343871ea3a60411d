"""Tiny games for rule tests: a grammar, a state built by hand, a referee."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.substitution import GameState, Grammar, Settings, SubstitutionGame
from arena.referee import Referee, Verdict


def tiny_game(
    groups: Sequence[str],
    weights: Sequence[int] | None = None,
    moves: int = 5,
    bank_rule: str = "strict",
) -> SubstitutionGame:
    grammar = Grammar.of(list(groups), tuple(weights) if weights else (1,) * len(groups))
    return SubstitutionGame(Settings(grammar, moves, bank_rule))


def state(
    game: SubstitutionGame,
    mine: Sequence[str] = (),
    theirs: Sequence[str] = (),
    bank: Sequence[int] | None = None,
    roll: int | None = None,
    player: int = 0,
) -> GameState:
    """A state where `player` is to move with derivations `mine`."""
    derivations = (mine, theirs) if player == 0 else (theirs, mine)
    return GameState.create(
        game.compiled.n_groups, player, derivations, list(bank) if bank else None, roll
    )


def judge(game: SubstitutionGame, before: GameState, move: str) -> Verdict[GameState]:
    return Referee(game).check(before, move)


def texts(state: GameState, player: int = 0) -> tuple[str, ...]:
    return tuple(word.text for word in state.derivations[player])
