"""Hostile: allocates and touches memory without end on its first turn."""
import sys

for line in sys.stdin:
    if line.startswith("turn "):
        hoard = []
        while True:
            hoard.append(bytearray(b"x" * (16 << 20)))
            print(f"REPORT holding {len(hoard) * 16} MiB", file=sys.stderr, flush=True)
