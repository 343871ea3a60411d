"""The protocol package stands alone: a client in Python depends on it, not on the arena."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import importlib.abc
import sys


class Absent(importlib.abc.MetaPathFinder):
    # the arena's packages are not installed where a client runs
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("arena", "bots", "clients"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Absent())
sys.path.insert(0, sys.argv[1])
import protocol
from protocol import Encoding, Message, ProtocolCore, ProtocolError
from protocol.jsonschema import protocol_schema
core = ProtocolCore("server", Encoding.JSON)
core.receive_data('{"type": "ping", "id": 7}')
core.receive_data('{"type": "pong"}')
events = core.events_received()
assert events[0] == Message.make("ping", id=7), events
assert isinstance(events[1], ProtocolError) and events[1].code == "missing-field", events
assert protocol_schema()["$defs"]["ping"]["required"] == ["type", "id"]
assert protocol.__file__.startswith(sys.argv[1]), protocol.__file__
assert not [name for name in sys.modules if name.split(".")[0] in ("arena", "bots", "clients")]
print("ok")
"""


def test_the_protocol_package_works_without_the_arena(tmp_path: Path) -> None:
    """Only the protocol's sources on the path (no arena, no compiled modules): it
    imports, validates and writes its JSON Schema, and loads nothing of the arena."""
    shutil.copytree(ROOT / "protocol", tmp_path / "protocol",
                    ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.stdout.strip() == "ok", result.stderr
