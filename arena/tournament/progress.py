"""A rich progress bar with ETA for long runs (quiet when not on a terminal)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = ["progress_bar"]


@contextmanager
def progress_bar(description: str, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """Yields ``update(done, total)``."""
    if not enabled:
        yield lambda done, total: None
        return
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("games"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
    ) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
