"""``--bus`` values: what each names, and a clear error for anything else."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from arena.bus import BusUrl, BusUrlType, parse_bus_url


@pytest.mark.parametrize(("text", "parsed"), [
    ("local:", BusUrl("local")),
    ("local", BusUrl("local")),
    ("nats://127.0.0.1:4222", BusUrl("nats", ("nats://127.0.0.1:4222",))),
    ("nats://bus.example", BusUrl("nats", ("nats://bus.example:4222",))),
    ("nats://a:4222,nats://b:4223", BusUrl("nats", ("nats://a:4222", "nats://b:4223"))),
    ("nats://a,b:5000?prefix=ladder-2", BusUrl("nats", ("nats://a:4222", "nats://b:5000"),
                                              "ladder-2")),
    ("nats://[::1]:4222", BusUrl("nats", ("nats://[::1]:4222",))),
    ("nats://arena:secret@bus:4222", BusUrl("nats", ("nats://arena:secret@bus:4222",))),
])
def test_bus_urls(text: str, parsed: BusUrl) -> None:
    assert parse_bus_url(text) == parsed


@pytest.mark.parametrize(("text", "error"), [
    ("redis://127.0.0.1:6379", "the arena's broker is NATS, not Redis"),
    ("kafka://k:9092", "give local: or nats://HOST"),
    ("127.0.0.1:4222", "give local: or nats://HOST"),
    ("", "give local: or nats://HOST"),
    ("nats://", "is no NATS server"),
    ("nats://a:port", "a bad port in 'nats://a:port'"),
    ("nats://a/path", "is no NATS server"),
    ("nats://a,redis://b", "is no NATS server"),
    ("nats://a?prefix=a.b", "bad bus prefix 'a.b'"),
    ("nats://a?prefix=x&prefix=y", "the one option is ?prefix=NAME"),
    ("nats://a?stream=x", "the one option is ?prefix=NAME"),
])
def test_bad_bus_urls_say_what_to_give(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error.replace("?", r"\?").replace(".", r"\.")):
        parse_bus_url(text)


def test_a_shown_bus_url_hides_its_password() -> None:
    assert str(parse_bus_url("nats://arena:secret@bus?prefix=x")) == (
        "nats://arena:***@bus:4222?prefix=x")
    assert str(parse_bus_url("local")) == "local:"


def test_the_click_type_turns_a_bad_url_into_a_usage_error() -> None:
    @click.command()
    @click.option("--bus", type=BusUrlType(), default="local:")
    def command(bus: BusUrl) -> None:
        click.echo(repr(bus))

    runner = CliRunner()
    assert runner.invoke(command, []).output == "BusUrl(kind='local', servers=(), prefix='arena')\n"
    result = runner.invoke(command, ["--bus", "redis://r"])
    assert result.exit_code == 2
    assert "Invalid value for '--bus'" in result.output and "not Redis" in result.output
