"""`arena users`: the operator adds, lists and removes people and makes invite codes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.passwords import Passwords
from arena.storage import open_storage


async def _check(db: str, name: str, password: str) -> bool:
    storage = await open_storage(db)
    passwords = Passwords()
    try:
        return await passwords.verify(await storage.password_hash(name), password)
    finally:
        passwords.close()
        await storage.close()


async def _sign_up(db: str, name: str, code: str) -> None:
    storage = await open_storage(db)
    try:
        await storage.add_person(name, "hash", invite=code)
    finally:
        await storage.close()


def test_people_are_added_listed_invited_and_removed(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "arena.sqlite")
    made = runner.invoke(main, ["users", "add", "ann", "--db", db])
    assert made.exit_code == 0, made.output
    password = made.stdout.strip()
    assert len(password) >= 8 and asyncio.run(_check(db, "ann", password))
    given = runner.invoke(main, ["users", "add", "bob", "--db", db, "--password-stdin"],
                          input="bob's long secret\n")
    assert given.exit_code == 0 and "bob's long secret" not in given.stdout
    assert asyncio.run(_check(db, "bob", "bob's long secret"))
    again = runner.invoke(main, ["users", "add", "ann", "--db", db])
    assert again.exit_code == 2 and "taken" in again.output
    short = runner.invoke(main, ["users", "add", "cy", "--db", db, "--password-stdin"],
                          input="short\n")
    assert short.exit_code == 2 and "8 to 256 characters" in short.output
    bad = runner.invoke(main, ["users", "add", "house:x", "--db", db])
    assert bad.exit_code == 2 and "reserved" in bad.output
    reset = runner.invoke(main, ["users", "password", "bob", "--db", db])
    assert reset.exit_code == 0 and asyncio.run(_check(db, "bob", reset.stdout.strip()))
    assert not asyncio.run(_check(db, "bob", "bob's long secret"))
    nobody = runner.invoke(main, ["users", "password", "zed", "--db", db])
    assert nobody.exit_code == 2 and "no person named 'zed'" in nobody.output
    listed = runner.invoke(main, ["users", "list", "--db", db])
    assert listed.output == "ann  (0 bots)\nbob  (0 bots)\n"
    codes = runner.invoke(main, ["users", "invite", "--db", db, "--count", "2"])
    first, second = codes.stdout.split()
    asyncio.run(_sign_up(db, "cy", first))
    assert runner.invoke(main, ["users", "remove", "ann", "--db", db]).exit_code == 0
    missing = runner.invoke(main, ["users", "remove", "ann", "--db", db])
    assert missing.exit_code == 2 and "no person named 'ann'" in missing.output
    assert runner.invoke(main, ["users", "list", "--db", db]).output == \
        "bob  (0 bots)\ncy  (0 bots)\n"
    assert second != first


def test_an_operator_is_added_listed_and_demoted(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "arena.sqlite")
    made = runner.invoke(main, ["users", "add", "olga", "--operator", "--db", db])
    assert made.exit_code == 0 and "an operator" in made.output
    assert runner.invoke(main, ["users", "add", "ann", "--db", db]).exit_code == 0
    listed = runner.invoke(main, ["users", "list", "--db", db]).stdout.splitlines()
    assert listed == ["ann  (0 bots)", "olga  (0 bots)  operator"]
    assert runner.invoke(main, ["users", "operator", "ann", "--db", db]).exit_code == 0
    assert runner.invoke(main, ["users", "operator", "olga", "--off", "--db", db]).exit_code == 0
    listed = runner.invoke(main, ["users", "list", "--db", db]).stdout.splitlines()
    assert listed == ["ann  (0 bots)  operator", "olga  (0 bots)"]
    nobody = runner.invoke(main, ["users", "operator", "zed", "--db", db])
    assert nobody.exit_code == 2 and "no person" in nobody.output
