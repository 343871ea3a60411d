"""Bots for Sim: random, safe random, the seed's Monte-Carlo player, and perfect play."""
