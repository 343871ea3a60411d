"""Suite-wide fixtures: solved tables go to a temporary cache, never the user's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``$ARENA_CACHE`` for the whole run (subprocesses inherit it)."""
    path = tmp_path_factory.mktemp("arena-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_CACHE", str(path))
        yield path
