"""A failed build stored before builds had codes reads the code its English says
(`arena.storage.old_builds`, issue 28): every code a build can fail with has a pattern
giving the params its raise gives, and the patterns read the real errors' English."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.sandbox.build import BuildError, _check_program, build_bot, find_entry
from arena.storage.old_builds import OLD_DETAILS, old_detail
from tests.web.test_error_catalogue import ROOT, coded_reasons


def test_every_code_a_build_fails_with_has_a_pattern_with_its_params() -> None:
    given = coded_reasons(ROOT / "arena" / "sandbox")
    given |= {"build-server-error": (set(), "arena/uploads.py"),
              "build-interrupted": (set(), "arena/uploads.py")}
    assert {"no-entry", "build-exit", "source-dotdot", "source-empty"} <= set(given)
    patterns: dict[str, list[set[str]]] = {}
    for code, pattern in OLD_DETAILS:
        patterns.setdefault(code, []).append(set(pattern.groupindex))
    assert sorted(patterns) == sorted(given), "give each code of a build a pattern"
    for code, (params, where) in given.items():
        for named in patterns[code]:
            assert named == params, (code, where)


def _raised(call: object, *args: object) -> BuildError:
    with pytest.raises(BuildError) as refused:
        call(*args)  # type: ignore[operator]
    return refused.value


def test_the_patterns_read_the_english_the_build_gives(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    two = tmp_path / "two"
    two.mkdir()
    for name in ("a.py", "b.py"):
        (two / name).write_text("")
    java = tmp_path / "java"
    java.mkdir()
    (java / "my-bot.java").write_text("")
    (tmp_path / "script").write_text("print()")
    errors = [_raised(find_entry, tmp_path / "empty", "python"),
              _raised(find_entry, tmp_path / "empty", "cpp"),
              _raised(find_entry, tmp_path / "empty", "go"),
              _raised(find_entry, two, "python"),
              _raised(find_entry, java, "java"),
              _raised(find_entry, tmp_path / "empty", "cobol"),
              _raised(_check_program, tmp_path / "script"),
              _raised(lambda: build_bot(tmp_path / "empty", "python", tmp_path / "out",
                                        speaks="smoke"))]
    assert [error.code for error in errors] == [
        "no-entry", "no-source-file", "no-source-file", "entry-ambiguous", "not-a-java-class",
        "upload-lang", "not-a-program", "upload-speaks"]
    for error in errors:
        assert old_detail(str(error)) == (error.code, error.params), str(error)
    # the build's own failures, as `_run` words them
    assert old_detail("the build failed (killed by signal 9): it reached its memory limit "
                      "(512 MiB)") == ("build-memory", {"mib": 512})
    assert old_detail("the build failed (killed by signal 9)") == ("build-killed", {"signal": 9})
    assert old_detail("the build took more than 120 s") == ("build-overtime", {"seconds": 120})
    assert old_detail("the server could not build it: [Errno 28] No space left on device") == (
        "build-server-error", {})
    # a text no pattern knows stays English
    assert old_detail("the build failed for reasons") is None and old_detail(None) is None
