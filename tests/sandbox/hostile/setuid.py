"""Hostile: tries to become root: a setuid-root copy of `id` (argv[1], made by the test),
the system's setuid programs (su, sudo, mount, passwd...), setuid(0), new user
namespaces (unshare), mounts and chroot; reports each result, then plays an illegal move."""
import ctypes
import os
import subprocess
import sys


def report(text):
    print("REPORT " + text, file=sys.stderr, flush=True)


def run(*argv):
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, stdin=subprocess.DEVNULL,
                              check=False)
        report(f"ran {' '.join(argv)}: status {done.returncode} "
               f"out {done.stdout.decode(errors='replace').strip()!r}")
    except (OSError, subprocess.TimeoutExpired) as error:
        report(f"failed {' '.join(argv)}: {error}")


for line in sys.stdin:
    if line.startswith("turn "):
        run(sys.argv[1], "-u")
        run("/usr/bin/su", "-c", "id -u")
        run("/usr/bin/sudo", "-n", "id", "-u")
        run("/usr/bin/unshare", "-r", "id", "-u")
        run("/usr/bin/unshare", "-m", "id", "-u")
        run("/usr/bin/mount", "-t", "tmpfs", "none", "/bot")
        run("/usr/bin/newgrp", "root")
        try:
            os.setuid(0)
            report("setuid(0) worked")
        except OSError as error:
            report(f"setuid(0) refused: {error.strerror}")
        try:
            os.chroot("/tmp")
            report("chroot worked")
        except OSError as error:
            report(f"chroot refused: {error.strerror}")
        libc = ctypes.CDLL(None, use_errno=True)
        report(f"unshare(CLONE_NEWUSER) {libc.unshare(0x10000000)} errno {ctypes.get_errno()}")
        report(f"ptrace(TRACEME) {libc.ptrace(0, 0, 0, 0)} errno {ctypes.get_errno()}")
        ctypes.set_errno(0)
        report(f"keyctl(GET_KEYRING_ID) {libc.syscall(250, 0, -3, 0)} errno {ctypes.get_errno()}")
        ctypes.set_errno(0)
        report(f"io_uring_setup {libc.syscall(425, 1, None)} errno {ctypes.get_errno()}")
        report(f"uid {os.getuid()} euid {os.geteuid()} groups {os.getgroups()}")
        report("done")
        print("no move", flush=True)  # and loses at once
