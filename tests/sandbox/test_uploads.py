"""Uploads (`arena.uploads`, ``arena bots upload``): an upload is built in the sandbox
into the hosted directory and recorded with its log; a failed build keeps its log for
the owner and leaves the bot's current build as it was; uploads that cannot be taken
(an unknown language, no such account, sources over their limits, a bad archive) are
refused with a clear message."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.sandbox.manifest import load_build
from arena.sandbox.spec import UploadLimits
from arena.storage import BuildRow, Storage, open_storage
from arena.uploads import KEEP_BUILDS, LANGS, BuildQueueFull, UploadError, Uploads

from .conftest import BOTS

pytestmark = pytest.mark.usefixtures("no_leftovers")


async def _current(uploads: Uploads, bot: str) -> tuple[str, Path] | None:
    found = await uploads.current(bot)
    return None if found is None else (found[0].id, found[1])


async def _storage(tmp_path: Path) -> Storage:
    storage = await open_storage(str(tmp_path / "arena.sqlite"))
    await storage.add_bot("alice")
    await storage.add_bot("runner", operator=True)
    return storage


def _broken_c(tmp_path: Path) -> Path:
    source = tmp_path / "broken.c"
    source.write_text("int main(void) { return undeclared; }\n")
    return source


async def test_an_upload_becomes_the_bots_current_build_and_a_failed_one_does_not(
        builds: Path, tmp_path: Path) -> None:
    storage = await _storage(tmp_path)
    seen: list[tuple[BuildRow, Path]] = []

    async def new_version(build: BuildRow, directory: Path) -> None:
        seen.append((build, directory))

    uploads = Uploads(storage, builds / "hosted-a", on_new_version=new_version)
    try:
        good = await uploads.upload("alice", BOTS / "python", "python")
        assert good.status == "ok" and good.sha256 and good.finished is not None
        assert load_build(uploads.build_dir(good)).lang == "python"
        assert seen == [(good, uploads.build_dir(good))]
        assert await _current(uploads, "alice") == (good.id, uploads.build_dir(good))
        assert await uploads.hosted() == {"alice": uploads.build_dir(good)}

        bad = await uploads.upload("alice", _broken_c(tmp_path), "c")
        assert bad.status == "failed" and "exit status 1" in (bad.detail or "")
        stored = await storage.build(bad.id)
        assert stored is not None and "undeclared" in (stored.log or "")
        # why, as a code a page says in its language
        assert (stored.detail_code, stored.detail_params) == ("build-exit", {"status": 1})
        assert good.detail_code is None and good.detail_params is None
        assert not uploads.build_dir(bad).exists()  # its log is in the database
        assert len(seen) == 1  # no new version
        assert await _current(uploads, "alice") == (good.id, uploads.build_dir(good))
        assert [row.id for row in await storage.builds("alice")] == [bad.id, good.id]

        await storage.revoke_bot("alice")
        assert await uploads.hosted() == {}  # a revoked account plays no more
    finally:
        await storage.close()


async def test_only_the_newest_builds_stay_on_disk(builds: Path, tmp_path: Path) -> None:
    storage = await _storage(tmp_path)
    source = tmp_path / "bot"
    source.write_text("#!/bin/sh\nexec sleep 1000\n")
    uploads = Uploads(storage, builds / "hosted-b")
    try:
        rows = [await uploads.upload("alice", source, "binary") for _ in range(KEEP_BUILDS + 1)]
        assert all(row.status == "ok" for row in rows)
        assert not uploads.build_dir(rows[0]).exists()
        assert all(uploads.build_dir(row).is_dir() for row in rows[1:])
        assert await _current(uploads, "alice") == (rows[-1].id, uploads.build_dir(rows[-1]))
    finally:
        await storage.close()


async def test_uploads_that_cannot_be_taken_are_refused(builds: Path, tmp_path: Path) -> None:
    storage = await _storage(tmp_path)
    uploads = Uploads(storage, builds / "hosted-c", queue=0,
                      upload_limits=UploadLimits(unpacked_bytes=1 << 20))
    try:
        with pytest.raises(UploadError, match="unknown language 'cobol'") as refused:
            await uploads.upload("alice", BOTS / "python", "cobol")
        assert refused.value.code == "upload-lang"
        assert refused.value.params == {"lang": "cobol", "known": ", ".join(LANGS)}
        with pytest.raises(UploadError, match="speaks lines or ws, not 'smoke'") as refused:
            await uploads.upload("alice", BOTS / "python", "python", speaks="smoke")
        assert (refused.value.code, refused.value.params) == ("upload-speaks", {"speaks": "smoke"})
        for name in ("nobody", "runner", "guest-1"):
            with pytest.raises(UploadError, match=f"no bot account '{name}'") as refused:
                await uploads.upload(name, BOTS / "python", "python")
            assert (refused.value.code, refused.value.params) == ("upload-no-account", {"bot": name})
        big = tmp_path / "big.zip"
        with zipfile.ZipFile(big, "w") as archive:
            archive.writestr("bot.py", "#" * (2 << 20), zipfile.ZIP_DEFLATED)
        too_big = await uploads.upload("alice", big, "python")
        assert too_big.status == "failed" and "refused" in (too_big.detail or "")
        assert "1 MiB" in (too_big.log or ""), too_big.log
        assert (too_big.detail_code, too_big.detail_params) == ("source-unpacked", {"mib": 1})
        bad = tmp_path / "bad.zip"
        bad.write_bytes(b"PK\x03\x04" + b"\0" * 40)
        broken = await uploads.upload("alice", bad, "python")
        assert broken.status == "failed" and "refused" in (broken.detail or "")
        assert broken.detail_code == "source-not-zip"

        slow = tmp_path / "slow"
        slow.write_text("#!/bin/sh\n")
        first = await uploads.start("alice", slow, "binary")  # holds the only place
        assert first.status == "building"
        with pytest.raises(BuildQueueFull, match="try again"):
            await uploads.upload("alice", slow, "binary")
        await uploads.wait()
        assert (await storage.build(first.id)).status == "ok"  # type: ignore[union-attr]
    finally:
        await storage.close()


def test_arena_bots_upload_builds_and_prints_the_log(builds: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    hosted = str(builds / "hosted-cli")
    runner = CliRunner()
    assert runner.invoke(main, ["bots", "add", "alice", "--db", db]).exit_code == 0
    ok = runner.invoke(main, ["bots", "upload", "alice", str(BOTS / "python"), "--lang", "python",
                              "--db", db, "--hosted-dir", hosted])
    assert ok.exit_code == 0, ok.output
    assert "now plays this python program" in ok.output
    failed = runner.invoke(main, ["bots", "upload", "alice", str(_broken_c(tmp_path)),
                                  "--lang", "c", "--db", db, "--hosted-dir", hosted])
    assert failed.exit_code == 1 and "undeclared" in failed.output
    assert "failed: the build failed (exit status 1)" in failed.output
    listed = runner.invoke(main, ["bots", "builds", "alice", "--db", db])
    lines = listed.output.splitlines()
    assert len(lines) == 2 and "failed" in lines[0] and " ok " in lines[1]
    log = runner.invoke(main, ["bots", "build-log", "alice", "--db", db])
    assert log.exit_code == 0 and "undeclared" in log.output
    unknown = runner.invoke(main, ["bots", "upload", "bob", str(BOTS / "python"),
                                   "--lang", "python", "--db", db, "--hosted-dir", hosted])
    assert unknown.exit_code == 2 and "no bot account 'bob'" in unknown.output
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("bot.py", (BOTS / "python" / "bot.py").read_text())
        zipped.writestr("moves.py", (BOTS / "python" / "moves.py").read_text())
    (tmp_path / "bot.zip").write_bytes(archive.getvalue())
    zipped_ok = runner.invoke(main, ["bots", "upload", "alice", str(tmp_path / "bot.zip"),
                                     "--lang", "python", "--db", db, "--hosted-dir", hosted])
    assert zipped_ok.exit_code == 0, zipped_ok.output


async def test_a_build_left_building_by_a_stopped_process_is_recorded_failed(
        builds: Path, tmp_path: Path) -> None:
    storage = await _storage(tmp_path)
    uploads = Uploads(storage, builds / "hosted-d")
    try:
        await storage.save_build(BuildRow("b-old", "alice", "python", "building", 1.0))
        await storage.save_build(BuildRow("b-new", "alice", "python", "building", 1e12))
        assert await uploads.recover(now=1e12) == ["b-old"]
        old = await storage.build("b-old")
        assert old is not None and old.status == "failed" and "stopped" in (old.detail or "")
        assert old.detail_code == "build-interrupted"
        assert (await storage.build("b-new")).status == "building"  # type: ignore[union-attr]
    finally:
        await storage.close()


async def test_a_hosted_directory_out_of_the_sandboxes_reach_is_refused(
        builds: Path, tmp_path: Path) -> None:
    storage = await _storage(tmp_path)
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    try:
        uploads = Uploads(storage, private / "hosted")
        with pytest.raises(UploadError, match=f"chmod o\\+x {private}"):
            await uploads.upload("alice", BOTS / "python", "python")
        assert await storage.builds("alice") == []  # refused before anything was recorded
    finally:
        await storage.close()


async def test_a_build_the_server_could_not_run_is_recorded_failed_by_code(
        builds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build that fails for the server's own reason (no sandbox, a full disk) is
    recorded failed with a code a page says (the server logged the error itself)."""
    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("No space left on device")

    monkeypatch.setattr("arena.uploads.build_bot", broken)
    storage = await _storage(tmp_path)
    uploads = Uploads(storage, builds / "hosted-e")
    try:
        with pytest.raises(OSError, match="No space left"):
            await uploads.upload("alice", BOTS / "python", "python")
        [row] = await storage.builds("alice")
        assert row.status == "failed" and "No space left" in (row.detail or "")
        assert (row.detail_code, row.detail_params) == ("build-server-error", None)
    finally:
        await storage.close()
