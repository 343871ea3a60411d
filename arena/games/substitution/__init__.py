"""The substitution game (the thesis's "Игра в подстановки"): rules, formats, presets.

    >>> from arena.games.substitution import Settings, SubstitutionGame
    >>> game = SubstitutionGame(Settings.preset("medium", moves=10))
    >>> game.to_act(game.initial_state())  # chance (the dice) moves first
    -1
"""

from arena.games.substitution._core import (
    CompiledGrammar,
    Derivation,
    GameState,
    Turn,
    check_turn,
    random_turn,
)
from arena.games.substitution.game import SubstitutionGame
from arena.games.substitution.grammar import DICE_WEIGHTS, Grammar, ProductionGroup, default_weights
from arena.games.substitution.presets import PRESETS, preset
from arena.games.substitution.settings import Settings, load_grammar

__all__ = [
    "DICE_WEIGHTS",
    "PRESETS",
    "CompiledGrammar",
    "Derivation",
    "GameState",
    "Grammar",
    "ProductionGroup",
    "Settings",
    "SubstitutionGame",
    "Turn",
    "check_turn",
    "default_weights",
    "load_grammar",
    "preset",
    "random_turn",
]
