"""Strategies for the substitution game."""
