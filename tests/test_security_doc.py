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
