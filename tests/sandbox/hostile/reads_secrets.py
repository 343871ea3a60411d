"""Hostile: tries to read /etc/shadow, the database, the server's files and environment
and other bots' files; reports what it could read (and prints any of it), then plays an
illegal move. argv[1:]: host paths it was told of."""
import glob
import os
import sys

PATHS = ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/root/.bash_history",
         "/proc/1/environ", "/proc/1/cmdline", "/proc/self/environ", "/run/arena-sandbox",
         "/sys/fs/cgroup", "/var/lib/postgresql", "/home", "/work", "/etc/ssh"] + sys.argv[1:]


def report(text):
    print("REPORT " + text, file=sys.stderr, flush=True)


def read(path):
    if os.path.isdir(path):
        return "dir: " + " ".join(sorted(os.listdir(path))[:50])
    with open(path, "rb") as handle:
        return handle.read(4096).decode("utf-8", "replace")


for line in sys.stdin:
    if line.startswith("turn "):
        for path in PATHS + glob.glob("/etc/*"):
            try:
                report(f"read {path}: {read(path)!r}")
            except OSError as error:
                report(f"denied {path}: {error.strerror}")
        report(f"environ {dict(os.environ)!r}")
        report("done")
        print("no move", flush=True)  # and loses at once
