"""Building a bot: its sources (`arena.sandbox.unpack`) compiled in the sandbox by the
recipe of its language, into a build directory (`arena.sandbox.manifest`) with its log.

The build runs in the same sandbox as a bot (no network, nothing of the host's but the
read-only system and the sources), under `BuildLimits`: the sources are copied into its
``/tmp`` (a tmpfs of bounded size), the recipe's commands run there, and the result
leaves the sandbox as a tar stream on the program's standard output -- the build never
sees a writable host path. That stream is unpacked with the same checks as an upload.
The build log is the recipe's standard output and error (each command echoed), kept
within `BuildLimits.log_bytes`.

Recipes (`RECIPES`; the entry is found before the build starts, `find_entry`):

=======  =====================================  ===============================================
lang     entry                                  build, then run
=======  =====================================  ===============================================
python   ``bot.py``, or the only ``*.py``       byte-compile; ``python3 ENTRY``
c        every ``*.c``                          ``cc -O2 -std=gnu17 ... -lm``; the program
cpp      every ``*.cpp``/``*.cc``/``*.cxx``     ``c++ -O2 -std=gnu++17 ... -lm``; the program
js       ``bot.js``/``bot.mjs``, or the only    ``node --check``; ``node ENTRY``
         ``*.js``/``*.mjs``
go       the package at the top                 ``go build`` (modules with no network: the
                                                standard library or ``vendor/``; without
                                                ``go.mod``, GOPATH mode with Debian's
                                                packaged libraries); the program
java     ``Bot.java``, or the only ``*.java``   ``javac`` every ``*.java``; ``java`` the class
binary   ``bot``, or the only file              checked to be a program (ELF or ``#!``)
=======  =====================================  ===============================================
"""

from __future__ import annotations

import contextlib
import datetime
import os
import selectors
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError
from arena.sandbox.command import Bind
from arena.sandbox.manifest import (
    FILES,
    HEAP,
    LOG,
    MANIFEST,
    SPEAKS,
    BuiltBot,
    NotABuild,
    load_build,
)
from arena.sandbox.process import SandboxedProcess
from arena.sandbox.spec import BuildLimits, MiB, SandboxSpec, UploadLimits
from arena.sandbox.unpack import SourceTree, UnpackError, unpack_sources

__all__ = ["LANGS", "RECIPES", "BuildError", "BuildResult", "Recipe", "build_bot", "find_entry"]

class BuildError(ArenaError):
    """A build that failed: `log` is what its owner needs to read; `code` and `params`
    say why in a page's language (the refused sources' own code, an `UnpackError`'s)."""

    def __init__(self, message: str, log: str = "", *, code: str | None = None,
                 params: dict[str, str | int] | None = None) -> None:
        super().__init__(message, code=code, params=params)
        self.log = log


@dataclass(frozen=True)
class Recipe:
    """How one language is built and run.

    `script` is shell, run in the sandbox in the copy of the sources (each command
    echoed into the log); `command` runs the bot from ``/bot``. Both may name the entry
    (``{entry}``, a file name at the top; quoted for the shell), `command` its stem
    (``{stem}``, a Java class) and the heap it may use (`HEAP`).
    """

    lang: str
    script: str
    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    build_env: Mapping[str, str] = field(default_factory=dict)


_FIND_C = "find . -name '*.c' -type f"
_FIND_CPP = "find . \\( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' \\) -type f"

RECIPES: dict[str, Recipe] = {recipe.lang: recipe for recipe in (
    Recipe("python", "python3 -m compileall -q --invalidation-mode unchecked-hash .",
           ("/usr/bin/python3", "{entry}"), {"PYTHONDONTWRITEBYTECODE": "1"}),
    Recipe("c", f"cc -O2 -std=gnu17 -o .arena/bot $({_FIND_C}) -lm", ("/bot/.arena/bot",)),
    Recipe("cpp", f"c++ -O2 -std=gnu++17 -o .arena/bot $({_FIND_CPP}) -lm",
           ("/bot/.arena/bot",)),
    Recipe("js", "node --check {entry}",
           ("/usr/bin/node", f"--max-old-space-size={HEAP}", "{entry}")),
    Recipe("go", "if [ -f go.mod ]; then GO111MODULE=on go build -o .arena/bot .; "
                 "else GO111MODULE=off go build -o .arena/bot .; fi",
           ("/bot/.arena/bot",), {"GOMEMLIMIT": f"{HEAP}MiB"},
           {"GOPROXY": "off", "GOFLAGS": "-buildvcs=false", "GOTOOLCHAIN": "local",
            "GOPATH": "/usr/share/gocode", "GOCACHE": "/tmp/.cache/go-build"}),
    Recipe("java", "javac -J-Xmx512m -J-XX:+UseSerialGC -proc:none -encoding UTF-8 "
                   "-d .arena/classes $(find . -name '*.java' -type f)",
           ("/usr/bin/java", f"-Xmx{HEAP}m", "-XX:+UseSerialGC", "-XX:ActiveProcessorCount=1",
            "-XX:CompressedClassSpaceSize=64m", "-XX:ReservedCodeCacheSize=64m",
            "-Xshare:auto", "-cp", "/bot/.arena/classes", "{stem}")),
    Recipe("binary", "chmod +x {entry}", ("/bot/{entry}",)),
)}
LANGS = tuple(RECIPES)

_ENTRY = {
    "python": (("bot.py",), (".py",)),
    "js": (("bot.js", "bot.mjs"), (".js", ".mjs")),
    "java": (("Bot.java",), (".java",)),
    "binary": (("bot",), ("",)),
}
_SOURCES = {"c": (".c",), "cpp": (".cpp", ".cc", ".cxx"), "go": (".go",)}


def find_entry(root: Path, lang: str) -> str:
    """The entry of the sources in `root` for `lang` (see the module's table).

    Raises:
        BuildError: none, or no single one.
    """
    if lang not in RECIPES:
        raise BuildError(f"unknown language {lang!r} (languages: {', '.join(LANGS)})",
                         code="upload-lang", params={"lang": lang, "known": ", ".join(LANGS)})
    top = sorted(path.name for path in root.iterdir()
                 if path.is_file() and not path.is_symlink())
    if lang in _SOURCES:
        suffixes = _SOURCES[lang]
        found = any(name.endswith(suffixes) for _, _, names in os.walk(root) for name in names)
        if lang == "go":
            found = any(name.endswith(".go") for name in top)
        if not found:
            raise BuildError(f"no {' or '.join('*' + s for s in suffixes)} file in the sources"
                             + (" (at the top)" if lang == "go" else ""),
                             code="no-source-file",
                             params={"files": ", ".join("*" + s for s in suffixes)})
        return ""
    names, suffixes = _ENTRY[lang]
    for name in names:
        if name in top:
            return name
    candidates = [name for name in top if name.endswith(suffixes)] if suffixes != ("",) \
        else top
    if len(candidates) == 1:
        if lang == "java" and not candidates[0][:-len(".java")].isidentifier():
            raise BuildError(f"{candidates[0]}: not the name of a Java class",
                             code="not-a-java-class", params={"name": candidates[0]})
        return candidates[0]
    wanted = " or ".join(names)
    if not candidates:
        raise BuildError(f"no {wanted} at the top of the sources", code="no-entry",
                         params={"wanted": wanted})
    raise BuildError(f"no {wanted}, and {len(candidates)} candidates at the top of the "
                     f"sources ({', '.join(candidates[:5])}): name the entry {names[0]}",
                     code="entry-ambiguous",
                     params={"wanted": wanted, "count": len(candidates), "entry": names[0],
                             "candidates": ", ".join(candidates[:5])})


def _check_program(path: Path) -> None:
    with open(path, "rb") as handle:
        head = handle.read(4)
    if head != b"\x7fELF" and not head.startswith(b"#!"):
        raise BuildError(f"{path.name} is not a program: neither an ELF executable nor a "
                         "script starting with '#!'", code="not-a-program",
                         params={"name": path.name})


BUILD_SCRIPT = """set -e
exec 3>&1 1>&2
cp -R -P /src/. /tmp/bot
chmod -R u+w /tmp/bot
cd /tmp/bot
mkdir -p .arena
set -x
{script}
{ set +x; } 2>/dev/null
tar --create --file=- --numeric-owner --owner=0 --group=0 --exclude=./.cache . >&3
"""
"""The script the sandbox runs: the log is standard error (and output); the result, a
tar stream, goes on the original standard output (descriptor 3 meanwhile)."""


class _Log:
    """The first and last halves of `limit` bytes of a stream, and how much was cut."""

    def __init__(self, limit: int) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.half = limit // 2
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            del self.tail[:max(0, len(self.tail) - self.half)]

    def text(self) -> str:
        cut = self.total - len(self.head) - len(self.tail)
        middle = f"\n[... {cut} bytes of the log cut ...]\n".encode() if cut else b""
        return bytes(self.head + middle + self.tail).decode("utf-8", "replace")


@dataclass(frozen=True)
class BuildResult:
    """A finished build and its log."""

    bot: BuiltBot
    log: str
    sources: SourceTree


def _build_spec(limits: BuildLimits) -> SandboxSpec:
    return SandboxSpec(memory_bytes=limits.memory_bytes, processes=limits.processes,
                       cpus=limits.cpus, cpu_seconds=limits.wall_seconds,
                       file_size_bytes=limits.tmp_bytes, open_files=1024,
                       tmp_bytes=limits.tmp_bytes)


def _run(sources: Path, recipe: Recipe, entry: str, limits: BuildLimits,
         result: Path, now: Callable[[], float] = time.monotonic) -> tuple[str, BuildError | None]:
    """Run the build in the sandbox; the tar stream goes to `result`. Returns the log
    and why it failed (None: it succeeded)."""
    script = BUILD_SCRIPT.replace("{script}", recipe.script.replace(
        "{entry}", shlex.quote(entry)))
    sandbox = SandboxedProcess.start(["/bin/sh", "-c", script], spec=_build_spec(limits),
                                     binds=(Bind(str(sources), "/src"),), cwd="/tmp",
                                     env=recipe.build_env, stdin=subprocess.DEVNULL)
    log = _Log(limits.log_bytes)
    failure: BuildError | None = None
    overtime = BuildError(f"the build took more than {limits.wall_seconds} s",
                          code="build-overtime", params={"seconds": limits.wall_seconds})
    deadline = now() + limits.wall_seconds
    process = sandbox.popen
    assert process.stdout is not None and process.stderr is not None
    streams = {process.stdout.fileno(): "out", process.stderr.fileno(): "log"}
    written = 0
    try:
        with open(result, "wb") as out, selectors.DefaultSelector() as selector:
            for fd in streams:
                os.set_blocking(fd, False)
                selector.register(fd, selectors.EVENT_READ)
            while streams and failure is None:
                left = deadline - now()
                if left <= 0:
                    failure = overtime
                    break
                for key, _ in selector.select(left):
                    try:
                        chunk = os.read(key.fd, 65536)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        selector.unregister(key.fd)
                        del streams[key.fd]
                    elif streams[key.fd] == "log":
                        log.add(chunk)
                    else:
                        written += len(chunk)
                        if written > limits.output_bytes:
                            failure = BuildError(
                                f"the build's result is larger than "
                                f"{limits.output_bytes // MiB} MiB", code="build-result-large",
                                params={"mib": limits.output_bytes // MiB})
                            break
                        out.write(chunk)
            status = None
            if failure is None:
                try:
                    status = process.wait(max(0.0, deadline - now()))
                except subprocess.TimeoutExpired:
                    failure = overtime
            if status and failure is None:
                hit = sandbox.limits_hit()
                code = sandbox.exit_status(status) or 0
                said = (f"the build failed (killed by signal {-code})" if code < 0
                        else f"the build failed (exit status {code})")
                if "memory" in hit:
                    failure = BuildError(
                        f"{said}: it reached its memory limit ({limits.memory_bytes // MiB} MiB)",
                        code="build-memory", params={"mib": limits.memory_bytes // MiB})
                elif "processes" in hit:
                    failure = BuildError(
                        f"{said}: it reached its limit of {limits.processes} processes",
                        code="build-processes", params={"most": limits.processes})
                elif code < 0:
                    failure = BuildError(said, code="build-killed", params={"signal": -code})
                else:
                    failure = BuildError(said, code="build-exit", params={"status": code})
    finally:
        sandbox.kill()
    return log.text(), failure


def _replaceable(out: Path) -> None:
    """Refuse to replace anything at `out` but an empty directory or an earlier build."""
    if not out.exists() and not out.is_symlink():
        return
    if out.is_dir() and not out.is_symlink():
        if not any(out.iterdir()):
            return
        with contextlib.suppress(NotABuild):
            load_build(out)
            return
        if (out / MANIFEST).exists() or (out / LOG).exists():
            return  # a failed build's directory
    raise BuildError(f"{out} exists and is not an earlier build: give a new directory",
                     code="build-directory-taken", params={"directory": str(out)})


def build_bot(source: str | os.PathLike[str], lang: str, out: str | os.PathLike[str], *,
              limits: BuildLimits | None = None,
              upload: UploadLimits | None = None, speaks: str = "lines") -> BuildResult:
    """Build the bot in `source` (a file, a directory or an archive) for `lang` into the
    directory `out` (replacing an earlier build there); `speaks` (`SPEAKS`) goes into
    its manifest.

    Raises:
        BuildError: the sources are refused, or the build failed (with its log; a failed
            build leaves `out` holding only its ``build.log``).
        SandboxUnavailable: this machine cannot run sandboxes.
    """
    limits = limits or BuildLimits()
    if lang not in RECIPES:
        raise BuildError(f"unknown language {lang!r} (languages: {', '.join(LANGS)})",
                         code="upload-lang", params={"lang": lang, "known": ", ".join(LANGS)})
    if speaks not in SPEAKS:
        raise BuildError(f"a program speaks one of {', '.join(SPEAKS)}, not {speaks!r}",
                         code="upload-speaks", params={"speaks": speaks})
    recipe = RECIPES[lang]
    destination = Path(out).absolute()
    _replaceable(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", dir=destination.parent))
    try:
        work.chmod(0o755)
        try:
            tree = unpack_sources(source, work / "src", upload)
        except UnpackError as error:
            raise BuildError(f"the sources are refused: {error}", code=error.code,
                             params=error.params) from None
        entry = find_entry(tree.root, lang)
        log, failure = _run(tree.root, recipe, entry, limits, work / "result.tar")
        if failure is None:
            try:
                unpack_sources(work / "result.tar", work / FILES, UploadLimits(
                    archive_bytes=limits.output_bytes, unpacked_bytes=limits.output_bytes,
                    files=limits.output_files, path_bytes=4096, depth=64))
            except UnpackError as error:
                failure = BuildError(f"the build's result is refused: {error}",
                                     code="build-result-refused")
        if failure is None and lang == "binary":
            try:
                _check_program(work / FILES / entry)
            except BuildError as error:
                failure = error
        log_text = log + ("" if failure is None else f"\n{failure}\n")
        (work / LOG).write_text(log_text, encoding="utf-8")
        (work / LOG).chmod(0o644)
        shutil.rmtree(work / "src")
        (work / "result.tar").unlink()
        command = tuple(part.replace("{entry}", entry).replace("{stem}", Path(entry).stem)
                        for part in recipe.command)
        bot = BuiltBot(work, lang, command, dict(recipe.env),
                       tree.sha256, datetime.datetime.now(datetime.UTC).isoformat(
                           timespec="seconds"), speaks)
        if failure is None:
            bot.write_manifest()
        _install(work, destination)
        if failure is not None:
            raise BuildError(str(failure), log_text, code=failure.code, params=failure.params)
        return BuildResult(load_build(destination), log_text, tree)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


def _install(work: Path, destination: Path) -> None:
    """Put the finished directory in place of `destination` (an earlier build is removed
    only once the new one is complete)."""
    old = None
    if destination.exists():
        old = destination.with_name(f".{destination.name}.old.{os.getpid()}")
        destination.rename(old)
    work.rename(destination)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
