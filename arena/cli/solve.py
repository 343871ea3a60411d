"""`arena solve GAME ...`: the exact solvers game plugins register (`arena_solvers`)."""

from __future__ import annotations

from typing import Any

import click

from arena.cli.lazy import LazyGroup


class SolverGroup(LazyGroup):
    """The solvers of every installed plugin, looked up when the group is used."""

    def _load(self) -> None:
        if not self.lazy_subcommands:
            from arena.registry import default_registry

            self.lazy_subcommands = dict(default_registry().solvers)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Any:
        self._load()
        return super().get_command(ctx, cmd_name)


@click.group(cls=SolverGroup)
def solve() -> None:
    """Solve a game exactly (perfect play values, counts, optimal moves)."""
