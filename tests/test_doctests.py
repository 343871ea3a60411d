"""The examples in the packages' docstrings run, compiled or not.

pytest's ``--doctest-modules`` collects ``.py`` files and refuses a module whose
compiled extension is what ``import`` gives, so the examples are collected here instead:
every module whose source holds a ``>>>`` example is imported the ordinary way (its
extension, if compiled) and its docstrings' examples are run.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "bots", "protocol", "clients")


def modules_with_examples() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py*")):
            if path.suffix not in (".py", ".pyx") or path.stem == "__main__":
                continue
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = modules_with_examples()


def test_the_packages_have_examples() -> None:
    assert {"protocol.codec", "protocol.schema", "protocol.connection"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module, name) if t.examples]
    assert tests, f"{name}'s source has examples, but its module shows none (docstrings lost?)"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    for test in tests:
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
