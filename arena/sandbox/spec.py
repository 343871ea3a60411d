"""The sandbox's limits as values: what a hosted program may use, what its build may use,
and how large an upload may be. Every field has its documented default
(`docs/security.md`, "Hosted bots"); a test keeps the two in step."""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["BuildLimits", "KiB", "MiB", "SandboxSpec", "UploadLimits", "default_hosted_slots"]

KiB = 1024
MiB = 1024 * 1024


@dataclass(frozen=True)
class SandboxSpec:
    """The limits of one sandboxed program (a hosted bot's process tree for one game).

    The cgroup limits hold where the machine has the controller (`arena.sandbox.cgroups`);
    the rlimits hold everywhere, per process. Each limit, when reached, stops only the
    program that reached it: it loses its game.
    """

    memory_bytes: int = 512 * MiB
    """Memory of the whole process tree, its ``/tmp`` and ``/dev/shm`` included (cgroup
    ``memory``): beyond it the kernel kills a process of the tree."""
    address_space_bytes: int = 4096 * MiB
    """Address space of each process (``RLIMIT_AS``): the memory bound where the machine
    has no memory cgroup. Generous, because runtimes (the JVM, V8) reserve much more than
    they use."""
    processes: int = 128
    """Processes and threads of the tree (cgroup ``pids``, and ``RLIMIT_NPROC`` of the
    sandbox's own uid)."""
    cpus: float = 1.0
    """Processors the tree may keep busy at once (cgroup ``cpu`` quota); 0: no quota."""
    nice: int = 10
    """Scheduling priority of the tree's processes (``nice``), below the server's, as the
    house bots' workers (where there is a cpu cgroup, all sandboxes together weigh as one
    ordinary process against the server's: `arena.sandbox.cgroups`)."""
    cpu_seconds: int = 600
    """CPU time of each process (``RLIMIT_CPU``): a backstop for a game's clock."""
    file_size_bytes: int = 16 * MiB
    """Largest file a process may write (``RLIMIT_FSIZE``)."""
    open_files: int = 256
    """Open files per process (``RLIMIT_NOFILE``)."""
    tmp_bytes: int = 64 * MiB
    """Size of the private writable ``/tmp`` (a tmpfs)."""
    shm_bytes: int = 16 * MiB
    """Size of the private writable ``/dev/shm`` (a tmpfs)."""
    uid_base: int = 1_500_000_000
    """The first of the host uids the sandboxes run as, one of its own per sandbox at a
    time; no account of the machine may use them."""
    uids: int = 1024
    """How many such uids (sandboxes at once on the machine, builds included)."""

    def __post_init__(self) -> None:
        for name in ("memory_bytes", "address_space_bytes", "processes", "cpu_seconds",
                     "file_size_bytes", "open_files", "tmp_bytes", "shm_bytes", "uids"):
            if getattr(self, name) <= 0:
                raise ValueError(f"sandbox limit {name} must be positive")
        if self.cpus < 0:
            raise ValueError("sandbox limit cpus must be 0 (no quota) or more")
        if not 0 <= self.nice <= 19:
            raise ValueError("sandbox nice must be 0 to 19")
        if not 0 < self.uid_base < 2**32 - 1 - self.uids:
            raise ValueError("sandbox uid_base must leave room for its uids below 2**32 - 1")


@dataclass(frozen=True)
class BuildLimits:
    """The limits of one build (`arena.sandbox.build`): the compiler runs in the same
    sandbox as the bot, with these instead of `SandboxSpec`'s."""

    wall_seconds: int = 120
    """How long a build may take (wall time); then it is killed and fails."""
    memory_bytes: int = 1024 * MiB
    """Memory of the build's process tree, its ``/tmp`` (the build directory) included."""
    processes: int = 256
    """Processes and threads of the build."""
    cpus: float = 1.0
    """Processors the build may keep busy at once; 0: no quota."""
    tmp_bytes: int = 512 * MiB
    """Size of the build's writable ``/tmp``: the sources, the compiler's temporary
    files and the result."""
    log_bytes: int = 64 * KiB
    """Build log kept: its first and last halves (the middle is cut, and said so)."""
    output_bytes: int = 128 * MiB
    """Largest result (the build directory as a stream of files)."""
    output_files: int = 10_000
    """Most files and directories in the result."""

    def __post_init__(self) -> None:
        for name in ("wall_seconds", "memory_bytes", "processes", "tmp_bytes", "log_bytes",
                     "output_bytes", "output_files"):
            if getattr(self, name) <= 0:
                raise ValueError(f"build limit {name} must be positive")
        if self.cpus < 0:
            raise ValueError("build limit cpus must be 0 (no quota) or more")


@dataclass(frozen=True)
class UploadLimits:
    """The bounds of a bot's sources (a file, a directory or an archive), checked before
    anything is unpacked or copied (`arena.sandbox.unpack`)."""

    archive_bytes: int = 16 * MiB
    """Largest file given (an archive as it is, or a single source file)."""
    unpacked_bytes: int = 64 * MiB
    """Largest total of the files once unpacked."""
    files: int = 2000
    """Most files, directories and links."""
    path_bytes: int = 255
    """Longest path of a file inside the sources."""
    depth: int = 16
    """Deepest directory nesting."""

    def __post_init__(self) -> None:
        for name in ("archive_bytes", "unpacked_bytes", "files", "path_bytes", "depth"):
            if getattr(self, name) <= 0:
                raise ValueError(f"upload limit {name} must be positive")


def default_hosted_slots(cpus: int | None = None) -> int:
    """Hosted programs at once on a machine by default: one per core, keeping one core
    for the server (at least 1).

    >>> default_hosted_slots(8), default_hosted_slots(2), default_hosted_slots(1)
    (7, 1, 1)
    """
    count = os.cpu_count() or 1 if cpus is None else cpus
    return max(1, count - 1)
