"""Bots for single-suit Durak: `durak-perfect` (the exact solver) and `durak-greedy`."""
