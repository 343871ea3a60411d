"""The sandbox's cgroups: memory and process limits, a CPU quota, the CPU time of the
whole process tree, and killing all of it at once -- wherever the machine has them.

Machines differ: cgroup v2 alone (``/sys/fs/cgroup``), v1 alone, or both (v1
controllers with a v2 hierarchy beside them, as here). `cgroup_layout` finds, once per
process, every hierarchy this process may make cgroups in (a directory ``arena-sandbox``
under its own cgroup) and what each offers; `SandboxCgroup.create` takes each feature
from the first hierarchy that has it (v2 first) and makes one cgroup in each hierarchy
used. Features are:

``memory``   the tree's memory (its tmpfs pages included); v2 kills the whole group on OOM
``pids``     processes and threads
``cpu``      a CPU quota (``cpus`` processors at most); all sandboxes together weigh
             as one ordinary process against the server's (the default weight of
             their parent group)
``cpuacct``  the CPU time used (v1 ``cpuacct.usage``; v2 ``cpu.stat``, always present)
``kill``     killing every process at once (v2 ``cgroup.kill``; v1 ``freezer``: freeze,
             kill, thaw)

A feature the machine lacks falls back to the rlimits (`arena.sandbox.command`) and to
`arena.sandbox.tree` (process-tree CPU time, kill by uid); `docs/security.md` says what
each fallback holds.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FEATURES", "Hierarchy", "SandboxCgroup", "cgroup_layout", "owned_cpu_ns"]

FEATURES = ("memory", "pids", "cpu", "cpuacct", "kill")
PARENT = "arena-sandbox"
"""The directory under this process's own cgroup where sandbox cgroups are made."""
_V1_FEATURES = {"memory": "memory", "pids": "pids", "cpu": "cpu", "cpuacct": "cpuacct",
                "freezer": "kill"}
_counter = itertools.count(1)


@dataclass(frozen=True)
class Hierarchy:
    """One cgroup hierarchy this process may make sandbox cgroups in."""

    version: int
    parent: Path
    """``<mount>/<this process's cgroup>/arena-sandbox``."""
    features: frozenset[str]


def _mounts(mountinfo: str) -> Iterator[tuple[str, str, str, set[str]]]:
    """(fstype, mount root, mount point, super options) of each cgroup mount."""
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, after = left.split(), right.split()
        if len(fields) < 5 or len(after) < 3 or after[0] not in ("cgroup", "cgroup2"):
            continue
        yield after[0], fields[3], fields[4].replace("\\040", " "), set(after[2].split(","))


def _own_cgroups(text: str) -> tuple[dict[str, str], str | None]:
    """This process's v1 cgroup per controller, and its v2 cgroup (``/proc/self/cgroup``)."""
    v1: dict[str, str] = {}
    v2 = None
    for line in text.splitlines():
        number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if number == "0" and not controllers:
            v2 = path
        else:
            for controller in controllers.split(","):
                v1[controller] = path
    return v1, v2


def _under(mount_point: str, mount_root: str, own: str) -> Path:
    relative = own.removeprefix(mount_root)
    return Path(mount_point) / relative.lstrip("/") / PARENT


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text, encoding="ascii")
    except OSError:
        return False
    return True


def _prepare(parent: Path) -> bool:
    """Make `parent` (and remove what dead processes left in it); False if not allowed."""
    try:
        parent.mkdir(exist_ok=True)
    except OSError:
        return False
    with contextlib.suppress(OSError):
        for child in parent.iterdir():
            owner = child.name.split("-", 1)[0]
            if child.is_dir() and owner.isdigit() and not _alive(int(owner)):
                _kill_listed(child)
                with contextlib.suppress(OSError):
                    child.rmdir()
    return True


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def _v2_features(parent: Path) -> frozenset[str]:
    """What a v2 hierarchy offers under `parent`: enable the controllers it may (this
    fails where this process's own cgroup holds processes and is not the root: such a
    machine should give the server a delegated cgroup of its own)."""
    features = {"cpuacct"}  # cpu.stat is in every v2 cgroup
    own = parent.parent
    with contextlib.suppress(OSError):
        available = set((own / "cgroup.controllers").read_text().split())
        for controller in ("memory", "pids", "cpu"):
            if controller in available:
                _write(own / "cgroup.subtree_control", f"+{controller}")
    with contextlib.suppress(OSError):
        available = set((parent / "cgroup.controllers").read_text().split())
        for controller in ("memory", "pids", "cpu"):
            if controller in available and _write(parent / "cgroup.subtree_control",
                                                  f"+{controller}"):
                features.add(controller)
    probe = parent / f"{os.getpid()}-probe"
    with contextlib.suppress(OSError):
        probe.mkdir(exist_ok=True)
        if (probe / "cgroup.kill").exists():
            features.add("kill")
        probe.rmdir()
    return frozenset(features)


@functools.cache
def cgroup_layout() -> tuple[Hierarchy, ...]:
    """The hierarchies this process may use, v2 first (empty: no cgroups here)."""
    try:
        mountinfo = Path("/proc/self/mountinfo").read_text()
        own_v1, own_v2 = _own_cgroups(Path("/proc/self/cgroup").read_text())
    except OSError:
        return ()
    found: list[Hierarchy] = []
    for fstype, root, point, options in _mounts(mountinfo):
        if fstype == "cgroup2":
            if own_v2 is None:
                continue
            parent = _under(point, root, own_v2)
            if _prepare(parent):
                found.append(Hierarchy(2, parent, _v2_features(parent)))
        else:
            features = frozenset(_V1_FEATURES[name] for name in options if name in _V1_FEATURES)
            controller = next((name for name in options if name in own_v1), None)
            if not features or controller is None:
                continue
            parent = _under(point, root, own_v1[controller])
            if _prepare(parent):
                found.append(Hierarchy(1, parent, features))
    found.sort(key=lambda hierarchy: -hierarchy.version)
    return tuple(found)


def _pids(directory: Path) -> set[int]:
    try:
        text = (directory / "cgroup.procs").read_text()
    except OSError:
        return set()
    return {int(pid) for pid in text.split()}


def _kill_listed(directory: Path, rounds: int = 100) -> bool:
    """SIGKILL every process listed in `directory` until none is left (True) or `rounds`
    passes found some each time."""
    for _ in range(rounds):
        pids = _pids(directory)
        if not pids:
            return True
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    return not _pids(directory)


def _cpu_usage(hierarchy: Hierarchy, directory: Path) -> int | None:
    """The CPU time (ns) a cgroup's processes used, all that were ever in it (None:
    unreadable, or gone)."""
    try:
        if hierarchy.version == 1:
            return int((directory / "cpuacct.usage").read_text())
        for line in (directory / "cpu.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) * 1000
    except (OSError, ValueError):
        return None
    return None


def owned_cpu_ns(owner: int, layout: Iterable[Hierarchy] | None = None) -> int | None:
    """The CPU time of the sandbox cgroups the process `owner` made, read from another
    process (a sandbox's keeper makes them, its server measures them). Each is named
    after its maker's pid (`SandboxCgroup.create`), in the first hierarchy that counts
    CPU time, as `SandboxCgroup.cpu_ns` reads it. None: `owner` has no such cgroup now
    (not made yet, removed already, or no cgroups here)."""
    hierarchies = tuple(cgroup_layout() if layout is None else layout)
    hierarchy = next((h for h in hierarchies if "cpuacct" in h.features), None)
    if hierarchy is None:
        return None
    used: int | None = None
    with contextlib.suppress(OSError):
        for child in hierarchy.parent.iterdir():
            if child.name.startswith(f"{owner}-"):
                found = _cpu_usage(hierarchy, child)
                if found is not None:
                    used = (used or 0) + found
    return used


class SandboxCgroup:
    """The cgroups of one sandbox (one directory per hierarchy used).

    Made before the program starts (its first process joins `dirs`), removed after it is
    gone (`remove`)."""

    def __init__(self, chosen: dict[str, tuple[Hierarchy, Path]]) -> None:
        self._chosen = chosen
        self.dirs: tuple[str, ...] = tuple(dict.fromkeys(str(d) for _, d in chosen.values()))

    @classmethod
    def create(cls, *, memory_bytes: int, processes: int, cpus: float,
               layout: Iterable[Hierarchy] | None = None) -> SandboxCgroup:
        """Make the cgroups and set their limits (nothing joins them yet)."""
        hierarchies = tuple(cgroup_layout() if layout is None else layout)
        name = f"{os.getpid()}-{next(_counter)}-{os.urandom(3).hex()}"
        chosen: dict[str, tuple[Hierarchy, Path]] = {}
        made: dict[Path, Path] = {}
        for feature in FEATURES:
            for hierarchy in hierarchies:
                if feature not in hierarchy.features:
                    continue
                directory = made.get(hierarchy.parent)
                if directory is None:
                    directory = hierarchy.parent / name
                    try:
                        directory.mkdir()
                    except OSError:
                        continue
                    made[hierarchy.parent] = directory
                chosen[feature] = (hierarchy, directory)
                break
        group = cls(chosen)
        try:
            group._limit(memory_bytes, processes, cpus)
        except OSError:
            group.remove()
            raise
        return group

    def has(self, feature: str) -> bool:
        return feature in self._chosen

    def _file(self, feature: str, v1: str, v2: str) -> Path | None:
        found = self._chosen.get(feature)
        if found is None:
            return None
        hierarchy, directory = found
        return directory / (v1 if hierarchy.version == 1 else v2)

    def _limit(self, memory_bytes: int, processes: int, cpus: float) -> None:
        if (found := self._chosen.get("memory")) is not None:
            hierarchy, directory = found
            if hierarchy.version == 1:
                (directory / "memory.limit_in_bytes").write_text(str(memory_bytes))
                swap = directory / "memory.memsw.limit_in_bytes"
                if swap.exists():
                    swap.write_text(str(memory_bytes))
            else:
                (directory / "memory.max").write_text(str(memory_bytes))
                _write(directory / "memory.swap.max", "0")
                _write(directory / "memory.oom.group", "1")
        if (path := self._file("pids", "pids.max", "pids.max")) is not None:
            path.write_text(str(processes))
        if cpus and (found := self._chosen.get("cpu")) is not None:
            hierarchy, directory = found
            period = 100_000
            quota = max(1000, int(cpus * period))
            if hierarchy.version == 1:
                (directory / "cpu.cfs_period_us").write_text(str(period))
                (directory / "cpu.cfs_quota_us").write_text(str(quota))
            else:
                (directory / "cpu.max").write_text(f"{quota} {period}")

    def cpu_ns(self) -> int | None:
        """CPU time used by every process that was ever in the group (None: not measured
        here)."""
        found = self._chosen.get("cpuacct")
        if found is None:
            return None
        hierarchy, directory = found
        return _cpu_usage(hierarchy, directory)

    def pids(self) -> set[int]:
        """The processes in the group now."""
        found: set[int] = set()
        for directory in self.dirs:
            found |= _pids(Path(directory))
        return found

    def kill(self) -> bool:
        """Kill every process of the group at once; True when none is left."""
        found = self._chosen.get("kill")
        if found is not None:
            hierarchy, directory = found
            if hierarchy.version == 2:
                _write(directory / "cgroup.kill", "1")
            else:
                self._freeze_and_kill(directory)
        return all(_kill_listed(Path(directory)) for directory in self.dirs)

    @staticmethod
    def _freeze_and_kill(directory: Path) -> None:
        state = directory / "freezer.state"
        if not _write(state, "FROZEN"):
            return
        try:
            for _ in range(1000):  # freezing takes a moment for a busy tree
                with contextlib.suppress(OSError):
                    if state.read_text().strip() == "FROZEN":
                        break
                time.sleep(0.001)
            _kill_listed(directory, rounds=1)
        finally:
            _write(state, "THAWED")

    def limits_hit(self) -> list[str]:
        """Which of the group's limits stopped something (for the program's author)."""
        hit: list[str] = []
        if (found := self._chosen.get("memory")) is not None:
            hierarchy, directory = found
            with contextlib.suppress(OSError, ValueError):
                if hierarchy.version == 1:
                    control = dict(line.split() for line in
                                   (directory / "memory.oom_control").read_text().splitlines())
                    if int(control.get("oom_kill", "0")):
                        hit.append("memory")
                else:
                    events = dict(line.split() for line in
                                  (directory / "memory.events").read_text().splitlines())
                    if int(events.get("oom_kill", "0")) or int(events.get("max", "0")):
                        hit.append("memory")
        if (path := self._file("pids", "pids.events", "pids.events")) is not None:
            with contextlib.suppress(OSError, ValueError):
                events = dict(line.split() for line in path.read_text().splitlines())
                if int(events.get("max", "0")):
                    hit.append("processes")
        return hit

    def remove(self) -> bool:
        """Remove the group's directories (True when all are gone: none has a process)."""
        removed = True
        for directory in self.dirs:
            try:
                os.rmdir(directory)
            except FileNotFoundError:
                pass
            except OSError:
                removed = False
        return removed
