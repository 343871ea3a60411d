"""`arena cluster up`: a local cluster of gateways and hosts for trying and testing
(docs/cluster.md): ``arena serve --role gateway`` and ``--role host`` processes on one
PostgreSQL database and one NATS bus, started together, their gateways' URLs printed,
all stopped together on Ctrl-C or SIGTERM (or when one of them ends)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys

import click

from arena.bus.urls import BusUrl, BusUrlType
from arena.cli.db import DB_OPTION
from arena.cli.serve import check_role

__all__ = ["cluster"]

LISTENING = ("bots (WebSocket):", "/healthz, /metrics:")
"""The lines of ``arena serve``'s standard output that say where a gateway and a host
listen."""


@click.group()
def cluster() -> None:
    """A local cluster of gateways and hosts (docs/cluster.md)."""


@cluster.command("up", context_settings={"ignore_unknown_options": True})
@click.option("--gateways", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option("--hosts", default=2, show_default=True, type=click.IntRange(1, 64))
@DB_OPTION
@click.option("--bus", required=True, type=BusUrlType(), help="nats://HOST[:PORT][?prefix=NAME]")
@click.option("--host", default="127.0.0.1", show_default=True, help="Where they listen.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="The first gateway's port, the next ones' following it (0: any free "
                   "port); the hosts listen on free ports (/healthz, /metrics).")
@click.option("--start-timeout", default=60.0, show_default=True, type=click.FloatRange(1),
              help="Seconds each process may take to start listening.")
@click.argument("serve_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- SERVE OPTIONS]")
def up(gateways: int, hosts: int, db: str, bus: BusUrl, host: str, port: int,
       start_timeout: float, serve_args: tuple[str, ...]) -> None:
    """Start HOSTS hosts, then GATEWAYS gateways (``arena serve`` with the SERVE OPTIONS
    after ``--``, e.g. ``-- --house random``), print the gateways' URLs, and stop them
    all on Ctrl-C or SIGTERM."""
    check_role("gateway", db, bus)
    url = f"{','.join(bus.servers)}?prefix={bus.prefix}"
    roles = [(f"host-{n}", "host", 0) for n in range(1, hosts + 1)] + [
        (f"gateway-{n}", "gateway", port + n - 1 if port else 0)
        for n in range(1, gateways + 1)]
    code = asyncio.run(_run(roles, db, url, host, start_timeout, serve_args))
    sys.exit(code)


async def _run(roles: list[tuple[str, str, int]], db: str, bus: str, host: str,
               timeout: float, serve_args: tuple[str, ...]) -> int:
    """Start the processes one after the other, then wait for a signal or one's end;
    stop them all (SIGTERM, the hosts last: their games are suspended and stored, their
    leases ended). The exit code: 0 after a signal, 1 if a process ended by itself."""
    processes: dict[str, asyncio.subprocess.Process] = {}
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    code = 0
    try:
        for name, role, port in roles:
            process = processes[name] = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "arena", "serve", "--role", role, "--db", db,
                "--bus", bus, "--host", host, "--port", str(port), "--host-id", name,
                *serve_args, stdout=asyncio.subprocess.PIPE)
            try:
                where = await asyncio.wait_for(_listening(process), timeout)
            except TimeoutError:
                where = None
            if where is None:
                click.echo(f"{name} did not start (its standard error says why)", err=True)
                return 1
            click.echo(f"{name:<12} {where}  (pid {process.pid})" if role == "gateway"
                       else f"{name:<12} {where}  (pid {process.pid}: /healthz, /metrics)")
        click.echo("the gateways above take bots and browsers; Ctrl-C stops the cluster",
                   err=True)
        ended = [asyncio.ensure_future(p.wait()) for p in processes.values()]
        stopping = asyncio.ensure_future(stop.wait())
        done, _ = await asyncio.wait([*ended, stopping], return_when=asyncio.FIRST_COMPLETED)
        if stopping not in done:
            gone = [name for name, p in processes.items() if p.returncode is not None]
            click.echo(f"{', '.join(gone)} ended (code {processes[gone[0]].returncode}): "
                       "stopping the cluster", err=True)
            code = 1
        stopping.cancel()
        return code
    finally:
        # gateways first (their bots' grace periods start), then the hosts
        for name in sorted(processes, key=lambda n: not n.startswith("gateway")):
            await _stop(processes[name])


async def _listening(process: asyncio.subprocess.Process) -> str | None:
    """The bots' URL ``arena serve`` prints once it listens (None: it ended first)."""
    assert process.stdout is not None
    while line := (await process.stdout.readline()).decode(errors="replace"):
        for said in LISTENING:
            if said in line:
                return line.split(said, 1)[1].strip()
    return None


async def _stop(process: asyncio.subprocess.Process, timeout: float = 30.0) -> None:
    """SIGTERM, and SIGKILL after `timeout` seconds."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
