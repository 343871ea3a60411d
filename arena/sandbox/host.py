"""What the machine offers the sandbox: the tools (bubblewrap, util-linux's ``setpriv`` and
``prlimit``), the system directories a program needs and the runtime directory.

Hosted bots run only as root: root gives each sandbox a uid of its own (so one bot's
processes, limits and files are nobody else's) and makes the cgroups. Anything missing is
a `SandboxUnavailable` that says what to install or change, never a weaker sandbox.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError

__all__ = [
    "ETC_ALLOWED",
    "RUNTIME_DIR",
    "SYSTEM_DIRS",
    "Host",
    "SandboxUnavailable",
    "SystemDir",
    "probe_host",
]

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""The read-only system a program sees (each where the machine has it; on a merged-/usr
system all but ``/usr`` are symbolic links into it)."""

ETC_ALLOWED = ("alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",
               "java-*-openjdk", "perl", "python3", "python3.*", "ssl/openssl.cnf")
"""The only entries of the machine's ``/etc`` a program sees (shell patterns): what the
dynamic linker and the toolchains read. Nothing else of ``/etc`` (no ``shadow``, no keys,
no configuration of the server); ``passwd`` and ``group`` are the sandbox's own
(`Host.etc_files`)."""

RUNTIME_DIR = "/run/arena-sandbox"
"""The sandboxes' shared state on the machine: the uid locks and the sandbox's own
``/etc/passwd`` and ``/etc/group`` (``$ARENA_SANDBOX_RUN`` to move it, e.g. in tests)."""

SANDBOX_UID = 1000
"""The uid and gid a program has inside its sandbox (a host uid of its own outside)."""

_PASSWD = (f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
           f"bot:x:{SANDBOX_UID}:{SANDBOX_UID}:hosted bot:/tmp:/bin/sh\n"
           f"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
_GROUP = f"root:x:0:\nbot:x:{SANDBOX_UID}:\nnogroup:x:65534:\n"


class SandboxUnavailable(ArenaError):
    """This machine cannot run hosted bots (a tool is missing, or not root): the message
    says what to do."""


@dataclass(frozen=True)
class SystemDir:
    """One of `SYSTEM_DIRS` as the machine has it: a directory, or a symbolic link
    (`target`, as the link says it)."""

    path: str
    target: str | None = None


@dataclass(frozen=True)
class Host:
    """The tools and the system of this machine, as the sandbox uses them."""

    bwrap: str
    setpriv: str
    prlimit: str
    nice: str
    shell: str
    system: tuple[SystemDir, ...]
    etc: tuple[str, ...]
    """The `ETC_ALLOWED` entries that exist here (absolute paths)."""
    runtime: Path

    @property
    def etc_files(self) -> dict[str, Path]:
        """The sandbox's own ``/etc`` files: sandbox path -> file on the host."""
        return {"/etc/passwd": self.runtime / "etc" / "passwd",
                "/etc/group": self.runtime / "etc" / "group"}

    @property
    def uid_locks(self) -> Path:
        return self.runtime / "uids"

    @property
    def relay(self) -> Path:
        """The relay a WebSocket-speaking bot's sandbox runs (`arena.sandbox.relay`): a
        root-owned copy the sandboxes' uids can read (the arena's own files may not be)."""
        return self.runtime / "relay.py"

    @property
    def sockets(self) -> Path:
        """The directory of the relays' Unix sockets (one unguessable directory per bot
        under it, `arena.server.hosted`): traversable, not listable."""
        return self.runtime / "sockets"


def _tool(name: str, package: str) -> str:
    path = shutil.which(name, path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
    if path is None:
        raise SandboxUnavailable(f"hosted bots need {name!r} (Debian package {package}: "
                                 f"apt-get install {package}; make test installs it)")
    return path


def _system_dirs() -> tuple[SystemDir, ...]:
    found = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            found.append(SystemDir(path, os.readlink(path)))
        elif os.path.isdir(path):
            found.append(SystemDir(path))
    return tuple(found)


def _etc_entries() -> tuple[str, ...]:
    entries: list[str] = []
    for pattern in ETC_ALLOWED:
        entries.extend(sorted(glob.glob(os.path.join("/etc", pattern))))
    return tuple(dict.fromkeys(entries))


def _runtime_dir() -> Path:
    runtime = Path(os.environ.get("ARENA_SANDBOX_RUN", RUNTIME_DIR))
    try:
        runtime.mkdir(mode=0o755, parents=True, exist_ok=True)
        (runtime / "uids").mkdir(mode=0o700, exist_ok=True)
        etc = runtime / "etc"
        etc.mkdir(mode=0o755, exist_ok=True)
        (runtime / "sockets").mkdir(mode=0o711, exist_ok=True)
        relay = (Path(__file__).parent / "relay.py").read_text(encoding="utf-8")
        for target, text in ((etc / "passwd", _PASSWD), (etc / "group", _GROUP),
                             (runtime / "relay.py", relay)):
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                temporary = target.parent / f".{target.name}.{os.getpid()}"
                temporary.write_text(text, encoding="utf-8")
                temporary.chmod(0o644)
                temporary.replace(target)
    except OSError as error:
        raise SandboxUnavailable(f"cannot prepare the sandbox's runtime directory {runtime}: "
                                 f"{error.strerror or error}") from None
    if runtime.stat().st_uid != 0 or runtime.stat().st_mode & 0o022:
        raise SandboxUnavailable(f"the sandbox's runtime directory {runtime} must be root's "
                                 "and writable by root only")
    return runtime


@functools.cache
def probe_host() -> Host:
    """This machine's `Host` (once per process).

    Raises:
        SandboxUnavailable: not root, or bubblewrap/util-linux missing.
    """
    if os.geteuid() != 0:
        raise SandboxUnavailable(
            "hosted bots run in a sandbox that needs root (a uid of its own for each bot, "
            "cgroups): run as root, or try your program unsandboxed with exec:COMMAND")
    return Host(bwrap=_tool("bwrap", "bubblewrap"), setpriv=_tool("setpriv", "util-linux"),
                prlimit=_tool("prlimit", "util-linux"), nice=_tool("nice", "coreutils"),
                shell=_tool("sh", "dash"),
                system=_system_dirs(), etc=_etc_entries(), runtime=_runtime_dir())
