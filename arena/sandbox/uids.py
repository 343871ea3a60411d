"""A host uid of its own for each sandbox running on the machine.

A sandbox's processes run as a uid nobody else uses at that moment, so the rlimit on
processes counts only them, ``/proc`` finds exactly them, and no file of the machine is
theirs. The uids are `SandboxSpec.uid_base` onwards; a uid is taken by holding an
exclusive lock on its file in the runtime directory (``flock``: released by the kernel
when its holder dies, so a crashed server leaves none taken), across every process of
the machine.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
from pathlib import Path

from arena.errors import ArenaError

__all__ = ["NoFreeUid", "UidLease", "lease_uid"]


class NoFreeUid(ArenaError):
    """Every sandbox uid is taken (`SandboxSpec.uids` sandboxes run at once)."""


class UidLease:
    """A sandbox uid, held until `release` (or this process's end)."""

    def __init__(self, uid: int, handle: int) -> None:
        self.uid = uid
        self._handle: int | None = handle

    def release(self) -> None:
        if self._handle is not None:
            os.close(self._handle)
            self._handle = None

    @property
    def held(self) -> bool:
        return self._handle is not None


def lease_uid(directory: Path, base: int, count: int) -> UidLease:
    """Take a free uid of ``base .. base + count - 1`` (tried from a random one, so that
    a uid just given back is rarely the next one taken).

    Raises:
        NoFreeUid: all are taken.
    """
    start = random.randrange(count)
    for offset in range(count):
        uid = base + (start + offset) % count
        handle = os.open(directory / f"uid-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                         0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            continue
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(handle)
            raise
        return UidLease(uid, handle)
    raise NoFreeUid(f"all {count} sandbox uids are in use: too many sandboxes at once")
