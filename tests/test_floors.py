"""The run uses the library versions it means to: at `make test-floors`, exactly the
declared floors (``ARENA_FLOORS`` names the libraries); otherwise versions the
requirements in ``pyproject.toml`` allow."""

from __future__ import annotations

import importlib
import os
from importlib.metadata import PackageNotFoundError, version

import pytest
from packaging.version import Version

from tests.floors import declared, floor

AT_FLOORS = os.environ.get("ARENA_FLOORS", "").split()


def test_every_runtime_library_is_a_version_the_requirements_allow() -> None:
    for name, requirement in declared().items():
        if requirement.marker is None and name not in AT_FLOORS:
            try:
                installed = version(name)
            except PackageNotFoundError:
                continue  # an extra this environment did not install (ray)
            assert requirement.specifier.contains(installed, prereleases=True), (
                f"{name} {installed} does not meet {requirement}")


@pytest.mark.skipif(not AT_FLOORS, reason="not the run at the floors (make test-floors)")
@pytest.mark.parametrize("name", AT_FLOORS)
def test_the_run_at_the_floors_loads_the_floors(name: str) -> None:
    assert Version(version(name)) == Version(floor(name))
    module = importlib.import_module(name)
    assert "floors" in str(module.__file__), f"{name} is loaded from {module.__file__}"


def test_the_floors_are_read_from_pyproject() -> None:
    assert floor("websockets") == "16"
    with pytest.raises(ValueError, match="no single '>=' floor"):
        floor("types-cachetools")
