"""Bots for the dice-tile game: the seed's three strategies and the perfect racer."""
