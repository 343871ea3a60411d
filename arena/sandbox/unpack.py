"""A bot's sources, from a file, a directory or an archive, into a fresh directory --
within `UploadLimits`, checked before each byte is written.

Whatever the form, every entry goes through the same checks (`_Tree.add`): a relative
path without ``..``, not too long nor too deep, not twice, not under a symbolic link or a
file; a symbolic link only if it is relative and stays inside the sources; no hard
links, devices, pipes or sockets; the count of entries and the bytes of their contents
within the limits (an archive's declared sizes are checked before its data is read, and
the data is cut off if it claims less than it has). Files get plain modes (``0644``, or
``0755`` if executable at all): no setuid, nothing writable by others.

Archives: zip, and tar (plain, gzip, bzip2, xz), recognised by their content. The
decompressed stream is bounded too, so no header of a tar (a pax or long-name record
claiming gigabytes) can make this process read more than the limits allow.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import lzma
import os
import posixpath
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.errors import ArenaError
from arena.sandbox.spec import UploadLimits

__all__ = ["SourceTree", "UnpackError", "shown_name", "unpack_sources"]

CHUNK = 65536
MAX_LINK = 1024
"""Longest symbolic link target accepted (bytes)."""


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class UnpackError(ArenaError, ValueError):
    """Sources that cannot be taken: the message names the entry and the rule; its
    `code` and `params` (the entry's name, the limit) say it in a page's language."""


def shown_name(name: str) -> str:
    """An entry's name as a refusal's params give it: printable, at most 80 characters."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= 80 else text[:79] + "…"


@dataclass(frozen=True)
class SourceTree:
    """What was unpacked: where, how many entries and bytes, and a digest of it all
    (names, kinds, executable bits, contents, link targets) that does not depend on the
    archive's form or order."""

    root: Path
    entries: int
    bytes: int
    sha256: str


class _Tree:
    """The destination and the running checks."""

    def __init__(self, root: Path, limits: UploadLimits) -> None:
        self.root = root
        self.limits = limits
        self.kinds: dict[str, str] = {}
        self.bytes = 0
        self.digests: dict[str, str] = {}

    def _name(self, raw: str) -> str:
        if "\0" in raw:
            raise UnpackError(f"{raw!r}: a NUL in a file name", code="source-nul",
                              params={"name": shown_name(raw)})
        if raw.startswith("/"):
            raise UnpackError(f"{raw!r}: an absolute path", code="source-absolute",
                              params={"name": shown_name(raw)})
        parts = [part for part in raw.split("/") if part not in ("", ".")]
        if ".." in parts:
            raise UnpackError(f"{raw!r}: '..' in a path", code="source-dotdot",
                              params={"name": shown_name(raw)})
        if not parts:
            return ""
        name = "/".join(parts)
        if len(name.encode("utf-8", "surrogateescape")) > self.limits.path_bytes:
            raise UnpackError(f"{name[:80]!r}...: a path longer than "
                              f"{self.limits.path_bytes} bytes", code="source-path-long",
                              params={"name": shown_name(name), "most": self.limits.path_bytes})
        if len(parts) > self.limits.depth:
            raise UnpackError(f"{name!r}: nested deeper than {self.limits.depth} directories",
                              code="source-deep",
                              params={"name": shown_name(name), "most": self.limits.depth})
        return name

    def _check(self, raw: str, kind: str, size: int = 0) -> str | None:
        """The entry's clean name (None: the top directory itself)."""
        name = self._name(raw)
        if not name:
            if kind != "dir":
                raise UnpackError(f"{raw!r}: not a file name", code="source-not-a-name",
                                  params={"name": shown_name(raw)})
            return None
        if name in self.kinds:
            if kind == "dir" and self.kinds[name] == "dir":
                return None
            raise UnpackError(f"{name!r} appears twice", code="source-twice",
                              params={"name": shown_name(name)})
        parent = posixpath.dirname(name)
        while parent:
            if self.kinds.get(parent, "dir") != "dir":
                raise UnpackError(f"{name!r} is under {parent!r}, which is not a directory",
                                  code="source-under-file",
                                  params={"name": shown_name(name), "parent": shown_name(parent)})
            parent = posixpath.dirname(parent)
        if len(self.kinds) + 1 > self.limits.files:
            raise UnpackError(f"more than {self.limits.files} files and directories",
                              code="source-files", params={"most": self.limits.files})
        if self.bytes + size > self.limits.unpacked_bytes:
            raise UnpackError(f"{name!r}: the files come to more than "
                              f"{self.limits.unpacked_bytes // 2**20} MiB unpacked",
                              code="source-unpacked",
                              params={"mib": self.limits.unpacked_bytes // 2**20})
        return name

    def _parents(self, name: str) -> None:
        parent = posixpath.dirname(name)
        missing = []
        while parent and parent not in self.kinds:
            missing.append(parent)
            parent = posixpath.dirname(parent)
        for directory in reversed(missing):
            self.add_dir(directory)

    def add_dir(self, raw: str) -> None:
        name = self._check(raw, "dir")
        if name is None:
            return
        self._parents(name)
        (self.root / name).mkdir(mode=0o755)
        self.kinds[name] = "dir"

    def add_file(self, raw: str, size: int, data: _Readable, executable: bool) -> None:
        name = self._check(raw, "file", size)
        if name is None:
            return
        self._parents(name)
        self.kinds[name] = "file"
        digest = hashlib.sha256()
        written = 0
        mode = 0o755 if executable else 0o644
        handle = os.open(self.root / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                         | os.O_CLOEXEC, mode)
        with os.fdopen(handle, "wb") as out:
            while chunk := data.read(min(CHUNK, size - written + 1)):
                written += len(chunk)
                if written > size:
                    raise UnpackError(f"{name!r} holds more than the {size} bytes it declares",
                                      code="source-size-wrong",
                                      params={"name": shown_name(name), "size": size})
                digest.update(chunk)
                out.write(chunk)
        if written != size:
            raise UnpackError(f"{name!r} holds {written} bytes, not the {size} it declares",
                              code="source-size-wrong",
                              params={"name": shown_name(name), "size": size})
        os.chmod(self.root / name, mode)
        self.bytes += size
        self.digests[name] = ("x" if executable else "f") + digest.hexdigest()

    def add_link(self, raw: str, target: str) -> None:
        name = self._check(raw, "link")
        if name is None:
            return
        if not target or target.startswith("/") or "\0" in target or len(target) > MAX_LINK:
            raise UnpackError(f"{name!r}: a symbolic link may only point inside the sources "
                              f"(to a relative path), not to {target[:80]!r}",
                              code="source-link-out",
                              params={"name": shown_name(name), "target": shown_name(target)})
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        if resolved == ".." or resolved.startswith("../"):
            raise UnpackError(f"{name!r}: a symbolic link out of the sources ({target!r})",
                              code="source-link-out",
                              params={"name": shown_name(name), "target": shown_name(target)})
        self._parents(name)
        os.symlink(target, self.root / name)
        self.kinds[name] = "link"
        self.digests[name] = "l" + target

    def result(self) -> SourceTree:
        digest = hashlib.sha256()
        for name in sorted(self.kinds):
            digest.update(f"{name}\0{self.kinds[name]}\0{self.digests.get(name, '')}\n"
                          .encode("utf-8", "surrogateescape"))
        return SourceTree(self.root, len(self.kinds), self.bytes, digest.hexdigest())


class _Bounded(io.RawIOBase):
    """A stream that fails (`UnpackError`) rather than give more than `limit` bytes, or
    before a single read asks for more than that."""

    def __init__(self, stream: _Readable, limit: int) -> None:
        self._stream = stream
        self._left = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if len(buffer) > self._left + 1:
            buffer = memoryview(buffer)[:self._left + 1]
        data = self._stream.read(len(buffer))
        self._left -= len(data)
        if self._left < 0:
            raise UnpackError("the archive unpacks to more than its limit",
                              code="source-archive-limit")
        buffer[:len(data)] = data
        return len(data)


def _decompressed(raw: io.BufferedReader) -> _Readable:
    magic = raw.read(6)
    raw.seek(0)
    if magic.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if magic.startswith(b"BZh"):
        return bz2.BZ2File(raw)
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile(raw)
    return raw


def _unpack_tar(path: Path, tree: _Tree) -> None:
    limit = tree.limits.unpacked_bytes + (tree.limits.files + 2) * 4 * tarfile.BLOCKSIZE
    with open(path, "rb") as raw:
        stream = io.BufferedReader(_Bounded(_decompressed(raw), limit), CHUNK)
        try:
            with tarfile.open(fileobj=stream, mode="r|") as archive:
                for member in archive:
                    _tar_member(archive, member, tree)
        except (tarfile.TarError, EOFError, OSError, lzma.LZMAError) as error:
            raise UnpackError(f"not a readable tar archive: {error}",
                              code="source-not-tar") from None


def _tar_member(archive: tarfile.TarFile, member: tarfile.TarInfo, tree: _Tree) -> None:
    if member.isdir():
        tree.add_dir(member.name)
    elif member.isreg():
        data = archive.extractfile(member)
        assert data is not None
        tree.add_file(member.name, member.size, data, bool(member.mode & 0o111))
    elif member.issym():
        tree.add_link(member.name, member.linkname)
    elif member.islnk():
        raise UnpackError(f"{member.name!r}: hard links are not taken (use a copy or a "
                          "relative symbolic link)", code="source-hard-link",
                          params={"name": shown_name(member.name)})
    else:
        raise UnpackError(f"{member.name!r}: devices, pipes and sockets are not taken",
                          code="source-special", params={"name": shown_name(member.name)})


def _unpack_zip(path: Path, tree: _Tree) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
            if len(entries) > tree.limits.files:
                raise UnpackError(f"more than {tree.limits.files} files and directories",
                                  code="source-files", params={"most": tree.limits.files})
            declared = sum(entry.file_size for entry in entries)
            if declared > tree.limits.unpacked_bytes:
                raise UnpackError(f"the files come to more than "
                                  f"{tree.limits.unpacked_bytes // 2**20} MiB unpacked",
                                  code="source-unpacked",
                                  params={"mib": tree.limits.unpacked_bytes // 2**20})
            for entry in entries:
                mode = entry.external_attr >> 16
                if entry.is_dir():
                    tree.add_dir(entry.filename)
                elif stat.S_ISLNK(mode):
                    if entry.file_size > MAX_LINK:
                        raise UnpackError(f"{entry.filename!r}: a symbolic link too long",
                                          code="source-link-long",
                                          params={"name": shown_name(entry.filename)})
                    with archive.open(entry) as data:
                        target = data.read(MAX_LINK + 1).decode("utf-8", "surrogateescape")
                    tree.add_link(entry.filename, target)
                elif stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: no type given
                    raise UnpackError(f"{entry.filename!r}: devices, pipes and sockets are "
                                      "not taken", code="source-special",
                                      params={"name": shown_name(entry.filename)})
                else:
                    with archive.open(entry) as data:
                        tree.add_file(entry.filename, entry.file_size, data,
                                      bool(mode & 0o111))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError,
            RuntimeError, OSError) as error:
        raise UnpackError(f"not a readable zip archive: {error}",
                          code="source-not-zip") from None


def _walk(directory: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry under `directory` (relative name, entry), never following a link."""
    stack = [""]
    while stack:
        relative = stack.pop()
        with os.scandir(directory / relative if relative else directory) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                name = f"{relative}/{entry.name}" if relative else entry.name
                yield name, entry
                if entry.is_dir(follow_symlinks=False):
                    stack.append(name)


def _copy_directory(directory: Path, tree: _Tree) -> None:
    for name, entry in _walk(directory):
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            tree.add_dir(name)
        elif stat.S_ISLNK(info.st_mode):
            tree.add_link(name, os.readlink(entry.path))
        elif stat.S_ISREG(info.st_mode):
            with open(entry.path, "rb") as data:
                tree.add_file(name, info.st_size, data, bool(info.st_mode & 0o111))
        else:
            raise UnpackError(f"{name!r}: devices, pipes and sockets are not taken",
                              code="source-special", params={"name": shown_name(name)})


ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
"""File names taken as archives (their content must then be one)."""


def unpack_sources(source: str | os.PathLike[str], destination: Path,
                   limits: UploadLimits | None = None) -> SourceTree:
    """Put a bot's sources -- a directory, an archive (`ARCHIVE_SUFFIXES`) or a single
    file -- into `destination` (made here; it must not exist).

    Raises:
        UnpackError: the sources break a rule or a limit (`destination` is then left
            partly filled: the caller removes it).
        FileNotFoundError: `source` does not exist.
    """
    limits = limits or UploadLimits()
    path = Path(source)
    info = path.stat()
    destination.mkdir(mode=0o755)
    tree = _Tree(destination, limits)
    if stat.S_ISDIR(info.st_mode):
        _copy_directory(path, tree)
    elif not stat.S_ISREG(info.st_mode):
        raise UnpackError(f"{path}: neither a file nor a directory", code="source-special",
                          params={"name": shown_name(path.name)})
    elif info.st_size > limits.archive_bytes:
        raise UnpackError(f"{path.name}: {info.st_size // 2**20} MiB, more than the "
                          f"{limits.archive_bytes // 2**20} MiB a bot's file may have",
                          code="source-too-large", params={"mib": limits.archive_bytes // 2**20})
    elif path.name.lower().endswith(".zip"):
        _unpack_zip(path, tree)
    elif path.name.lower().endswith(ARCHIVE_SUFFIXES):
        _unpack_tar(path, tree)
    else:
        with open(path, "rb") as data:
            tree.add_file(path.name, info.st_size, data, bool(info.st_mode & 0o111))
    if not tree.kinds:
        raise UnpackError(f"{path.name}: no files in it", code="source-empty")
    return tree.result()
