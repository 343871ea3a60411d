"""The small grammars of thesis sections 4.2-4.4 (bank counts in brackets there)."""

from __future__ import annotations

from arena.games.substitution import GameState
from tests.substitution.tiny import tiny_game

FOUR = ["S->A", "A->BB|aA", "B->b", "A->a"]
THREE = ["S->A", "A->BB|aA", "B->b"]


def position(groups, bank, mine=("A",), roll=1):
    game = tiny_game(groups, (1,) * len(groups))
    state = GameState.create(len(groups), 0, (list(mine), []), list(bank), roll)
    return game, state


def play(game, bot, state, seed=0):
    import random

    move = bot.choose_move(game, state, random.Random(seed))
    after = game.check_move(state, move)
    assert not hasattr(after, "code"), after
    return move, tuple(w.text for w in after.derivations[0])


def texts_along(game, state, move):
    """The derivation texts after each step of `move` (for the thesis's chains)."""
    turn = game.turn(state)
    chain = []
    for step in move.steps:
        turn.apply(*step)
        word = step[0] if step[0] >= 0 else len(turn.derivations) - 1
        chain.append(turn.derivations[word].text)
    return chain
