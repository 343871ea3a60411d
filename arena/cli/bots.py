"""`arena bots`: list the built-in bots; `arena bots add/revoke/accounts` manage the
server's accounts (in the database ``--db`` names); `arena bots build/run` build a bot and
run it in the sandbox (`arena.sandbox`)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, TextIO

import click

from arena.cli.db import DB_OPTION, check_url, with_storage
from arena.registry import default_registry

if TYPE_CHECKING:
    from arena.storage import Storage


@click.group(invoke_without_command=True)
@click.option("--game", default=None, help="Only the bots of this game.")
@click.pass_context
def bots(ctx: click.Context, game: str | None) -> None:
    """List the bots and their parameters."""
    if ctx.invoked_subcommand is not None:
        return
    registry = default_registry()
    for game_name in sorted(registry.games):
        if game is not None and game_name != game:
            continue
        click.echo(f"{game_name}:")
        for factory in registry.bot_factories(game_name):
            click.echo(f"  {factory.name:24s} {factory.description}")
            for param in factory.params:
                limits = ""
                if param.choices:
                    limits = f" one of {', '.join(param.choices)};"
                elif param.minimum is not None or param.maximum is not None:
                    low = "" if param.minimum is None else f"{param.minimum:g}"
                    high = "" if param.maximum is None else f"{param.maximum:g}"
                    limits = f" range {low}..{high};"
                click.echo(f"      {param.name}={param.format(param.default)}  ({param.kind};{limits} {param.doc})")
            for preset, values in factory.presets.items():
                shown = ",".join(f"{k}={factory.param(k).format(v)}" for k, v in values.items())
                click.echo(f"      preset {factory.name}:{preset}  = {shown}")


@bots.command("add")
@click.argument("name", required=False)
@DB_OPTION
@click.option("--operator", is_flag=True, help="May request games (tournament runners).")
@click.option("--from", "names_file", type=click.File("r", encoding="utf-8"), default=None,
              help="Create the accounts named in this file, one name a line ('-': standard "
                   "input), at once; prints 'NAME TOKEN' lines.")
def add(name: str | None, db: str, operator: bool, names_file: TextIO | None) -> None:
    """Create a bot account and print its token (shown once, stored hashed).

    For an existing account: a new token, which replaces the old one (a running server
    drops a client still using the old token within seconds).

    With --from FILE instead of NAME: every account named in FILE (blank lines and lines
    starting with '#' skipped), in one transaction, all or none (an existing account is an
    error: none is made); one 'NAME TOKEN' line each on standard output, in the file's
    order. 50,000 accounts take seconds.
    """
    check_url(db)
    if (name is None) == (names_file is None):
        raise click.UsageError("give a NAME or --from FILE (one of them)")
    if names_file is not None:
        add_many(names_file, db, operator)
        return
    assert name is not None

    async def work(storage: Storage) -> tuple[bool, str]:
        existed = bool(await storage.token_hashes([name]))
        return existed, await storage.add_bot(name, operator=operator, replace=True)

    try:
        existed, token = with_storage(db, work)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    if existed:
        click.echo(f"{name} existed: this new token replaces its old one", err=True)
    click.echo(token)


def add_many(names_file: TextIO, db: str, operator: bool) -> None:
    """`arena bots add --from FILE` (see `add`)."""
    try:
        names = [line.strip() for line in names_file]
    except UnicodeDecodeError as error:
        raise click.UsageError(f"{names_file.name}: not UTF-8 text ({error})") from None
    names = [name for name in names if name and not name.startswith("#")]
    try:
        tokens = with_storage(db, lambda storage: storage.add_bots(names, operator=operator))
    except ValueError as error:
        raise click.UsageError(f"{names_file.name}: {error}") from None
    click.echo("".join(f"{name} {token}\n" for name, token in tokens.items()), nl=False)
    click.echo(f"{len(tokens)} accounts made", err=True)


@bots.command("revoke")
@click.argument("name")
@DB_OPTION
def revoke(name: str, db: str) -> None:
    """Revoke a bot's token; it can no longer connect (add it again for a new token)."""
    check_url(db)
    if not with_storage(db, lambda storage: storage.revoke_bot(name)):
        raise click.UsageError(f"no active bot named {name!r}")
    click.echo(f"revoked {name}")


@bots.command("accounts")
@DB_OPTION
def accounts(db: str) -> None:
    """List the accounts of the server's database (never their tokens)."""
    check_url(db)
    for account in with_storage(db, lambda storage: storage.bots()):
        marks = [word for word, on in (("operator", account.operator),
                                       ("revoked", account.revoked)) if on]
        click.echo(f"{account.name}{'  (' + ', '.join(marks) + ')' if marks else ''}")


@bots.command("build")
@click.argument("path", type=click.Path(exists=True, path_type=str))
@click.option("--lang", required=True,
              type=click.Choice(["python", "c", "cpp", "js", "go", "java", "binary"]),
              help="The language of the sources (docs/bots.md, 'Hosted bots').")
@click.option("--out", "out", required=True, type=click.Path(path_type=str),
              help="The build's directory (a new one, or an earlier build, replaced).")
@click.option("--speaks", default="lines", show_default=True, type=click.Choice(["lines", "ws"]),
              help="What the program speaks: the line protocol on its standard streams, or "
                   "WebSocket to ws://127.0.0.1:8765/ with $ARENA_TOKEN (the starter kits).")
def build(path: str, lang: str, out: str, speaks: str) -> None:
    """Build a bot from PATH (a file, a directory or an archive) in the sandbox, as a
    server would, and print the build log; play it with hosted:DIR (exit status 1 if
    the build failed)."""
    from arena.sandbox.build import BuildError, build_bot
    from arena.sandbox.host import SandboxUnavailable

    try:
        result = build_bot(path, lang, out, speaks=speaks)
    except BuildError as error:
        if error.log:
            click.echo(error.log.rstrip("\n"))
        click.echo(f"build failed: {error}", err=True)
        sys.exit(1)
    except SandboxUnavailable as error:
        raise click.UsageError(str(error)) from None
    if result.log.strip():
        click.echo(result.log.rstrip("\n"))
    click.echo(f"built {lang} bot in {result.bot.directory}: play it as "
               f"hosted:{result.bot.directory}", err=True)


@bots.command("run")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=str))
@click.option("--relay", "relay", default=None, type=click.Path(path_type=str),
              help="A WebSocket-speaking bot: the Unix socket that leads to the server; "
                   "the bot connects to ws://127.0.0.1:8765/ in its sandbox, with "
                   "$ARENA_TOKEN (docs/bots.md, 'Hosted bots').")
def run(directory: str, relay: str | None) -> None:
    """Run the built bot in DIRECTORY on this command's standard input and output, in
    its sandbox, until it ends: a line program, for 'arena connect --exec "arena bots run
    DIR"' (the whole sandbox is killed when it ends or this command is stopped)."""
    from arena.sandbox.host import SandboxUnavailable
    from arena.sandbox.manifest import NotABuild
    from arena.sandbox.run import run_build

    try:
        sys.exit(run_build(directory, relay=relay, token=os.environ.get("ARENA_TOKEN", "")))
    except (NotABuild, SandboxUnavailable) as error:
        raise click.UsageError(str(error)) from None


HOSTED_DIR_OPTION = click.option(
    "--hosted-dir", "hosted_dir", default="hosted", show_default=True,
    type=click.Path(file_okay=False, path_type=str),
    help="The directory of the hosted bots' builds (the server's --hosted-dir).")


@bots.command("upload")
@click.argument("name")
@click.argument("path", type=click.Path(exists=True, path_type=str))
@click.option("--lang", required=True,
              type=click.Choice(["python", "c", "cpp", "js", "go", "java", "binary"]),
              help="The language of the sources (docs/bots.md, 'Hosted bots').")
@click.option("--speaks", default="lines", show_default=True, type=click.Choice(["lines", "ws"]),
              help="What the program speaks: the line protocol on its standard streams, or "
                   "WebSocket to ws://127.0.0.1:8765/ with $ARENA_TOKEN (the starter kits).")
@DB_OPTION
@HOSTED_DIR_OPTION
def upload(name: str, path: str, lang: str, speaks: str, db: str, hosted_dir: str) -> None:
    """Upload PATH (a file, a directory or an archive) as the bot NAME's program: build
    it in the sandbox into --hosted-dir, record the build and its log in --db, and
    print the log. A server with the same --db and --hosted-dir plays it from the bot's
    next game on (exit status 1 if the build failed)."""
    from arena.sandbox.host import SandboxUnavailable
    from arena.uploads import UploadError, Uploads

    check_url(db)
    try:
        row = with_storage(db, lambda storage: Uploads(storage, hosted_dir).upload(
            name, path, lang, speaks=speaks))
    except (UploadError, SandboxUnavailable) as error:
        raise click.UsageError(str(error)) from None
    if row.log and row.log.strip():
        click.echo(row.log.rstrip("\n"))
    if row.status != "ok":
        click.echo(f"build {row.id} of {name} failed: {row.detail}", err=True)
        sys.exit(1)
    click.echo(f"build {row.id}: {name} now plays this {lang} program", err=True)


@bots.command("builds")
@click.argument("name")
@DB_OPTION
def builds(name: str, db: str) -> None:
    """List the bot NAME's builds, newest first (the first 'ok' one is what it plays)."""
    check_url(db)
    for row in with_storage(db, lambda storage: storage.builds(name)):
        detail = f"  {row.detail}" if row.detail else ""
        click.echo(f"{row.id}  {row.status:8s} {row.lang:7s} {row.speaks:5s}{detail}")


@bots.command("build-log")
@click.argument("name")
@click.argument("build_id", required=False)
@DB_OPTION
def build_log(name: str, build_id: str | None, db: str) -> None:
    """Print the log of the bot NAME's build BUILD_ID (default: its newest build)."""
    check_url(db)

    async def work(storage: Storage) -> str | None:
        wanted = build_id
        if wanted is None:
            newest = await storage.builds(name, limit=1)
            if not newest:
                return None
            wanted = newest[0].id
        row = await storage.build(wanted)
        return None if row is None or row.bot != name else (row.log or "")

    text = with_storage(db, work)
    if text is None:
        raise click.UsageError(f"no build {build_id + ' ' if build_id else ''}of {name!r}")
    click.echo(text.rstrip("\n"))
