"""The sandbox's cgroups (`arena.sandbox.cgroups`): finding the hierarchies of v1, v2 and
hybrid machines, and -- on this one -- limits that are set, CPU time that is counted and
a kill that leaves nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox import tree
from arena.sandbox.cgroups import (
    Hierarchy,
    SandboxCgroup,
    _mounts,
    _own_cgroups,
    _under,
    cgroup_layout,
    owned_cpu_ns,
)
from arena.sandbox.command import Bind
from arena.sandbox.process import SandboxedProcess
from arena.sandbox.run import keeper_cpu_ns
from arena.sandbox.spec import SandboxSpec
from tests.waiting import wait_for_sync

from .conftest import require_sandbox

HYBRID = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
50 23 0:40 /docker/abc /sys/fs/cgroup/freezer ro,relatime - cgroup cgroup rw,freezer
"""
OWN = """\
9:name=systemd:/
8:pids:/user.slice
4:memory:/process_api/5674
2:cpu,cpuacct:/
6:freezer:/docker/abc/inner
0::/user.slice/session-1.scope
"""


def test_cgroup_mounts_and_this_process_s_groups_are_read() -> None:
    mounts = list(_mounts(HYBRID))
    assert [(kind, point) for kind, _, point, _ in mounts] == [
        ("cgroup", "/sys/fs/cgroup/cpu,cpuacct"), ("cgroup", "/sys/fs/cgroup/memory"),
        ("cgroup", "/sys/fs/cgroup/pids"), ("cgroup2", "/sys/fs/cgroup/unified"),
        ("cgroup", "/sys/fs/cgroup/freezer")]
    assert mounts[0][3] >= {"cpu", "cpuacct"}
    v1, v2 = _own_cgroups(OWN)
    assert v1["memory"] == "/process_api/5674" and v1["cpuacct"] == "/"
    assert v2 == "/user.slice/session-1.scope"


def test_sandbox_groups_go_under_this_process_s_own_group() -> None:
    assert _under("/sys/fs/cgroup/memory", "/", "/process_api/5674") == Path(
        "/sys/fs/cgroup/memory/process_api/5674/arena-sandbox")
    # a mount of a sub-tree (a container's view): the path is relative to its root
    assert _under("/sys/fs/cgroup/freezer", "/docker/abc", "/docker/abc/inner") == Path(
        "/sys/fs/cgroup/freezer/inner/arena-sandbox")


@pytest.fixture
def layout() -> tuple:  # type: ignore[type-arg]
    require_sandbox()
    found = cgroup_layout()
    if not found:
        pytest.skip("this machine gives no cgroups: rlimits and /proc stand in")
    return found


def test_a_sandbox_group_has_its_limits(layout: tuple) -> None:  # type: ignore[type-arg]
    group = SandboxCgroup.create(memory_bytes=64 << 20, processes=9, cpus=0.5, layout=layout)
    try:
        if group.has("memory"):
            directory = Path(next(d for d in group.dirs if "memory" in d or "unified" in d))
            limit = directory / "memory.limit_in_bytes"
            if not limit.exists():
                limit = directory / "memory.max"
            assert int(limit.read_text()) == 64 << 20
        if group.has("pids"):
            assert any(Path(d, "pids.max").exists() and Path(d, "pids.max").read_text().strip() == "9"
                       for d in group.dirs)
        if group.has("cpu"):
            quotas = [Path(d, "cpu.cfs_quota_us") for d in group.dirs] + \
                     [Path(d, "cpu.max") for d in group.dirs]
            assert any(q.exists() and q.read_text().split()[0] == "50000" for q in quotas)
        assert group.cpu_ns() == 0 if group.has("cpuacct") else group.cpu_ns() is None
        assert group.pids() == set()
    finally:
        assert group.remove()
    assert not any(Path(d).exists() for d in group.dirs)


def test_the_cpu_time_of_a_whole_tree_is_counted(builds: Path) -> None:
    """Four processes burn CPU at once; the sandbox's count is their sum, as
    /proc's is (the cgroup also counts those that ended)."""
    work = builds / "burn"
    work.mkdir()
    script = work / "burn.py"
    script.write_text(
        "import os, time, sys\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0: break\n"
        "start = time.process_time()\n"
        "while time.process_time() - start < 0.3: pass\n"
        "print('done', flush=True)\n"
        "sys.stdin.read()\n")
    work.chmod(0o755)
    script.chmod(0o644)
    sandbox = SandboxedProcess.start(["/usr/bin/python3", "/w/burn.py"], cwd="/w",
                                     binds=(Bind(str(work), "/w"),))
    try:
        assert sandbox.popen.stdout is not None
        lines = [sandbox.popen.stdout.readline() for _ in range(4)]
        assert lines == [b"done\n"] * 4
        used = sandbox.cpu_ns()
        assert used >= 4 * 0.3e9  # every process's, not only the first one's
        assert tree.tree_cpu_ns(sandbox.pid) >= 4 * 0.29e9
        assert len(sandbox.left()) >= 4
    finally:
        assert sandbox.kill()
    assert sandbox.left() == set()


def test_a_sandbox_s_cpu_time_is_read_by_its_maker_s_pid_from_another_process(
        tmp_path: Path) -> None:
    """A keeper makes the cgroups (named after its pid), its server reads them: from the
    first hierarchy that counts CPU time, as `SandboxCgroup.create` chose it."""
    v2, v1 = tmp_path / "unified", tmp_path / "cpuacct"
    for directory, name, text in ((v2, "123-1-aa", "usage_usec 2500\nuser_usec 2000\n"),
                                  (v2, "1234-1-bb", "usage_usec 9\n"),
                                  (v1, "123-1-aa", "777\n")):
        (directory / name).mkdir(parents=True)
        (directory / name / ("cpu.stat" if directory == v2 else "cpuacct.usage")).write_text(text)
    both = (Hierarchy(2, v2, frozenset({"kill", "cpuacct"})),
            Hierarchy(1, v1, frozenset({"cpuacct"})))
    assert owned_cpu_ns(123, both) == 2_500_000  # not 1234's
    assert owned_cpu_ns(123, both[1:]) == 777
    assert owned_cpu_ns(99, both) is None and owned_cpu_ns(123, ()) is None


def test_a_keeper_s_sandbox_without_a_cgroup_is_measured_by_its_process_tree() -> None:
    """Without a cgroup named after the keeper, its children's trees count (the keeper's
    own CPU time does not)."""
    burn = ("import time\nstart = time.process_time()\n"
            "while time.process_time() - start < 0.3: pass\nprint('done', flush=True)\n"
            "input()\n")
    with subprocess.Popen(["/bin/sh", "-c", f'{sys.executable} -c "$0"; :', burn],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as keeper:
        assert keeper.stdout is not None and keeper.stdin is not None
        assert keeper.stdout.readline() == b"done\n"
        assert owned_cpu_ns(keeper.pid) is None
        assert keeper_cpu_ns(keeper.pid) >= 0.29e9
        keeper.stdin.close()
    assert keeper_cpu_ns(keeper.pid) == 0  # gone


def test_the_kill_takes_every_process_even_those_in_a_session_of_their_own() -> None:
    require_sandbox()
    sandbox = SandboxedProcess.start(
        ["/bin/sh", "-c", "(setsid sh -c 'sleep 1000 & sleep 1000') & echo up; exec sleep 1000"],
        spec=SandboxSpec(), stdin=subprocess.DEVNULL)
    try:
        assert sandbox.popen.stdout is not None
        assert sandbox.popen.stdout.readline() == b"up\n"
        assert len(sandbox.left()) >= 4
    finally:
        assert sandbox.kill()
    assert sandbox.left() == set()
    assert sandbox.kill()  # again: nothing to do


def test_a_keeper_killed_outright_takes_its_sandbox_with_it() -> None:
    """The process that started a sandbox dies without a chance to kill it (SIGKILL):
    bubblewrap dies with its parent, the pid namespace with bubblewrap, and the uid is
    free again -- the next lease of it kills anything left."""
    require_sandbox()
    with subprocess.Popen(
            [sys.executable, "-c",
             ("import subprocess, sys\n"
             "from arena.sandbox.process import SandboxedProcess\n"
             "box = SandboxedProcess.start(['/bin/sh', '-c', '(setsid sleep 1000 &); "
             "sleep 1000'], stdin=subprocess.DEVNULL)\n"
             "print(box.uid, flush=True)\n"
             "sys.stdin.read()\n")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=Path(__file__).parents[2],
    ) as keeper:
        assert keeper.stdout is not None
        uid = int(keeper.stdout.readline())
        wait_for_sync(lambda: len(tree.uid_pids(uid)) >= 4, what="the sandbox runs")
        keeper.kill()
    wait_for_sync(lambda: not {pid for pid in tree.uid_pids(uid) if not tree.is_zombie(pid)},
                  what="nothing of the sandbox is left")
