"""Hostile: a fork bomb on its first turn (every process forks for ever)."""
import os
import sys

for line in sys.stdin:
    if line.startswith("turn "):
        forks = failures = 0
        while True:
            try:
                os.fork()
                forks += 1
            except OSError:
                failures += 1
                if failures % 1000 == 1:
                    print(f"REPORT fork refused after {forks} forks", file=sys.stderr, flush=True)
