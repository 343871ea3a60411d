"""docs/security.md lists every limit as the code has it: each game's settings limits
with their values, each budget of `ServerConfig` with its `arena serve` flag, and every
field of the HTTP side's `WebConfig`."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from arena.registry import default_registry
from arena.server import ServerConfig
from arena.web.config import WebConfig

DOC = (Path(__file__).resolve().parents[1] / "docs" / "security.md").read_text(encoding="utf-8")

BUDGETS = {
    "max_frame": None, "max_ws_frame": None, "hello_timeout": None,
    "max_connections_per_address": "--max-connections-per-address",
    "message_rate": "--message-rate", "message_burst": "--message-burst",
    "max_queue_bytes": "--max-queue-bytes", "max_state_bytes": "--max-state-bytes",
    "settings_limits": "--limit", "guest_settings_limits": "--guest-limit",
    "guest_lifetime": "--guest-lifetime", "house_prepare_timeout": None,
    "storage_probe_interval": None, "legal_requests_per_turn": None, "max_legal": None,
    "log_limits": None, "debug_retention_days": "--debug-retention-days",
    "debug_disk_reserve_mb": "--debug-disk-reserve-mb",
    "challenges": "--challenges-per-hour",
}


@pytest.mark.parametrize("name", sorted(default_registry().games))
def test_every_settings_limit_is_in_the_table(name: str) -> None:
    for limit in default_registry().game_class(name).type.limits:
        row = f"| `{name}.{limit.name}` | {limit.standard} | {limit.guest} | {limit.doc} |"
        assert row in DOC, row


def test_every_budget_is_documented_with_its_flag() -> None:
    known = {f.name for f in fields(ServerConfig)}
    for field_name, flag in BUDGETS.items():
        assert field_name in known
        assert f"`{field_name}`" in DOC, field_name
        if flag is not None:
            assert f"`{flag}" in DOC, flag
    defaults = ServerConfig()
    assert f"| {defaults.max_connections_per_address} |" in DOC
    assert f"| {defaults.message_rate:g} |" in DOC and f"| {defaults.message_burst} |" in DOC
    assert f"| {defaults.max_state_bytes // 1024} KiB |" in DOC
    assert f"| {defaults.max_queue_bytes // 2**20} MiB |" in DOC
    assert f"| {defaults.max_frame // 1024} KiB |" in DOC
    assert f"| {defaults.log_limits.max_log_bytes_per_day // 2**20} MiB |" in DOC
    assert "`--max-log-bytes-per-day`" in DOC
    assert f"| {defaults.debug_retention_days:g} |" in DOC
    assert f"| {defaults.debug_disk_reserve_mb} MiB |" in DOC
    challenges = defaults.challenges
    assert f"| {challenges.per_hour} in any hour | `challenges.per_hour` |" in DOC
    assert f"| {challenges.pending} | `challenges.pending` | `--challenges-pending` |" in DOC
    assert f"| {challenges.timeout:g} s | `challenges.timeout` | `--challenge-timeout` |" in DOC


def test_the_ladders_pair_limit_is_documented_with_its_flag() -> None:
    from arena.server import LadderConfig

    row = f"| {LadderConfig().pairings_per_hour} in any hour (house bots not counted) |"
    assert row in DOC and "`LadderConfig.pairings_per_hour` | `--pairings-per-hour` |" in DOC


def test_every_http_budget_is_documented() -> None:
    for field in fields(WebConfig):
        if field.name != "default_game":  # a choice, not a budget
            assert f"`{field.name}`" in DOC, field.name
    web = WebConfig()
    assert f"| {web.max_head // 1024} KiB |" in DOC
    assert f"| {web.max_upload // 2**20} MiB |" in DOC
    assert f"| {web.replay_state_bytes // 1024} KiB |" in DOC
    assert f"| {web.guests_per_client_minute} a minute |" in DOC
    assert "`--guests-per-client`" in DOC and "`--origin URL`" in DOC


def test_every_sandbox_limit_is_documented_with_its_default() -> None:
    from arena.sandbox.spec import BuildLimits, SandboxSpec, UploadLimits

    mib = 2**20
    for cls in (SandboxSpec, BuildLimits, UploadLimits):
        for field in fields(cls):
            assert f"`{cls.__name__}.{field.name}`" in DOC, (cls.__name__, field.name)
    spec, build, upload = SandboxSpec(), BuildLimits(), UploadLimits()
    rows = [
        f"| {spec.memory_bytes // mib} MiB | `SandboxSpec.memory_bytes` |",
        f"| {spec.address_space_bytes // mib} MiB | `SandboxSpec.address_space_bytes` |",
        f"| {spec.processes} | `SandboxSpec.processes` |",
        f"| {spec.cpus} | `SandboxSpec.cpus` |",
        (f"| nice {spec.nice} (with a cpu cgroup, all sandboxes together weigh as one "
         "ordinary process against the server's) | `SandboxSpec.nice` |"),
        f"| {spec.cpu_seconds} s | `SandboxSpec.cpu_seconds` |",
        f"| {spec.file_size_bytes // mib} MiB | `SandboxSpec.file_size_bytes` |",
        f"| {spec.open_files} | `SandboxSpec.open_files` |",
        f"| {spec.tmp_bytes // mib} MiB | `SandboxSpec.tmp_bytes` |",
        f"| {spec.shm_bytes // mib} MiB | `SandboxSpec.shm_bytes` |",
        f"| {spec.uids} from {spec.uid_base} | `SandboxSpec.uid_base`, `SandboxSpec.uids` |",
        f"| {build.wall_seconds} s | `BuildLimits.wall_seconds` |",
        f"| {build.memory_bytes // mib} MiB | `BuildLimits.memory_bytes` |",
        f"| {build.processes} | `BuildLimits.processes` |",
        f"| {build.cpus} | `BuildLimits.cpus` |",
        f"| {build.tmp_bytes // mib} MiB | `BuildLimits.tmp_bytes` |",
        (f"| {build.log_bytes // 1024} KiB: the first and last {build.log_bytes // 2048} KiB "
        "| `BuildLimits.log_bytes` |"),
        f"| {build.output_bytes // mib} MiB | `BuildLimits.output_bytes` |",
        f"| {build.output_files} | `BuildLimits.output_files` |",
        f"| {upload.archive_bytes // mib} MiB | `UploadLimits.archive_bytes` |",
        f"| {upload.unpacked_bytes // mib} MiB | `UploadLimits.unpacked_bytes` |",
        f"| {upload.files} | `UploadLimits.files` |",
        f"| {upload.path_bytes} bytes | `UploadLimits.path_bytes` |",
        f"| {upload.depth} | `UploadLimits.depth` |",
    ]
    for row in rows:
        assert row in DOC, row


def test_the_hosted_bots_timing_limits_are_documented() -> None:
    from arena.clock import CPU_POLL_SECONDS, cpu_wall_ceiling_ms
    from arena.exec_bot import QUIT_SECONDS
    from arena.sandbox.host import ETC_ALLOWED
    from arena.sandbox.process import KILL_SECONDS

    assert f"| {CPU_POLL_SECONDS * 1000:.0f} ms | `arena.clock.CPU_POLL_SECONDS` |" in DOC
    assert cpu_wall_ceiling_ms(1000) == 11_000 and cpu_wall_ceiling_ms(10_000) == 30_000
    assert "| 3 x its CPU allowance, and 10 s more than it at least |" in DOC
    assert f"| {QUIT_SECONDS:.0f} s | `arena.exec_bot.QUIT_SECONDS` |" in DOC
    assert f"| {KILL_SECONDS:.0f} s | `arena.sandbox.process.KILL_SECONDS` |" in DOC
    listed = DOC.split("(`ETC_ALLOWED`:")[1].split(")")[0]
    assert [part.strip(" \n`") for part in listed.split(",")] == list(ETC_ALLOWED)


def test_every_accounts_budget_is_documented() -> None:
    from arena.web.config import AccountsConfig

    for field in fields(AccountsConfig):
        assert f"`{field.name}`" in DOC, field.name
    assert "`--signup`" in DOC
    defaults = AccountsConfig()
    assert f"| {defaults.bots_per_person} | `bots_per_person`" in DOC
    assert f"| {defaults.versions_per_day} | `versions_per_day`" in DOC
    assert f"| {defaults.builds_per_day} | `builds_per_day`" in DOC
    from arena.uploads import VERSIONS_PER_DAY  # the command line's uploads count the same
    assert VERSIONS_PER_DAY == defaults.versions_per_day
    assert f"{defaults.password_min} to {defaults.password_max} characters" in DOC


def test_the_hosted_budgets_are_documented_with_their_defaults() -> None:
    from arena.config import HostedConfig
    from arena.uploads import KEEP_BUILDS

    hosted = HostedConfig()
    assert f"| builds at once | {hosted.builds_at_once} | `HostedConfig.builds_at_once` |" in DOC
    assert f"| builds waiting | {hosted.build_queue} | `HostedConfig.build_queue` |" in DOC
    assert f"| {KEEP_BUILDS} (the newest successful ones) | `arena.uploads.KEEP_BUILDS` |" in DOC
    assert f"| {hosted.upload.archive_bytes // 2**20} MiB (the program;" in DOC
    assert "`arena serve --hosted-slots`" in DOC
