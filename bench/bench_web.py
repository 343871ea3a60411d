"""How light the web interface is: what a first visit to the lobby downloads, and how soon it
paints, in Debian's Chromium driven by Playwright.

    PYTHONPATH=. python bench/bench_web.py [--runs 5] [--lang en|ru] [--path /]

It starts `arena serve` on a free loopback port (a fresh database in a temporary folder),
opens the page `--runs` times in fresh browser contexts (nothing cached) and prints, per
run and as medians: the JavaScript the page loaded (its files, bytes on the wire, gzipped
as served, and unpacked), the other requests (the catalogue, the options), the first paint
and first contentful paint (the browser's Paint Timing), and the time until the lobby is
drawn (``data-phase="lobby"``). The figures in docs/web.md come from this script.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

RESOURCES = """() => performance.getEntriesByType('resource').map((r) => ({
  name: new URL(r.name).pathname, wire: r.encodedBodySize, size: r.decodedBodySize, kind: r.initiatorType }))"""
PAINTS = """() => Object.fromEntries(performance.getEntriesByType('paint').map((p) => [p.name, p.startTime]))"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", str(port), "--db",
         str(folder / "arena.sqlite"), "--no-ladder"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def _visit(browser: Any, url: str, lang: str) -> dict[str, Any]:
    context = browser.new_context(locale="ru-RU" if lang == "ru" else "en-GB")
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function("document.body.dataset.phase === 'lobby'")
    ready = (time.perf_counter() - start) * 1000
    resources = page.evaluate(RESOURCES)
    paints = page.evaluate(PAINTS)
    context.close()
    scripts = [r for r in resources if r["name"].endswith(".js")]
    return {"ready_ms": ready, "first_paint_ms": paints.get("first-paint"),
            "fcp_ms": paints.get("first-contentful-paint"),
            "js_files": len(scripts), "js_wire": sum(r["wire"] for r in scripts),
            "js_size": sum(r["size"] for r in scripts),
            "other": {r["name"]: r["wire"] for r in resources if not r["name"].endswith(".js")}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lang", choices=("en", "ru"), default="en")
    parser.add_argument("--path", default="/")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        process, url = _serve(Path(folder))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
                _visit(browser, url + args.path, args.lang)  # warm the server's caches
                runs = [_visit(browser, url + args.path, args.lang) for _ in range(args.runs)]
                browser.close()
        finally:
            process.terminate()
            process.wait(15)
    for run in runs:
        print(f"lobby drawn {run['ready_ms']:6.0f} ms   first paint {run['first_paint_ms']:6.0f} ms   "
              f"first contentful paint {run['fcp_ms']:6.0f} ms   JavaScript {run['js_files']} files "
              f"{run['js_wire'] / 1024:.1f} KB on the wire, {run['js_size'] / 1024:.1f} KB unpacked")
    print(f"other requests (bytes on the wire): {runs[0]['other']}")
    median = {key: statistics.median(r[key] for r in runs) for key in
              ("ready_ms", "first_paint_ms", "fcp_ms", "js_wire", "js_size")}
    print(f"median of {len(runs)} ({args.lang}): lobby drawn {median['ready_ms']:.0f} ms, first paint "
          f"{median['first_paint_ms']:.0f} ms, first contentful paint {median['fcp_ms']:.0f} ms, "
          f"JavaScript {median['js_wire'] / 1024:.1f} KB on the wire ({median['js_size'] / 1024:.1f} KB unpacked)")


if __name__ == "__main__":
    main()
