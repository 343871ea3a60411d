"""Hostile: writes as much as it can wherever it can (its /tmp, /dev/shm and every other
directory it finds), reports where writing worked and how much, then plays an illegal move."""
import os
import sys

CANDIDATES = ["/tmp", "/dev/shm", "/", "/bot", "/etc", "/usr", "/usr/local", "/var",
              "/var/tmp", "/home", "/root", "/run", "/dev", "/proc", "/sys", "/work", "/mnt",
              "/opt", "/srv", "/lib", "/bin"]


def walk_dirs():
    seen = set()
    for top in CANDIDATES:
        for root, dirs, _ in os.walk(top):
            if root.startswith("/proc"):
                dirs[:] = []
            if len(seen) > 5000:
                return seen
            seen.add(root)
    return seen


def fill(directory):
    total = 0
    for index in range(1000):
        path = os.path.join(directory, f"filler-{os.getpid()}-{index}")
        try:
            with open(path, "wb") as out:
                chunk = b"\0" * (1 << 20)
                while True:
                    out.write(chunk)
                    out.flush()
                    total += len(chunk)
        except OSError as error:
            if index == 0 and total == 0:
                return 0, error.strerror
            if error.errno not in (27,):  # EFBIG: the next file; anything else: full
                return total, error.strerror
    return total, "gave up"


for line in sys.stdin:
    if line.startswith("turn "):
        for directory in sorted(walk_dirs()):
            written, why = fill(directory)
            if written:
                print(f"REPORT writable {directory} {written} {why}", file=sys.stderr, flush=True)
        print("REPORT done", file=sys.stderr, flush=True)
        print("no move", flush=True)  # and loses at once
