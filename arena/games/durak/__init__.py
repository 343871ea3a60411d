"""Single-suit Durak and D-Durak (with optional card weights) and their exact solver."""

from arena.games.durak.game import DurakGame
from arena.games.durak.rules import DurakMove, DurakSettings, DurakState, MoveKind

__all__ = ["DurakGame", "DurakMove", "DurakSettings", "DurakState", "MoveKind"]
