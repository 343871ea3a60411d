"""The Balinese dice-tile game ("Shastoon"): rules, exact solo and race solvers."""

from arena.games.tiles.game import TilesGame
from arena.games.tiles.rules import Choice, TilesMove, TilesSettings, TilesState

__all__ = ["Choice", "TilesGame", "TilesMove", "TilesSettings", "TilesState"]
