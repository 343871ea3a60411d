"""`arena users`: the people of the server's database (``--db``): add, list, remove
people, give one a new password, and make invite codes for sign-up by invitation (docs/server.md, "People and
their bots")."""

from __future__ import annotations

import secrets
import sys
from typing import TYPE_CHECKING

import click

from arena.cli.db import DB_OPTION, check_url, with_storage

if TYPE_CHECKING:
    from arena.storage import Storage


PASSWORD_STDIN = click.option(
    "--password-stdin", is_flag=True,
    help="Read the password from standard input (its first line) instead of making one up "
         "and printing it.")


@click.group()
def users() -> None:
    """People's accounts: add, list, remove, password, invite, operator."""


@users.command("add")
@click.argument("name")
@DB_OPTION
@PASSWORD_STDIN
@click.option("--operator", is_flag=True,
              help="An operator: they may read the operators' page (/#/operator).")
def add(name: str, db: str, password_stdin: bool, operator: bool) -> None:
    """Add a person. Without --password-stdin a random password is made and printed once
    (only its argon2id hash is stored); they sign in on the web with it."""
    from arena.names import InvalidName, check_account_name

    check_url(db)
    try:
        check_account_name(name)
    except InvalidName as error:
        raise click.UsageError(str(error)) from None
    password, hashed = _password(password_stdin)
    try:
        with_storage(db, lambda storage: storage.add_person(name, hashed,
                                                                operator=operator))
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    click.echo(f"added {name}{' (an operator)' if operator else ''}", err=True)
    if not password_stdin:
        click.echo(password)


@users.command("password")
@click.argument("name")
@DB_OPTION
@PASSWORD_STDIN
def password(name: str, db: str, password_stdin: bool) -> None:
    """Give a person a new password (one who forgot theirs); their sessions end."""
    check_url(db)
    new, hashed = _password(password_stdin)
    if not with_storage(db, lambda storage: storage.set_password_hash(name, hashed)):
        raise click.UsageError(f"no person named {name!r}")
    click.echo(f"new password for {name}; their sessions ended", err=True)
    if not password_stdin:
        click.echo(new)


def _password(from_stdin: bool) -> tuple[str, str]:
    """A password (the first line of standard input, or a random one) within the bounds,
    and its argon2id hash."""
    from arena.config import AccountsConfig
    from arena.passwords import PasswordError, Passwords, check_password

    config = AccountsConfig()
    chosen = sys.stdin.readline().rstrip("\r\n") if from_stdin else secrets.token_urlsafe(12)
    try:
        check_password(chosen, minimum=config.password_min, maximum=config.password_max)
    except PasswordError as error:
        raise click.UsageError(str(error)) from None
    return chosen, Passwords(threads=1).hash_now(chosen)


@users.command("list")
@DB_OPTION
def list_people(db: str) -> None:
    """List the people and how many bots each has (never their passwords)."""
    check_url(db)
    for person in with_storage(db, lambda storage: storage.people()):
        click.echo(f"{person.name}  ({person.bots} bot{'s' if person.bots != 1 else ''})"
                   + ("  operator" if person.operator else ""))


@users.command("operator")
@click.argument("name")
@DB_OPTION
@click.option("--off", is_flag=True, help="Take the operator's rights away instead.")
def operator(name: str, db: str, off: bool) -> None:
    """Make a person an operator (they may read the operators' page), or with --off no
    longer one. A running server sees the change at their next request."""
    check_url(db)
    if not with_storage(db, lambda storage: storage.set_operator(name, not off)):
        raise click.UsageError(f"no person named {name!r}")
    click.echo(f"{name} is {'no longer ' if off else ''}an operator")


@users.command("remove")
@click.argument("name")
@DB_OPTION
def remove(name: str, db: str) -> None:
    """Remove a person: their sessions end, their bots are revoked (a connected one is
    dropped within seconds); their games and ratings stay."""
    check_url(db)
    if not with_storage(db, lambda storage: storage.remove_person(name)):
        raise click.UsageError(f"no person named {name!r}")
    click.echo(f"removed {name}")


@users.command("invite")
@DB_OPTION
@click.option("--days", default=7.0, show_default=True, type=click.FloatRange(min=0.001),
              help="Days the code is valid.")
@click.option("--count", default=1, show_default=True, type=click.IntRange(1, 1000),
              help="Codes to make (one sign-up each).")
def invite(db: str, days: float, count: int) -> None:
    """Make invite codes, one a line, each good for one sign-up when the server runs
    with --signup invite (shown once, stored hashed)."""
    check_url(db)

    async def work(storage: Storage) -> list[str]:
        return [await storage.add_invite(days * 86_400) for _ in range(count)]

    for code in with_storage(db, work):
        click.echo(code)
