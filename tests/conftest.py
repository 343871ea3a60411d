"""Suite-wide fixtures: solved tables go to a temporary cache, never the user's. And how
`make test` spreads the suite over two processes (pytest-xdist, ``-n 2 --dist
loadgroup``): module by module, the modules that run sandboxes all on one process,
the slowest modules first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SANDBOX = ("tests/sandbox/", "tests/web/test_browser_hosting.py", "tests/cluster/test_hosted.py",
           "tests/cluster/test_elsewhere.py")
"""The modules that run sandboxes: one worker runs them all, one at a time, since their
`no_leftovers` check looks at every process of the sandbox uids on the machine."""

FIRST = ("tests/tournament/test_cluster.py", "tests/sandbox/", "tests/web/test_browser",
         "tests/web/test_http_limits.py", "tests/web/test_api_properties.py",
         "tests/test_suite.py", "tests/test_static.py", "tests/server/test_kits.py")
"""The slowest modules (a browser, a Ray cluster, sandboxes, compilers, pytest or mypy
in a subprocess): scheduled first, so that the run does not end waiting on one of them."""


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``$ARENA_CACHE`` for the whole run (subprocesses inherit it)."""
    path = tmp_path_factory.mktemp("arena-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_CACHE", str(path))
        yield path


@pytest.fixture(autouse=True, scope="session")
def _english_environment() -> Iterator[None]:
    """The command line speaks the environment's language (`arena.speech`): the suite,
    whose assertions read English unless a test asks otherwise, runs in the C locale's
    whatever the developer's own (a test's ``env=`` still chooses)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
            patch.delenv(name, raising=False)
        patch.setenv("LANG", "C.UTF-8")
        yield


def work_unit(nodeid: str) -> str:
    """What one worker runs as a whole: the module of `nodeid` (its module-scoped
    fixtures, a server, a browser, built kits, are set up once), or ``sandbox``."""
    module = nodeid.split("::", 1)[0]
    return "sandbox" if module.startswith(SANDBOX) else module


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The `FIRST` modules first (a stable sort: the order within a module is kept; every
    worker collects the same order)."""
    items.sort(key=lambda item: not item.nodeid.startswith(FIRST))


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's (the test extra has it)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` by `work_unit` (xdist's own reads ``xdist_group`` marks from
    node ids, which pytest 9.2 no longer lets it rewrite: pytest-xdist issue 1386)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ByWorkUnit(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return ByWorkUnit(config, log)
