"""Hostile: on its first turn, a daemon that double-forks to outlive its game (its own
session, stdio closed, looping for ever), and the bot's process exits."""
import os
import sys
import time

for line in sys.stdin:
    if line.startswith("turn "):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                for fd in (0, 1, 2):
                    os.close(fd)
                while True:
                    time.sleep(0.1)
            os._exit(0)
        print(f"REPORT daemon started by {os.getpid()}", file=sys.stderr, flush=True)
        sys.exit(0)
