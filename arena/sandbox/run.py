"""A built bot on this process's own standard streams, in its sandbox: what
``arena bots run DIR`` does, so that any runner of line programs -- ``arena connect
--exec "arena bots run DIR"``, the stdio bridge on a server -- can host a build today.

The program reads and writes this process's standard input, output and error directly
(nothing is copied). This process stays as its keeper: when the program ends, or this
process is told to stop (``SIGTERM``, ``SIGINT``, ``SIGHUP``), the whole sandbox is
killed and its uid given back; if this process is killed outright, bubblewrap dies with
it (``--die-with-parent``) and the kernel takes the sandbox's processes with it.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

from arena.sandbox.launch import start_build
from arena.sandbox.manifest import load_build
from arena.sandbox.spec import SandboxSpec

__all__ = ["run_build"]


def run_build(directory: str, spec: SandboxSpec | None = None) -> int:
    """Run the build in `directory` on this process's standard streams until it ends;
    its exit status (128 + the signal that killed it)."""
    sandbox = start_build(load_build(directory), spec or SandboxSpec(),
                          stdin=None, stdout=None, stderr=None)

    def stop(number: int, frame: FrameType | None) -> None:
        del frame
        sandbox.kill()
        sys.exit(128 + number)

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, stop)
    try:
        status = sandbox.popen.wait()
    finally:
        sandbox.kill()
    return status
