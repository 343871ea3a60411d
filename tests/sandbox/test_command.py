"""The sandbox's command line, flag by flag (`arena.sandbox.command`): a pure function of
the host, the limits and the program, so each promise of docs/security.md is one assert."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.sandbox.command import BASE_ENV, Bind, SandboxCommand, sandbox_command
from arena.sandbox.host import Host, SystemDir
from arena.sandbox.spec import SandboxSpec

HOST = Host(bwrap="/usr/bin/bwrap", setpriv="/usr/bin/setpriv", prlimit="/usr/bin/prlimit",
            nice="/usr/bin/nice", shell="/bin/sh", system=(SystemDir("/usr"), SystemDir("/bin", "usr/bin"),
                                     SystemDir("/lib64")),
            etc=("/etc/alternatives", "/etc/ld.so.cache"), runtime=Path("/run/arena-sandbox"))
SPEC = SandboxSpec(memory_bytes=100, address_space_bytes=200, processes=7, cpus=0.5, nice=13,
                   cpu_seconds=30, file_size_bytes=300, open_files=40, tmp_bytes=500,
                   shm_bytes=600)


def command(**options: object) -> SandboxCommand:
    arguments: dict[str, object] = {"uid": 1_500_000_042, "args_fd": 9,
                                    "binds": [Bind("/srv/builds/b/bot", "/bot")], "cwd": "/bot",
                                    "env": {"GOMEMLIMIT": "384MiB"}, **options}
    return sandbox_command(HOST, SPEC, ["/usr/bin/python3", "bot.py"], **arguments)  # type: ignore[arg-type]


def pairs(args: tuple[str, ...], flag: str, width: int = 1) -> list[tuple[str, ...]]:
    return [args[i + 1:i + 1 + width] for i, arg in enumerate(args) if arg == flag]


def test_the_chain_joins_the_cgroups_then_sets_rlimits_then_drops_to_its_uid() -> None:
    argv = command(cgroup_dirs=["/cg/memory/x", "/cg/pids/x"]).argv
    assert argv[:4] == ("/bin/sh", "-c", argv[2], "sh")
    assert argv[4:7] == ("/cg/memory/x", "/cg/pids/x", "--")
    prlimit = argv.index("/usr/bin/prlimit")
    assert argv[prlimit + 1:argv.index("--", prlimit)] == (
        "--as=200", "--nproc=7", "--cpu=30:35", "--fsize=300", "--nofile=40", "--core=0",
        "--memlock=0", "--msgqueue=0")
    assert argv[argv.index("--", prlimit) + 1:argv.index("/usr/bin/setpriv")] == (
        "/usr/bin/nice", "-n", "13")
    setpriv = argv.index("/usr/bin/setpriv")
    assert argv[setpriv + 1:argv.index("--", setpriv)] == (
        "--reuid=1500000042", "--regid=1500000042", "--clear-groups", "--no-new-privs",
        "--inh-caps=-all", "--bounding-set=-all")
    assert argv[-6:] == ("/usr/bin/bwrap", "--args", "9", "--", "/usr/bin/python3", "bot.py")


def test_without_cgroups_the_chain_starts_at_prlimit() -> None:
    assert command().argv[0] == "/usr/bin/prlimit"


def test_the_cgroup_script_joins_each_directory_then_execs_the_rest(tmp_path: Path) -> None:
    import subprocess

    groups = [tmp_path / "a", tmp_path / "b"]
    for group in groups:
        group.mkdir()
    argv = command(cgroup_dirs=[str(g) for g in groups]).argv
    script = argv[2]
    done = subprocess.run(["/bin/sh", "-c", script, "sh", *map(str, groups), "--", "echo",
                           "ran"], capture_output=True, text=True, check=True)
    assert done.stdout == "ran\n"
    assert [(g / "cgroup.procs").read_text().strip() for g in groups] == [
        (groups[1] / "cgroup.procs").read_text().strip()] * 2
    (groups[1] / "cgroup.procs").unlink()
    (groups[1] / "cgroup.procs").mkdir()  # cannot be written: nothing runs
    failed = subprocess.run(["/bin/sh", "-c", script, "sh", *map(str, groups), "--", "echo",
                             "ran"], capture_output=True, text=True, check=False)
    assert failed.returncode == 125 and failed.stdout == ""


def test_bubblewrap_unshares_everything_and_runs_as_an_unprivileged_uid() -> None:
    args = command().bwrap_args
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
                 "--new-session", "--clearenv"):
        assert flag in args
    assert "--share-net" not in args
    assert pairs(args, "--uid") == [("1000",)] and pairs(args, "--gid") == [("1000",)]
    assert pairs(args, "--cap-drop") == [("ALL",)]


def test_the_environment_is_the_sandboxs_own() -> None:
    env = dict(pairs(command().bwrap_args, "--setenv", 2))  # type: ignore[arg-type]
    assert env == {**BASE_ENV, "GOMEMLIMIT": "384MiB"}


def test_the_filesystem_is_the_read_only_system_and_the_bots_own_files() -> None:
    args = command().bwrap_args
    assert pairs(args, "--ro-bind", 2) == [
        ("/usr", "/usr"), ("/lib64", "/lib64"),
        ("/run/arena-sandbox/etc/passwd", "/etc/passwd"),
        ("/run/arena-sandbox/etc/group", "/etc/group"), ("/srv/builds/b/bot", "/bot")]
    assert pairs(args, "--symlink", 2) == [("usr/bin", "/bin")]
    assert pairs(args, "--ro-bind-try", 2) == [("/etc/alternatives", "/etc/alternatives"),
                                               ("/etc/ld.so.cache", "/etc/ld.so.cache")]
    assert "--bind" not in args and "--dev-bind" not in args  # nothing of the host writable
    assert pairs(args, "--tmpfs") == [("/dev/shm",), ("/tmp",)]
    assert pairs(args, "--size") == [("600",), ("500",)]
    assert args.index("--size") + 2 == args.index("--tmpfs")
    assert pairs(args, "--remount-ro") == [("/dev",), ("/",)]
    assert args[-4:] == ("--chdir", "/bot", "--remount-ro", "/")  # last: all is mounted


def test_the_options_travel_on_a_pipe_not_on_the_command_line() -> None:
    result = command()
    assert result.args_data().split(b"\0")[:-1] == [a.encode() for a in result.bwrap_args]
    assert "/srv/builds/b/bot" not in result.argv


@pytest.mark.parametrize("target", ["/", "/proc", "/dev", "/tmp", "relative"])
def test_a_bind_over_the_sandboxs_own_mounts_is_refused(target: str) -> None:
    with pytest.raises(ValueError, match="cannot bind"):
        command(binds=[Bind("/x", target)])


def test_an_empty_program_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a program"):
        sandbox_command(HOST, SPEC, [], uid=1, args_fd=3)
