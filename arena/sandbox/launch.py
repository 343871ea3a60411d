"""Starting a built bot (`arena.sandbox.manifest`) in its sandbox: its command and
environment with the heap its sandbox allows, its files at ``/bot``, read-only.

A WebSocket-speaking bot is started behind its relay (`arena.sandbox.relay`): the
server's Unix socket for it at ``/run/arena/arena.sock``, the relay at
``/run/arena/relay.py`` (both read-only), the program started by the relay once it
listens on ``127.0.0.1:8765``, with ``ARENA_TOKEN`` and ``ARENA_URL`` in its environment.
"""

from __future__ import annotations

import subprocess

from arena.sandbox.command import Bind
from arena.sandbox.host import probe_host
from arena.sandbox.manifest import HEAP, BuiltBot
from arena.sandbox.process import SandboxedProcess
from arena.sandbox.spec import MiB, SandboxSpec

__all__ = ["RELAY_DIR", "RELAY_URL", "heap_mib", "start_build"]

RELAY_DIR = "/run/arena"
"""Where a WebSocket-speaking bot's sandbox sees its relay and the server's socket."""
RELAY_URL = "ws://127.0.0.1:8765/"
"""The server's address as a WebSocket-speaking hosted bot sees it (``ARENA_URL``)."""


def heap_mib(spec: SandboxSpec) -> int:
    """The heap a runtime may use (`HEAP`): three quarters of the sandbox's memory.

    >>> heap_mib(SandboxSpec())
    384
    """
    return spec.memory_bytes * 3 // 4 // MiB


def start_build(build: BuiltBot, spec: SandboxSpec, *, stdin: int | None = subprocess.PIPE,
                stdout: int | None = subprocess.PIPE,
                stderr: int | None = subprocess.PIPE, relay: str | None = None,
                token: str = "") -> SandboxedProcess:
    """Start `build`'s program in a sandbox of `spec` (`SandboxedProcess.start`);
    with `relay` (the server's Unix socket for this bot), behind the relay, with
    `token` as its ``ARENA_TOKEN`` (module docstring)."""
    heap = str(heap_mib(spec))
    program = [part.replace(HEAP, heap) for part in build.command]
    env = {key: value.replace(HEAP, heap) for key, value in build.env.items()}
    binds = [Bind(str(build.files), "/bot")]
    if relay is not None:
        program = ["/usr/bin/python3", "-I", "-S", f"{RELAY_DIR}/relay.py", "--", *program]
        env |= {"ARENA_TOKEN": token, "ARENA_URL": RELAY_URL}
        binds += [Bind(str(probe_host().relay), f"{RELAY_DIR}/relay.py"),
                  Bind(relay, f"{RELAY_DIR}/arena.sock")]
    return SandboxedProcess.start(program, spec=spec, env=env, cwd="/bot", binds=binds,
                                  stdin=stdin, stdout=stdout, stderr=stderr)
