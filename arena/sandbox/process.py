"""One program running in the sandbox: started under a uid and cgroups of its own, its CPU
time measured, and its whole process tree killed at the end -- verified, not hoped.

`SandboxedProcess.start` leases a uid (`arena.sandbox.uids`), makes the cgroups
(`arena.sandbox.cgroups`), and runs `arena.sandbox.command`'s chain with pipes for the
program's standard streams (a `subprocess.Popen`, as `arena.exec_bot` uses for any
program). `SandboxedProcess.kill` kills bubblewrap's init inside the pid namespace (the
kernel then kills every process there, daemons included), then every process left in the
cgroups and of the uid, waits until none is, and only then gives the uid back.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import time
from collections.abc import Mapping, Sequence

from arena.sandbox import tree
from arena.sandbox.cgroups import SandboxCgroup
from arena.sandbox.command import Bind, sandbox_command
from arena.sandbox.host import Host, probe_host
from arena.sandbox.seccomp import seccomp_filter
from arena.sandbox.spec import SandboxSpec
from arena.sandbox.uids import UidLease, lease_uid

__all__ = ["KILL_SECONDS", "SandboxedProcess"]

log = logging.getLogger("arena.sandbox")

KILL_SECONDS = 10.0
"""How long killing a sandbox may take before it is reported as leaking (its uid then
stays taken, so that nothing else ever runs as it while something of it may be left)."""

OUTER_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
"""The environment of the chain that starts the sandbox (the program's own is
`arena.sandbox.command.BASE_ENV`): nothing of the server's, which bubblewrap's process in
the sandbox would otherwise show in its ``/proc/1/environ``."""


class SandboxedProcess:
    """A program in the sandbox, with pipes to its standard input, output and error."""

    def __init__(self, popen: subprocess.Popen[bytes], lease: UidLease,
                 cgroup: SandboxCgroup) -> None:
        self.popen = popen
        self.uid = lease.uid
        self._lease = lease
        self.cgroup = cgroup
        self._killed = False

    @classmethod
    def start(cls, program: Sequence[str], *, spec: SandboxSpec | None = None,
              binds: Sequence[Bind] = (), cwd: str = "/tmp",
              env: Mapping[str, str] | None = None, host: Host | None = None,
              stdin: int | None = subprocess.PIPE, stdout: int | None = subprocess.PIPE,
              stderr: int | None = subprocess.PIPE) -> SandboxedProcess:
        """Start `program` (its argv inside the sandbox), its standard streams pipes to
        this process unless said otherwise (None: this process's own).

        Raises:
            SandboxUnavailable: the machine cannot run sandboxes.
            NoFreeUid: too many sandboxes at once.
            OSError: the chain could not start.
        """
        spec = spec or SandboxSpec()
        host = host or probe_host()
        lease = lease_uid(host.uid_locks, spec.uid_base, spec.uids)
        try:
            # a uid given back is empty; a crashed server's leftovers are killed here
            if not tree.kill_uid(lease.uid):
                raise OSError(f"processes of uid {lease.uid} cannot be killed")
            cgroup = SandboxCgroup.create(memory_bytes=spec.memory_bytes,
                                          processes=spec.processes, cpus=spec.cpus)
        except BaseException:
            lease.release()
            raise
        try:
            popen = _popen(host, spec, program, lease, cgroup, binds, cwd, env,
                           (stdin, stdout, stderr))
        except BaseException:
            cgroup.remove()
            lease.release()
            raise
        return cls(popen, lease, cgroup)

    @property
    def pid(self) -> int:
        """Bubblewrap's pid, outside the sandbox."""
        return self.popen.pid

    def cpu_ns(self) -> int:
        """CPU time the program's processes have used so far (all of them, the ones that
        ended included: from the cgroup where there is one)."""
        used = self.cgroup.cpu_ns()
        return tree.tree_cpu_ns(self.popen.pid) if used is None else used

    def exit_status(self, status: int | None) -> int | None:
        """The program's status as `subprocess` gives it (negative: killed by a signal),
        from bubblewrap's (which is 128 + the signal when one killed the program)."""
        if status is not None and status > 128:
            return -(status - 128)
        return status

    def limits_hit(self) -> list[str]:
        """The sandbox's limits the program ran into (``memory``, ``processes``)."""
        return self.cgroup.limits_hit()

    def kill(self) -> bool:
        """Kill every process of the sandbox and wait until none is left; True if so
        (False: something survived `KILL_SECONDS`, reported in the log, and its uid stays
        taken so that nothing else ever runs as it)."""
        if self._killed:
            return True
        for child in tree.children(self.popen.pid):  # bubblewrap's init in the sandbox:
            tree.kill_if_uid(child, self.uid)        # the kernel kills the namespace with it
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(1)  # bubblewrap reaps its init and exits: no zombie is left
        deadline = time.monotonic() + KILL_SECONDS
        while True:
            self.cgroup.kill()
            tree.kill_uid(self.uid, rounds=1)
            try:
                self.popen.wait(0.05)
            except subprocess.TimeoutExpired:
                self.popen.kill()
            if self.popen.poll() is not None and not self.left():
                break
            if time.monotonic() > deadline:
                log.error("sandbox of uid %d: processes %s survive its kill; the uid stays "
                          "taken", self.uid, sorted(self.left()))
                return False
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._killed = True
        self.cgroup.remove()
        self._lease.release()
        return True

    def stop_now(self) -> None:
        """Kill the sandbox's processes without waiting for anything or reaping: safe in
        a signal handler that interrupts `popen.wait` or `kill`. Bubblewrap's init in
        the sandbox dies (the kernel then kills its pid namespace), so bubblewrap exits
        and a `popen.wait` in progress returns; `kill` then makes sure of it all and
        gives the uid back."""
        if self._killed:
            return
        for child in tree.children(self.popen.pid):
            tree.kill_if_uid(child, self.uid)
        self.cgroup.kill()

    def left(self) -> set[int]:
        """The sandbox's processes still alive (zombies, dead already, not counted)."""
        return {pid for pid in tree.uid_pids(self.uid) | self.cgroup.pids()
                if not tree.is_zombie(pid)}


def _popen(host: Host, spec: SandboxSpec, program: Sequence[str], lease: UidLease,
           cgroup: SandboxCgroup, binds: Sequence[Bind], cwd: str,
           env: Mapping[str, str] | None, stdio: tuple[int | None, int | None, int | None],
           ) -> subprocess.Popen[bytes]:
    """Start the chain; bubblewrap's options and the seccomp filter are written first, each
    on a pipe it reads (both fit in a pipe's buffer, so nothing waits)."""
    pipes: list[int] = []
    try:
        args_read = _pipe_with(b"", pipes)  # written below, once the numbers are known
        filter_data = seccomp_filter()
        seccomp_read = _pipe_with(filter_data, pipes) if filter_data is not None else None
        command = sandbox_command(host, spec, program, uid=lease.uid, args_fd=args_read[0],
                                  binds=binds, cwd=cwd, env=env, cgroup_dirs=cgroup.dirs,
                                  seccomp_fd=None if seccomp_read is None else seccomp_read[0])
        data = command.args_data()
        if len(data) > 65536:
            raise ValueError("the sandbox's options are too long")
        os.write(args_read[1], data)
        os.close(args_read[1])
        pipes.remove(args_read[1])
        passed = (args_read[0],) if seccomp_read is None else (args_read[0], seccomp_read[0])
        return subprocess.Popen(
            list(command.argv), stdin=stdio[0], stdout=stdio[1], stderr=stdio[2],
            env=dict(OUTER_ENV), cwd="/", close_fds=True, start_new_session=True,
            pass_fds=passed)
    finally:
        for fd in pipes:
            os.close(fd)


def _pipe_with(data: bytes, opened: list[int]) -> tuple[int, int]:
    """A pipe (read end, write end) holding `data`; its write end is closed unless
    `data` is empty (to be written later). Both ends are noted in `opened`."""
    read, write = os.pipe()
    opened += [read, write]
    if data:
        os.write(write, data)
        os.close(write)
        opened.remove(write)
    return read, write
