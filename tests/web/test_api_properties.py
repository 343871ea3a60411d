"""No input gets a 5xx (issue 22, finding 4): schemathesis against a live `arena serve`.

schemathesis's strategies are used as a library (its pytest plugin is turned off in
pyproject.toml: release 4.32's does not run under pytest 9, and it hooks every test).

For every operation of ``/api/openapi.json`` that takes a body or parameters,
schemathesis generates inputs from the document, valid and invalid (wrong types, missing
fields, strings where numbers go, deep and huge values), and sends them; whatever it
sends, the answer is never a 5xx, and an error is JSON with a ``code`` and a
``message``. The number of examples is bounded so that the run stays well under a
minute; hypothesis's database is off (no state between runs: each run draws anew).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation.modes import GenerationMode

from tests.web.live import arena_serve

EXAMPLES = 12
"""Generated inputs per operation (and per generation mode: valid, invalid)."""


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = tmp_path_factory.mktemp("properties")
    (base / "tournaments").mkdir()
    with arena_serve("--db", str(base / "arena.sqlite"), "--no-ladder", "--tournaments",
                     str(base / "tournaments"), "--guests-per-client", "1000") as (url, process):
        yield url
    output = process.stdout.read().decode() if process.stdout else ""
    if process.stdout:
        process.stdout.close()
    assert "Traceback" not in output, output  # a handler that failed logs its traceback


def _operations(url: str) -> list[Any]:
    """The document's operations that take a body or parameters."""
    schema = schemathesis.openapi.from_url(f"{url}/api/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    return [op for op in operations
            if op.definition.raw.get("requestBody") or op.definition.raw.get("parameters")]


def test_no_input_gets_a_5xx_and_every_error_says_what_was_wrong(live_server: str) -> None:
    operations = _operations(live_server)
    assert len(operations) >= 20
    session = requests.Session()
    invalid = 0  # operations that invalid inputs were made for
    for operation in operations:
        for mode in GenerationMode:
            @settings(max_examples=EXAMPLES, deadline=None, database=None,
                      phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode))
            def answers(case: Any) -> None:
                response = case.call(base_url=live_server, session=session, timeout=30)
                where = f"{case.method} {case.formatted_path} {case.query} {case.body!r:.200}"
                assert response.status_code < 500, (where, response.text[:300])
                if response.status_code >= 400:
                    error = response.json()
                    assert isinstance(error.get("code"), str), (where, error)
                    assert isinstance(error.get("message"), str), (where, error)

            try:
                answers()
            except Unsatisfiable:
                # no invalid input to make: every string is a valid query parameter
                assert mode is GenerationMode.NEGATIVE, operation.label
            else:
                invalid += mode is GenerationMode.NEGATIVE
    assert invalid >= 10
