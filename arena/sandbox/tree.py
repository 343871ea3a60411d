"""A sandbox's processes seen through ``/proc``: the CPU time of a process tree, and every
process of a uid -- where the machine has no cgroup for them (`arena.sandbox.cgroups`).

Every process of a sandbox descends from its bubblewrap (orphans are adopted by
bubblewrap's init inside the sandbox's pid namespace), and runs as the sandbox's own
uid, which no other process uses.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "TICK_NS",
    "children",
    "is_zombie",
    "kill_if_uid",
    "kill_uid",
    "process_uids",
    "tree_cpu_ns",
    "tree_pids",
    "uid_pids",
    "uid_pids_of",
]

TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
"""Nanoseconds per clock tick, the unit of ``/proc/PID/stat``'s times."""


def children(pid: int) -> list[int]:
    """`pid`'s child processes."""
    found: list[int] = []
    with contextlib.suppress(OSError), os.scandir(f"/proc/{pid}/task") as tasks:
        for task in tasks:
            with contextlib.suppress(OSError, ValueError):
                found.extend(int(child) for child in
                             Path(task.path, "children").read_text().split())
    return found


def tree_pids(root: int) -> list[int]:
    """`root` and its descendants, as far as they are alive."""
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(children(pid))
    return found


def tree_cpu_ns(root: int) -> int:
    """CPU time of `root`'s tree: each living process's own and that of the children it
    reaped (``utime + stime + cutime + cstime``). A child reaped without a wait (its
    parent ignoring ``SIGCHLD``) is not counted: cgroups count it (`docs/security.md`)."""
    ticks = 0
    for pid in tree_pids(root):
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = Path(f"/proc/{pid}/stat").read_text()
            fields = text[text.rindex(")") + 2:].split()
            ticks += sum(int(value) for value in fields[11:15])
    return ticks * TICK_NS


def uid_pids(uid: int) -> set[int]:
    """Every process whose real or effective uid is `uid` (zombies included)."""
    with os.scandir("/proc") as entries:
        pids = [int(entry.name) for entry in entries if entry.name.isdigit()]
    return uid_pids_of(pids, uid)


def uid_pids_of(pids: Iterable[int], uid: int) -> set[int]:
    """Those of `pids` whose real or effective uid is `uid`."""
    return {pid for pid, uids in process_uids(pids).items() if uid in uids}


def process_uids(pids: Iterable[int]) -> dict[int, tuple[int, int]]:
    """The real and effective uid of each of `pids` that is still there."""
    found: dict[int, tuple[int, int]] = {}
    for pid in pids:
        with contextlib.suppress(OSError, ValueError), \
                open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"Uid:"):
                    real, effective = line.split()[1:3]
                    found[pid] = (int(real), int(effective))
                    break
    return found


def kill_uid(uid: int, rounds: int = 100) -> bool:
    """SIGKILL every process of `uid` until none is left (True) or `rounds` passes found
    some each time. Zombies are not counted: they are dead, waiting for their parent."""
    for _ in range(rounds):
        living = {pid for pid in uid_pids(uid) if not is_zombie(pid)}
        if not living:
            return True
        for pid in living:
            kill_if_uid(pid, uid)
    return False


def kill_if_uid(pid: int, uid: int) -> None:
    """SIGKILL `pid` if it is still a process of `uid` (through a pidfd: a pid reused by
    another process meanwhile is never signalled)."""
    try:
        handle = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if pid in uid_pids_of((pid,), uid):
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(handle, signal.SIGKILL)
    finally:
        os.close(handle)


def is_zombie(pid: int) -> bool:
    """Whether `pid` is dead, waiting for its parent (or gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return text[text.rindex(")") + 2:].startswith("Z")
