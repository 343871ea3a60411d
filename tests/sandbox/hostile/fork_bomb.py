"""Hostile: a fork bomb on its first turn: every child forks for ever; the bot itself,
once a fork is refused, reports how many it made and plays an illegal move."""
import os
import sys

for line in sys.stdin:
    if line.startswith("turn "):
        forks = 0
        while True:
            try:
                child = os.fork()
            except OSError:
                break
            if child == 0:
                while True:
                    try:
                        os.fork()
                    except OSError:
                        pass
            forks += 1
        print(f"REPORT fork refused after {forks} forks", file=sys.stderr, flush=True)
        print("no move", flush=True)
