"""A bot's sources from a file, a directory or an archive (`arena.sandbox.unpack`): every
rule and limit, against archives made to break them."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.sandbox.spec import UploadLimits
from arena.sandbox.unpack import UnpackError, unpack_sources
from arena.storage.old_builds import old_detail


def tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as archive:  # type: ignore[call-overload]
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def member(name: str, data: bytes = b"x", kind: bytes = tarfile.REGTYPE, mode: int = 0o644,
           link: str = "", size: int | None = None) -> tuple[tarfile.TarInfo, bytes | None]:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    info.size = len(data) if size is None else size
    return info, data if kind == tarfile.REGTYPE else None


def zipped(path: Path, entries: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return path


def files(root: Path) -> dict[str, str]:
    found = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = Path(directory, name)
            found[str(path.relative_to(root))] = (
                "-> " + os.readlink(path) if path.is_symlink() else path.read_text())
    return found


def test_a_tar_gz_a_zip_and_a_directory_of_the_same_files_agree(tmp_path: Path) -> None:
    source = tmp_path / "dir"
    (source / "lib").mkdir(parents=True)
    (source / "bot.py").write_text("main")
    (source / "lib" / "util.py").write_text("util")
    (source / "link").symlink_to("lib/util.py")
    archive = tar(tmp_path / "a.tar.gz", [member("bot.py", b"main"), member("lib/", kind=tarfile.DIRTYPE),
                                          member("lib/util.py", b"util"),
                                          member("link", kind=tarfile.SYMTYPE, link="lib/util.py")])
    zip_file = zipped(tmp_path / "a.zip", {"bot.py": b"main", "lib/util.py": b"util"},
                      {"link": "lib/util.py"})
    results = [unpack_sources(path, tmp_path / f"out{i}")
               for i, path in enumerate((source, archive, zip_file))]
    assert len({result.sha256 for result in results}) == 1
    assert {result.entries for result in results} == {4}
    for result in results:
        assert files(result.root) == {"bot.py": "main", "lib/util.py": "util",
                                      "link": "-> lib/util.py"}


def test_a_single_file_keeps_its_name_and_modes_are_plain(tmp_path: Path) -> None:
    program = tmp_path / "bot"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o4777)  # setuid, world-writable
    result = unpack_sources(program, tmp_path / "out")
    assert stat.S_IMODE((result.root / "bot").stat().st_mode) == 0o755


@pytest.mark.parametrize(("members", "message", "code"), [
    ([member("../escape")], "'..' in a path", "source-dotdot"),
    ([member("a/../../escape")], "'..' in a path", "source-dotdot"),
    ([member("/etc/cron.d/x")], "an absolute path", "source-absolute"),
    ([member("link", kind=tarfile.SYMTYPE, link="/etc/shadow")], "only point inside", "source-link-out"),
    ([member("link", kind=tarfile.SYMTYPE, link="../../etc")], "out of the sources", "source-link-out"),
    ([member("d/link", kind=tarfile.SYMTYPE, link="../..")], "out of the sources", "source-link-out"),
    ([member("link", kind=tarfile.SYMTYPE, link="."), member("link/x")], "not a directory", "source-under-file"),
    ([member("hard", kind=tarfile.LNKTYPE, link="bot.py")], "hard links", "source-hard-link"),
    ([member("dev", kind=tarfile.CHRTYPE)], "devices", "source-special"),
    ([member("fifo", kind=tarfile.FIFOTYPE)], "devices", "source-special"),
    ([member("a"), member("a")], "appears twice", "source-twice"),
    ([member("a"), member("a/b")], "not a directory", "source-under-file"),
    ([member("x" * 300)], "longer than 255 bytes", "source-path-long"),
    ([member("/".join("d" * 20) + "/f")], "deeper than 16", "source-deep"),
])
def test_a_tar_that_breaks_a_rule_is_refused(tmp_path: Path, members: list, message: str,
                                             code: str) -> None:
    archive = tar(tmp_path / "bad.tar.gz", members)
    with pytest.raises(UnpackError, match=message) as refused:
        unpack_sources(archive, tmp_path / "out")
    assert refused.value.code == code  # a page says it in its language
    assert "name" in refused.value.params or code == "source-files"
    # a build stored before codes reads them back from its English (arena.storage.old_builds)
    assert old_detail(f"the sources are refused: {refused.value}") == (code, refused.value.params)
    assert not (tmp_path / "escape").exists()


def test_too_many_files_are_refused_before_the_limit_is_passed(tmp_path: Path) -> None:
    archive = tar(tmp_path / "many.tar", [member(f"f{i}") for i in range(21)], mode="w")
    with pytest.raises(UnpackError, match="more than 20 files") as refused:
        unpack_sources(archive, tmp_path / "out", UploadLimits(files=20))
    assert (refused.value.code, refused.value.params) == ("source-files", {"most": 20})
    assert len(list((tmp_path / "out").iterdir())) <= 20


def test_a_member_too_large_is_refused_before_its_data_is_written(tmp_path: Path) -> None:
    archive = tar(tmp_path / "big.tar.gz", [member("big", b"\0" * (2 << 20))])
    with pytest.raises(UnpackError, match="more than 1 MiB unpacked"):
        unpack_sources(archive, tmp_path / "out", UploadLimits(unpacked_bytes=1 << 20))
    assert not (tmp_path / "out" / "big").exists()


def test_a_gzip_bomb_stops_at_the_limit(tmp_path: Path) -> None:
    """A stream that unpacks to 1 GiB of headers-that-are-not (zeros after a pax record
    claiming a huge size) is not read past the limit."""
    bomb = tmp_path / "bomb.tar.gz"
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, 1 << 30
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        out.write(header.tobuf(format=tarfile.USTAR_FORMAT))
        zeros = b"\0" * (1 << 20)
        for _ in range(64):
            out.write(zeros)
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(UnpackError, match="more than its limit|not a readable tar"):
        unpack_sources(bomb, tmp_path / "out", UploadLimits(unpacked_bytes=1 << 20, files=10))


def test_an_archive_file_over_its_size_is_refused_unread(tmp_path: Path) -> None:
    archive = tmp_path / "big.zip"
    archive.write_bytes(b"\0" * (2 << 20))
    with pytest.raises(UnpackError, match="more than the 1 MiB"):
        unpack_sources(archive, tmp_path / "out", UploadLimits(archive_bytes=1 << 20))


@pytest.mark.parametrize(("entries", "links", "message", "code"), [
    ({"../x": b""}, {}, "'..' in a path", "source-dotdot"),
    ({"/x": b""}, {}, "an absolute path", "source-absolute"),
    ({}, {"link": "/etc/shadow"}, "only point inside", "source-link-out"),
    ({}, {"link": "../.."}, "out of the sources", "source-link-out"),
    ({f"f{i}": b"" for i in range(11)}, {}, "more than 10 files", "source-files"),
    ({"big": b"\0" * 4096}, {}, "more than 0 MiB unpacked", "source-unpacked"),
])
def test_a_zip_that_breaks_a_rule_is_refused(tmp_path: Path, entries: dict[str, bytes],
                                             links: dict[str, str], message: str, code: str) -> None:
    archive = zipped(tmp_path / "bad.zip", entries, links)
    with pytest.raises(UnpackError, match=message) as refused:
        unpack_sources(archive, tmp_path / "out", UploadLimits(files=10, unpacked_bytes=1024))
    assert refused.value.code == code
    assert old_detail(f"the sources are refused: {refused.value}") == (code, refused.value.params)


def test_a_zip_member_larger_than_it_says_is_cut_off(tmp_path: Path) -> None:
    archive = zipped(tmp_path / "liar.zip", {"bot.py": b"x" * 5000})
    data = bytearray(archive.read_bytes())
    for offset in (data.find(b"PK\x03\x04") + 22, data.find(b"PK\x01\x02") + 24):
        data[offset:offset + 4] = (10).to_bytes(4, "little")  # uncompressed size: 10
    archive.write_bytes(bytes(data))
    with pytest.raises(UnpackError, match="more than the 10 bytes|not a readable zip"):
        unpack_sources(archive, tmp_path / "out")


def test_a_directory_with_a_link_out_or_a_pipe_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "dir"
    source.mkdir()
    (source / "bot.py").write_text("")
    (source / "secrets").symlink_to("/etc")
    with pytest.raises(UnpackError, match="only point inside"):
        unpack_sources(source, tmp_path / "out")
    (source / "secrets").unlink()
    os.mkfifo(source / "pipe")
    with pytest.raises(UnpackError, match="pipes"):
        unpack_sources(source, tmp_path / "out2")


def test_garbage_named_like_an_archive_is_said_to_be_unreadable(tmp_path: Path) -> None:
    for name in ("x.zip", "x.tar.gz", "x.tar"):
        (tmp_path / name).write_bytes(b"not an archive at all" * 30)
        with pytest.raises(UnpackError, match="not a readable"):
            unpack_sources(tmp_path / name, tmp_path / f"out-{name}")
