"""Starting a built bot (`arena.sandbox.manifest`) in its sandbox: its command and
environment with the heap its sandbox allows, its files at ``/bot``, read-only."""

from __future__ import annotations

import subprocess

from arena.sandbox.command import Bind
from arena.sandbox.manifest import HEAP, BuiltBot
from arena.sandbox.process import SandboxedProcess
from arena.sandbox.spec import MiB, SandboxSpec

__all__ = ["heap_mib", "start_build"]


def heap_mib(spec: SandboxSpec) -> int:
    """The heap a runtime may use (`HEAP`): three quarters of the sandbox's memory.

    >>> heap_mib(SandboxSpec())
    384
    """
    return spec.memory_bytes * 3 // 4 // MiB


def start_build(build: BuiltBot, spec: SandboxSpec, *, stdin: int | None = subprocess.PIPE,
                stdout: int | None = subprocess.PIPE,
                stderr: int | None = subprocess.PIPE) -> SandboxedProcess:
    """Start `build`'s program in a sandbox of `spec` (`SandboxedProcess.start`)."""
    heap = str(heap_mib(spec))
    return SandboxedProcess.start(
        [part.replace(HEAP, heap) for part in build.command], spec=spec,
        env={key: value.replace(HEAP, heap) for key, value in build.env.items()},
        cwd="/bot", binds=(Bind(str(build.files), "/bot"),),
        stdin=stdin, stdout=stdout, stderr=stderr)
