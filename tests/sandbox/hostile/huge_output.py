"""Hostile: floods standard error with lines and standard output with one endless line
(argv[1]: "stdout", "stderr" or "both")."""
import sys
import threading

WHAT = sys.argv[1]


def flood_stderr():
    line = "x" * 500 + "\n"
    while True:
        sys.stderr.write(line)


for line in sys.stdin:
    if line.startswith("turn "):
        if WHAT in ("stderr", "both"):
            threading.Thread(target=flood_stderr, daemon=True).start()
        if WHAT in ("stdout", "both"):
            chunk = "y" * 65536
            while True:
                sys.stdout.write(chunk)
        threading.Event().wait()
