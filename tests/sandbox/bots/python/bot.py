"""A line-protocol bot in two files (the helper module is imported from the bot's own
directory): the first legal move, or a move built step by step with ?legal."""

import json
import sys

from moves import first_move

for line in sys.stdin:
    keyword, _, payload = line.rstrip("\n").partition(" ")
    if keyword == "turn":
        print(first_move(json.loads(payload), sys.stdin, sys.stdout), flush=True)
    elif keyword == "over":
        print("game over:", payload[:60], file=sys.stderr, flush=True)
    elif keyword == "quit":
        break
