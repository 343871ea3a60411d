"""Bots for the stone-heap games: random and perfect play from the retrograde colouring."""
