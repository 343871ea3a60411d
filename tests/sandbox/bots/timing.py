"""A line-protocol bot that plays the first legal move after spending time on it:
``burn MS`` of CPU time (in ``THREADS`` threads... one here), or ``sleep MS`` of wall
time (argv[1] and argv[2])."""
import json
import sys
import time

how, milliseconds = sys.argv[1], int(sys.argv[2]) / 1000
for line in sys.stdin:
    if line.startswith("turn "):
        legal = json.loads(line[5:])["legal"]
        if how == "burn":
            start = time.process_time()
            while time.process_time() - start < milliseconds:
                pass
        else:
            time.sleep(milliseconds)
        print(legal[0], flush=True)
