"""The declared dependency floors, for the run of the tests at them (`make test-floors`).

A floor in ``pyproject.toml`` is a promise: the code works with that release. It is
kept for the libraries whose newer features or internals the code relies on by
installing exactly the floor of each (``python -m tests.floors websockets aiohttp``
prints the pins, ``websockets==16 aiohttp==3.10``) over the environment and running the
tests that use them; `tests/test_floors.py` checks that such a run loads the floors.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def declared() -> dict[str, Requirement]:
    """Every requirement of the project (its dependencies and extras), by name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        lines += extra
    requirements: dict[str, Requirement] = {}
    for line in lines:
        requirement = Requirement(line)
        requirements.setdefault(requirement.name.lower(), requirement)
    return requirements


def floor(name: str) -> str:
    """The lowest release `name`'s requirement allows (its ``>=`` bound)."""
    requirement = declared()[name.lower()]
    bounds = [spec.version for spec in requirement.specifier if spec.operator == ">="]
    if len(bounds) != 1:
        raise ValueError(f"{requirement} has no single '>=' floor")
    return bounds[0]


def main(names: list[str]) -> None:
    print(" ".join(f"{name}=={floor(name)}" for name in names))


if __name__ == "__main__":
    main(sys.argv[1:])
