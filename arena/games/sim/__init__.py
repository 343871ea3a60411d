"""Sim (Gustavus Simmons, 1969): the rules, the game plugin and an exact solver."""

from arena.games.sim.game import SimGame, SimMove
from arena.games.sim.rules import Geometry, SimPosition, geometry

__all__ = ["Geometry", "SimGame", "SimMove", "SimPosition", "geometry"]
