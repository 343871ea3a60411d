"""Compiled extensions load only if they were built from the sources on disk.

Some modules are compiled (Cython, see ``setup.py``): a compiled extension sits beside
its source and Python's import would prefer it even after the source changed, silently
running stale code. So ``setup.py`` records, in ``arena/_extensions.json``, the SHA-256
of every file each extension was built from, and importing this module (the first thing
``arena``, ``bots`` and ``protocol`` do) puts a finder at the front of ``sys.meta_path``
that checks an extension of the project's packages before it loads:

* built from the sources on disk (and so is every extension it ``cimport``\\ s): it loads;
* a plain ``.py`` module whose extension is stale or unknown to the manifest: the
  ``.py`` source loads instead, with a `StaleExtensionWarning` (``make setup`` rebuilds);
* a Cython core (``.pyx``) whose extension is stale: `ImportError`, which names the
  changed file and the fix (games with a pure-Python twin then fall back to it).

``ARENA_PURE=1`` in the environment loads every plain ``.py`` module from its source
(the compiled cores still load); ``ARENA_PURE=arena.match,protocol.codec`` only the
modules named (and those that ``cimport`` them). ``docs/development.md`` tells more.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["MANIFEST", "PACKAGES", "Refusal", "StaleExtensionWarning", "install", "pure_modules",
           "refusal"]

PACKAGES = frozenset({"arena", "bots", "protocol", "clients"})
"""Top-level packages whose extensions are checked."""

ROOT = Path(__file__).resolve().parent.parent
"""The directory holding the packages (the checkout, or site-packages)."""

MANIFEST = ROOT / "arena" / "_extensions.json"
"""Written by ``setup.py``: per extension, its sources' SHA-256 and what it cimports."""


class StaleExtensionWarning(RuntimeWarning):
    """A compiled module was not built from its current source; the source runs instead."""


def pure_modules(environ: dict[str, str] | os._Environ[str] = os.environ) -> frozenset[str] | bool:
    """What ``ARENA_PURE`` asks for: True (every plain module), a set of names, or False."""
    value = environ.get("ARENA_PURE", "").strip()
    if value in ("", "0"):
        return False
    if value == "1":
        return True
    return frozenset(name.strip() for name in value.split(",") if name.strip())


@cache
def _manifest() -> dict[str, Any]:
    try:
        data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@cache
def _digest(relative: str) -> str | None:
    try:
        return hashlib.sha256((ROOT / relative).read_bytes()).hexdigest()
    except OSError:
        return None


@dataclass(frozen=True)
class Refusal:
    """Why an extension must not load."""

    reason: str
    stale: bool
    """False when only ``ARENA_PURE`` asked for the source (no warning then)."""


@cache
def refusal(name: str) -> Refusal | None:
    """Why the extension of module `name` must not load, or None if it may.

    Checks the recorded sources of `name` and, recursively, of every compiled module it
    cimports (an extension type built against another's layout needs that one compiled).
    """
    entry: dict[str, Any] = _manifest().get(name) or {}
    sources = entry.get("sources") if isinstance(entry, dict) else None
    if not isinstance(sources, dict):
        return Refusal(f"{name} was not compiled by this checkout's setup.py", stale=True)
    for relative, digest in sources.items():
        if _digest(relative) != digest:
            return Refusal(f"{relative} changed since {name} was compiled", stale=True)
    for other in entry.get("cimports", ()):
        below = refusal(other)
        if below is not None:
            return Refusal(f"{name} is built against {other}, and {below.reason}", below.stale)
    pure = pure_modules()
    if entry.get("python") and (pure is True or (pure and name in pure)):
        return Refusal(f"ARENA_PURE asks for {name} from its source", stale=False)
    return None


class _GuardFinder:
    """The ``sys.meta_path`` finder that keeps stale extensions from loading."""

    @classmethod
    def find_spec(
        cls, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if path is None or fullname.partition(".")[0] not in PACKAGES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return spec
        refused = refusal(fullname)
        if refused is None:
            return spec
        assert spec.origin is not None
        source = Path(spec.origin).parent / (fullname.rpartition(".")[2] + ".py")
        if source.is_file():
            if refused.stale:
                warnings.warn(
                    f"{refused.reason}: running {source.name} instead of the stale extension "
                    "(`make setup` rebuilds it)", StaleExtensionWarning, stacklevel=2)
            return importlib.util.spec_from_file_location(fullname, source)
        raise ImportError(
            f"{refused.reason}: the compiled extension {Path(spec.origin).name} may not load; "
            "rebuild it with `make setup`", name=fullname, path=spec.origin)


def install() -> None:
    """Put the guard first on ``sys.meta_path`` (idempotent)."""
    if _GuardFinder not in sys.meta_path:
        sys.meta_path.insert(0, _GuardFinder)


install()
