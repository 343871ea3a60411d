"""A built bot on this process's own standard streams, in its sandbox: what
``arena bots run DIR`` does, so that any runner of line programs -- ``arena connect
--exec "arena bots run DIR"``, the stdio bridge on a server -- can host a build today.

The program reads and writes this process's standard input, output and error directly
(nothing is copied). This process stays as its keeper: when the program ends, or this
process is told to stop (``SIGTERM``, ``SIGINT``, ``SIGHUP``) -- as it is when the
process that started it dies -- the whole sandbox is killed and its uid given back; if
this process is killed outright, bubblewrap dies with it (``--die-with-parent``) and the
kernel takes the sandbox's processes with it.

`keeper_cpu_ns` measures, from the process that started the keeper, the CPU time of the
sandbox it keeps: what a server's hosted bot is timed by under a CPU clock.
"""

from __future__ import annotations

import ctypes
import os
import signal
from types import FrameType

from arena.sandbox import tree
from arena.sandbox.cgroups import owned_cpu_ns
from arena.sandbox.launch import start_build
from arena.sandbox.manifest import NotABuild, load_build
from arena.sandbox.process import SandboxedProcess
from arena.sandbox.spec import SandboxSpec

__all__ = ["keeper_cpu_ns", "run_build"]

PR_SET_PDEATHSIG = 1


def run_build(directory: str, spec: SandboxSpec | None = None, *, relay: str | None = None,
              token: str = "") -> int:
    """Run the build in `directory` on this process's standard streams until it ends;
    its exit status (128 + the signal that killed it). With `relay`, a WebSocket-speaking
    bot behind its relay to that Unix socket, logging in with `token`
    (`arena.sandbox.launch`)."""
    parent = os.getppid()
    _die_with_parent()
    if os.getppid() != parent:  # it died before it could take us along
        return 128 + signal.SIGTERM
    build = load_build(directory)
    if (build.speaks == "ws") != (relay is not None):
        raise NotABuild(f"{build.directory} speaks {build.speaks}: "
                        + ("run it with --relay SOCKET (a server hosts it: arena serve "
                           "--hosted-dir)" if relay is None else "it takes no --relay"))
    started: list[SandboxedProcess] = []
    stopped: list[int] = []

    def stop(number: int, frame: FrameType | None) -> None:
        # Only a flag and signals: the handler runs inside whatever the main code is
        # doing -- `Popen.wait` (whose lock it holds: a wait or a poll here never reaps,
        # and a kill that waits for the reaping would spin) or `kill` itself.
        del frame
        stopped.append(number)
        for sandbox in started:
            sandbox.stop_now()

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, stop)
    sandbox = start_build(build, spec or SandboxSpec(), stdin=None, stdout=None, stderr=None,
                          relay=relay, token=token)
    started.append(sandbox)
    try:
        if stopped:  # told to stop while it started
            sandbox.stop_now()
        status = sandbox.popen.wait()  # returns once the sandbox's init is killed
    finally:
        sandbox.kill()  # the whole tree, verified, and the uid given back
    return 128 + stopped[0] if stopped else status


def keeper_cpu_ns(keeper: int) -> int:
    """The CPU time the sandbox of the keeper at pid `keeper` used so far (its program's
    processes, the keeper's own not counted), measured as `SandboxedProcess.cpu_ns`
    measures it in the keeper: from the sandbox's cgroup (made by the keeper, named
    after it) where there is one, else from the process tree under the keeper. 0
    before the sandbox starts."""
    used = owned_cpu_ns(keeper)
    if used is not None:
        return used
    return sum(tree.tree_cpu_ns(child) for child in tree.children(keeper))


def _die_with_parent() -> None:
    """Be told ``SIGTERM`` when the process that started this one dies (its bridge
    killed outright), to kill the sandbox then."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
