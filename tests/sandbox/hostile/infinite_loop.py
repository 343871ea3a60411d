"""Hostile: an infinite loop on its first turn."""
import sys

for line in sys.stdin:
    if line.startswith("turn "):
        while True:
            pass
