"""Hostile: closes its standard output on its first turn and keeps running."""
import os
import sys
import time

for line in sys.stdin:
    if line.startswith("turn "):
        os.close(1)
        time.sleep(3600)
