"""Uploaded bots: sources built in the sandbox into the hosted directory, each build and
its log recorded in the database (``bot_builds``) for the bot's owner.

    HOSTED_DIR/NAME/BUILD_ID/    one build (`arena.sandbox.manifest`): run as ``hosted:``
    HOSTED_DIR/.incoming/        uploads being received over HTTP, removed once built

An upload (``arena bots upload NAME PATH --lang LANG``, or ``POST /api/bots/NAME/builds``)
is recorded ``building``, built by `arena.sandbox.build.build_bot` in a thread (never on
the event loop; `builds_at_once` at a time, at most `queue` more waiting, then
`BuildQueueFull`), and recorded ``ok`` or ``failed`` with its log. A bot's *current*
build is its newest ``ok`` one: that is what it plays with from its next game on
(`arena.server.hosted`). The last `KEEP_BUILDS` successful builds of a bot stay on
disk (a game still running the previous one keeps its files); older ones, and failed
builds' directories (their log is in the database), are removed.

`Uploads.new_version` is the one place where a successful build becomes a new version
of its bot: a person's bot (`arena.storage.people`) registers its next version there,
noted "build ID (LANG)", within its owner's versions a day (`versions_per_day`); an upload
that would go beyond them is refused before it is built (`VersionBudget`). The server
wires in there too (``on_new_version``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil
import stat
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from arena.errors import ArenaError
from arena.names import is_guest
from arena.sandbox.build import LANGS, BuildError, build_bot
from arena.sandbox.manifest import SPEAKS
from arena.sandbox.spec import BuildLimits, UploadLimits
from arena.storage.interface import BuildRow, Storage
from arena.storage.people import DAY, AccountLimit

__all__ = ["INCOMING", "KEEP_BUILDS", "LANGS", "SPEAKS", "VERSIONS_PER_DAY", "BuildQueueFull",
           "UploadError", "Uploads", "VersionBudget", "new_build_id"]

log = logging.getLogger("arena.uploads")

INCOMING = ".incoming"
"""The hosted directory's subdirectory for uploads being received."""
KEEP_BUILDS = 3
"""Successful builds kept on disk per bot (the current one and those before it)."""
VERSIONS_PER_DAY = 10
"""A person's versions a day when nobody says (`arena.config.AccountsConfig`'s default)."""

NewVersion = Callable[[BuildRow, Path], Awaitable[None]]


class UploadError(ArenaError, ValueError):
    """An upload refused before its build: unknown language, no such bot account (its
    `code` and `params` say it in a page's language)."""


class BuildQueueFull(UploadError):
    """Too many builds running and waiting; try again later."""


class VersionBudget(UploadError):
    """The bot's owner registered their versions of the day (with the builds under way,
    each of which would be one more)."""


def new_build_id() -> str:
    """A build's id: sortable by time, unguessable, safe as a directory name."""
    return f"{time.time_ns():x}{secrets.token_hex(4)}"


class Uploads:
    """The server's (or the command line's) side of uploads.

    Args:
        storage: where builds are recorded.
        directory: the hosted directory (made if missing).
        build_limits, upload_limits: the sandbox's bounds on a build and on sources.
        builds_at_once: builds run at the same time (each in a thread and a sandbox).
        queue: builds that may wait for their turn; more are `BuildQueueFull`.
        on_new_version: called with every successful build and its directory
            (`new_version`).
        versions_per_day: a person's versions in any 24 hours, of all their bots
            (`AccountsConfig.versions_per_day`): a successful build of a person's bot is
            one.
    """

    def __init__(self, storage: Storage, directory: str | os.PathLike[str], *,
                 build_limits: BuildLimits | None = None,
                 upload_limits: UploadLimits | None = None, builds_at_once: int = 1,
                 queue: int = 4, on_new_version: NewVersion | None = None,
                 versions_per_day: int = VERSIONS_PER_DAY) -> None:
        if builds_at_once < 1 or queue < 0:
            raise ValueError("builds_at_once must be at least 1 and queue at least 0")
        self.storage = storage
        self.directory = Path(directory).absolute()
        self.build_limits = build_limits or BuildLimits()
        self.upload_limits = upload_limits or UploadLimits()
        self.builds_at_once = builds_at_once
        self.queue = queue
        self.on_new_version = on_new_version
        self.versions_per_day = versions_per_day
        self._running = asyncio.Semaphore(builds_at_once)
        self._admitted = 0
        """Builds running or waiting."""
        self.tasks: set[asyncio.Task[BuildRow]] = set()
        """Builds started by `start` and not finished."""

    def check_reachable(self) -> None:
        """Make the hosted directory if missing, and refuse one the sandboxes' uids
        cannot reach (a builds directory under a private one, such as ``/root``).

        Raises:
            UploadError: naming the directory to open (``chmod o+x``).
        """
        self.directory.mkdir(mode=0o755, parents=True, exist_ok=True)
        for path in (self.directory, *self.directory.parents):
            if not path.stat().st_mode & stat.S_IXOTH:
                raise UploadError(
                    f"the hosted directory {self.directory} is out of the sandboxes' reach: "
                    f"{path} is closed to other users (chmod o+x {path}, or choose another "
                    "directory)", code="hosted-dir-closed", params={"directory": str(path)})

    @property
    def incoming(self) -> Path:
        """Where uploads being received are written (made if missing)."""
        path = self.directory / INCOMING
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return path

    def build_dir(self, build: BuildRow) -> Path:
        """The directory of `build` (a finished, successful one holds a build)."""
        return self.directory / build.bot / build.id

    async def check(self, bot: str, lang: str, speaks: str = "lines") -> None:
        """Refuse an upload before a byte of it is read.

        Raises:
            UploadError: an unknown language or `speaks`, or no active bot account `bot`.
            BuildQueueFull: no room for another build now.
            VersionBudget: the bot's owner has no version of the day left for it.
        """
        if lang not in LANGS:
            raise UploadError(f"unknown language {lang!r} (languages: {', '.join(LANGS)})",
                              code="upload-lang", params={"lang": lang, "known": ", ".join(LANGS)})
        if speaks not in SPEAKS:
            raise UploadError(f"a program speaks {' or '.join(SPEAKS)}, not {speaks!r} "
                              "(ws: a WebSocket bot such as the starter kits)",
                              code="upload-speaks", params={"speaks": speaks})
        account = None if is_guest(bot) else next(
            (account for account in await self.storage.bots() if account.name == bot), None)
        if account is None or account.operator or bot not in await self.storage.token_hashes(
                [bot]):
            raise UploadError(f"no bot account {bot!r} to upload for ('arena bots add "
                              f"{bot}' makes one; guests and operators host no bot)",
                              code="upload-no-account", params={"bot": bot})
        if self._admitted >= self.builds_at_once + self.queue:
            raise BuildQueueFull(f"{self._admitted} builds are running or waiting; "
                                 "try again in a minute")
        if account.owner is not None:
            await self._check_versions(account.owner)

    async def _check_versions(self, owner: str) -> None:
        """Refuse a build of `owner`'s bot that would be a version beyond their day's."""
        since = time.time() - DAY
        spent = 0
        for owned in await self.storage.owned_bots(owner):
            spent += sum(1 for version in await self.storage.bot_versions(owned.name)
                         if version.version > 1 and version.created > since)
            spent += len(await self.storage.builds(owned.name, status="building",
                                                   limit=self.versions_per_day + 1))
        if spent >= self.versions_per_day:
            raise VersionBudget(
                f"{owner} registered {self.versions_per_day} versions (or builds under way) "
                f"in the last 24 hours, the most a day: each build that succeeds is a new "
                "version; try again tomorrow", code="versions-limit",
                params={"most": self.versions_per_day})

    async def upload(self, bot: str, source: str | os.PathLike[str], lang: str, *,
                     remove_source: bool = False, speaks: str = "lines") -> BuildRow:
        """Build `source` (a file, a directory or an archive) for `bot` and record it;
        the finished row (``ok``, or ``failed`` with its `BuildRow.detail` and log).
        `speaks` (`SPEAKS`) is how the program talks to the server, kept with the build.

        Raises:
            UploadError, BuildQueueFull: refused before building (`check`), or the
                hosted directory is out of the sandboxes' reach (`check_reachable`).
            SandboxUnavailable: this machine cannot build in a sandbox.
        """
        await asyncio.to_thread(self.check_reachable)
        return await self._finish(await self._begin(bot, lang, speaks), source, remove_source)

    async def start(self, bot: str, source: str | os.PathLike[str], lang: str, *,
                    remove_source: bool = False, speaks: str = "lines") -> BuildRow:
        """`upload` in a task of its own: the ``building`` row at once (the finished
        one is read back by its id)."""
        row = await self._begin(bot, lang, speaks)
        task = asyncio.get_running_loop().create_task(
            self._finish(row, source, remove_source), name=f"build {row.id}")
        self.tasks.add(task)
        task.add_done_callback(self._started_done)
        return row

    def _started_done(self, task: asyncio.Task[BuildRow]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("build failed: %s", task.exception())  # recorded as failed already

    async def _begin(self, bot: str, lang: str, speaks: str) -> BuildRow:
        await self.check(bot, lang, speaks)
        row = BuildRow(new_build_id(), bot, lang, "building", time.time(), speaks=speaks)
        await self.storage.save_build(row)
        self._admitted += 1
        return row

    async def _finish(self, row: BuildRow, source: str | os.PathLike[str],
                      remove_source: bool) -> BuildRow:
        try:
            async with self._running:
                out = self.build_dir(row)
                try:
                    result = await asyncio.to_thread(
                        build_bot, source, row.lang, out, limits=self.build_limits,
                        upload=self.upload_limits, speaks=row.speaks)
                except BuildError as error:
                    shutil.rmtree(out, ignore_errors=True)
                    row = replace(row, status="failed", finished=time.time(),
                                  detail=str(error), log=error.log or str(error),
                                  detail_code=error.code, detail_params=error.params)
                except Exception as error:  # the sandbox is missing, a disk is full...
                    shutil.rmtree(out, ignore_errors=True)
                    log.exception("build %s of %s failed", row.id, row.bot)
                    row = replace(row, status="failed", finished=time.time(),
                                  detail=f"the server could not build it: {error}",
                                  log=f"the server could not build it: {error}\n",
                                  detail_code="build-server-error")
                    await self.storage.save_build(row)
                    raise
                else:
                    row = replace(row, status="ok", finished=time.time(),
                                  sha256=result.sources.sha256, log=result.log)
            await self.storage.save_build(row)
        finally:
            self._admitted -= 1
            if remove_source:
                path = Path(source).absolute()
                if path.parent.parent == self.directory / INCOMING:
                    path = path.parent  # received into a folder of its own
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        if row.status == "ok":
            await self.new_version(row)
        return row

    async def recover(self, now: float | None = None) -> list[str]:
        """Record as failed the builds left ``building`` by a process that stopped
        during them (older than any build could take with its wait); their ids."""
        now = time.time() if now is None else now
        oldest = now - self.build_limits.wall_seconds * (self.queue + 2) - 60
        stale = [row for row in await self.storage.builds(status="building", limit=10_000)
                 if row.created < oldest]
        for row in stale:
            detail = "the server stopped during the build: upload it again"
            await self.storage.save_build(replace(row, status="failed", finished=now,
                                                  detail=detail, log=detail + "\n",
                                                  detail_code="build-interrupted"))
            await asyncio.to_thread(shutil.rmtree, self.build_dir(row), True)
        return [row.id for row in stale]

    async def new_version(self, build: BuildRow) -> None:
        """A successful build becomes its bot's current one and, for a person's bot, its
        next version (noted "build ID (LANG)"); older builds are pruned, then
        `on_new_version` is told."""
        await asyncio.to_thread(self._prune, build.bot)
        owner = next((account.owner for account in await self.storage.bots()
                      if account.name == build.bot), None)
        if owner is not None:
            try:
                await self.storage.add_version(owner, build.bot,
                                               f"build {build.id} ({build.lang})",
                                               per_day=self.versions_per_day)
            except (AccountLimit, ValueError) as error:  # checked before; a race, a revoke
                log.warning("build %s of %s is no new version: %s", build.id, build.bot,
                            error)
        if self.on_new_version is not None:
            await self.on_new_version(build, self.build_dir(build))

    def _prune(self, bot: str) -> None:
        """Keep the newest `KEEP_BUILDS` builds of `bot` on disk (ids sort by time)."""
        root = self.directory / bot
        if not root.is_dir():
            return
        builds = sorted((path for path in root.iterdir()
                         if path.is_dir() and not path.name.startswith(".")), reverse=True)
        for path in builds[KEEP_BUILDS:]:
            shutil.rmtree(path, ignore_errors=True)

    async def current(self, bot: str) -> tuple[BuildRow, Path] | None:
        """`bot`'s current build (its newest successful one still on disk), if any."""
        for row in await self.storage.builds(bot, status="ok", limit=KEEP_BUILDS):
            path = self.build_dir(row)
            if path.is_dir():
                return row, path
        return None

    async def hosted(self) -> dict[str, Path]:
        """Every active bot account with a current build: name -> its build."""
        return {name: path for name, (path, _) in (await self.hosted_builds()).items()}

    async def hosted_builds(self) -> dict[str, tuple[Path, str]]:
        """Every active bot account with a current build: name -> its build and what it
        speaks (read every few seconds by the server: it lists no other account)."""
        rows = await self.storage.builds(status="ok", limit=100_000)
        names = sorted({row.bot for row in rows})
        active = await self.storage.token_hashes(names)  # not revoked, not expired
        found: dict[str, tuple[Path, str]] = {}
        for row in rows:  # newest first
            if row.bot in active and row.bot not in found:
                path = self.build_dir(row)
                if path.is_dir():
                    found[row.bot] = (path, row.speaks)
        return found

    async def wait(self) -> None:
        """Wait for the builds `start` began (at shutdown)."""
        if self.tasks:
            await asyncio.wait(list(self.tasks))
