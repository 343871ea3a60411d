"""People's passwords: argon2id hashes (argon2-cffi), made off the event loop.

Hashing and checking a password costs `argon2.PasswordHasher`'s defaults (RFC 9106's
low-memory choice: 64 MiB and three passes, tens of milliseconds of CPU), which must
never run in the server's event loop: `Passwords` runs them in a pool of `threads`
threads and takes at most `queue` of them at once (running or waiting); beyond that
it refuses at once with `HashingBusy`, so a flood of sign-ins costs at most
``threads x 64 MiB`` of memory and a bounded wait, never the loop. A check of an
unknown name hashes against a fixed dummy hash, so its answer takes as long as a wrong
password's (no timing oracle of who has an account).
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from arena.errors import ArenaError

__all__ = ["HashingBusy", "PasswordError", "Passwords", "check_password"]


class PasswordError(ArenaError, ValueError):
    """A password outside the bounds (`check_password`)."""


class HashingBusy(ArenaError):
    """Too many passwords are being hashed or checked at once: try again shortly."""


def check_password(password: str, *, minimum: int, maximum: int) -> None:
    """Raise `PasswordError` unless `password` has `minimum` to `maximum` characters.

        >>> check_password("correct horse", minimum=8, maximum=256)
        >>> check_password("short", minimum=8, maximum=256)
        Traceback (most recent call last):
        ...
        arena.passwords.PasswordError: a password has 8 to 256 characters (this one has 5)
    """
    if not minimum <= len(password) <= maximum:
        raise PasswordError(f"a password has {minimum} to {maximum} characters "
                            f"(this one has {len(password)})", code="password-length",
                            params={"minimum": minimum, "maximum": maximum,
                                    "length": len(password)})


class Passwords:
    """argon2id hashing in a bounded pool of threads (module docstring).

    Args:
        threads: threads hashing at once.
        queue: hashes and checks taken at once (running or waiting); more raise
            `HashingBusy`.
        hasher: the argon2 parameters (tests may pass cheaper ones).
    """

    def __init__(self, *, threads: int = 1, queue: int = 8,
                 hasher: PasswordHasher | None = None) -> None:
        self.queue = queue
        self._hasher = hasher or PasswordHasher()
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="arena-argon2")
        self._slots = threading.BoundedSemaphore(queue)
        self._dummy: str | None = None

    def _take(self) -> None:
        if not self._slots.acquire(blocking=False):
            raise HashingBusy(f"{self.queue} passwords are being checked already; "
                              "try again in a few seconds")

    async def _run(self, work: str, password: str, stored: str | None = None) -> str | bool:
        self._take()
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._executor, self._work, work, password, stored)
        finally:
            self._slots.release()

    def _work(self, work: str, password: str, stored: str | None) -> str | bool:
        if work == "hash":
            return self._hasher.hash(password)
        if stored is None:
            if self._dummy is None:
                self._dummy = self._hasher.hash("the dummy password of no account")
            stored = self._dummy
            password = "\x00" + password  # never the dummy's
        try:
            return self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    async def hash(self, password: str) -> str:
        """The argon2id hash of `password` (its text holds the salt and parameters).

        Raises:
            HashingBusy: `queue` hashes and checks are under way.
        """
        result = await self._run("hash", password)
        assert isinstance(result, str)
        return result

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether `password` matches the `stored` hash; with `stored` None (an unknown
        name), False after as long as a real check takes.

        Raises:
            HashingBusy: `queue` hashes and checks are under way.
        """
        return bool(await self._run("verify", password, stored))

    def hash_now(self, password: str) -> str:
        """The hash, in the caller's thread (the command line, which has no loop to keep)."""
        return self._hasher.hash(password)

    def close(self) -> None:
        """Stop the threads (after the work under way)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
