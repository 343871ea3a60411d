"""The command line that starts a program in the sandbox, as a pure function of what it
runs and under which limits (`sandbox_command`), so every flag is seen by a unit test.

The chain, each step exec'ing the next (nothing stays behind but bubblewrap):

1. ``sh`` (only with cgroups) puts itself -- so everything it starts -- into the
   sandbox's cgroups before anything of the program runs;
2. ``prlimit`` sets the rlimits (`SandboxSpec`), ``nice`` lowers its priority;
3. ``setpriv`` becomes the sandbox's own unprivileged host uid, without groups,
   capabilities or the means to gain any (``no_new_privs``: a setuid file gives nothing);
4. ``bwrap`` makes new user, pid, network, ipc, uts and cgroup namespaces, mounts the
   read-only system, a bounded ``/tmp`` and ``/dev/shm``, the bot's directory read-only,
   makes everything else read-only, and runs the program as uid 1000 with a clean
   environment. Its options go through a pipe (``--args``), so the program cannot read
   the host's paths in its ``/proc/1/cmdline`` (only its own command line is there).

With ``--unshare-pid`` and ``--die-with-parent``, the program's processes die with
bubblewrap's first process in the namespace: no orphan outlives its sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.sandbox.host import SANDBOX_UID, Host
from arena.sandbox.spec import SandboxSpec

__all__ = ["BASE_ENV", "Bind", "SandboxCommand", "sandbox_command"]

BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "USER": "bot",
    "LOGNAME": "bot",
}
"""The environment a program starts with (all of it, with the language's own additions):
nothing of the server's environment (its tokens, its database's address) reaches it."""

JOIN_CGROUPS = ('for dir; do [ "$dir" = -- ] && break; '
                'echo $$ > "$dir/cgroup.procs" || exit 125; done; '
                'while [ "$1" != -- ]; do shift; done; shift; exec "$@"')
"""The shell's script: join each cgroup directory given before ``--``, then exec the
rest (exit status 125 if a cgroup cannot be joined)."""


@dataclass(frozen=True)
class Bind:
    """A host directory or file shown, read-only, in the sandbox (nothing of the host is
    ever writable there)."""

    source: str
    target: str


@dataclass(frozen=True)
class SandboxCommand:
    """What to run (`argv`, with a minimal environment) and what to write, NUL-separated,
    on the pipe bubblewrap reads its options from (`bwrap_args`)."""

    argv: tuple[str, ...]
    bwrap_args: tuple[str, ...]

    def args_data(self) -> bytes:
        """`bwrap_args` as bubblewrap's ``--args`` reads them."""
        return b"".join(arg.encode("utf-8") + b"\0" for arg in self.bwrap_args)


def _rlimits(spec: SandboxSpec) -> list[str]:
    return [f"--as={spec.address_space_bytes}", f"--nproc={spec.processes}",
            f"--cpu={spec.cpu_seconds}:{spec.cpu_seconds + 5}",
            f"--fsize={spec.file_size_bytes}", f"--nofile={spec.open_files}",
            "--core=0", "--memlock=0", "--msgqueue=0"]


def sandbox_command(host: Host, spec: SandboxSpec, program: Sequence[str], *, uid: int,
                    args_fd: int, binds: Sequence[Bind] = (), cwd: str = "/tmp",
                    env: Mapping[str, str] | None = None,
                    cgroup_dirs: Sequence[str] = (), seccomp_fd: int | None = None,
                    ) -> SandboxCommand:
    """The command that runs `program` (argv inside the sandbox) under `spec` as host uid
    `uid`.

    Args:
        args_fd: the file descriptor, in the started process, of the pipe holding
            `SandboxCommand.bwrap_args`.
        binds: what the program sees of the host beyond the system (its own files).
        cwd: its working directory, inside the sandbox.
        env: added to `BASE_ENV`.
        cgroup_dirs: the cgroups to join first (`arena.sandbox.cgroups`).
        seccomp_fd: a file descriptor holding a seccomp filter for bubblewrap to load.
    """
    if not program:
        raise ValueError("the sandbox needs a program to run")
    for bind in binds:
        if not bind.target.startswith("/") or bind.target in ("/", "/proc", "/dev", "/tmp"):
            raise ValueError(f"cannot bind over {bind.target!r} in the sandbox")
    argv: list[str] = []
    if cgroup_dirs:
        argv += [host.shell, "-c", JOIN_CGROUPS, "sh", *cgroup_dirs, "--"]
    argv += [host.prlimit, *_rlimits(spec), "--", host.nice, "-n", str(spec.nice)]
    argv += [host.setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
             "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
    argv += [host.bwrap, "--args", str(args_fd)]

    args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
            "--new-session", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--hostname", "arena", "--cap-drop", "ALL", "--clearenv"]
    for key, value in {**BASE_ENV, **(env or {})}.items():
        args += ["--setenv", key, value]
    for system in host.system:
        if system.target is not None:
            args += ["--symlink", system.target, system.path]
        else:
            args += ["--ro-bind", system.path, system.path]
    for entry in host.etc:
        args += ["--ro-bind-try", entry, entry]
    for target, source in host.etc_files.items():
        args += ["--ro-bind", str(source), target]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(spec.shm_bytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
             "--size", str(spec.tmp_bytes), "--tmpfs", "/tmp"]
    for bind in binds:
        args += ["--ro-bind", bind.source, bind.target]
    args += ["--chdir", cwd, "--remount-ro", "/"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return SandboxCommand((*argv, "--", *program), tuple(args))
