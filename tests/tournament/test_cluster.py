"""Tournaments and matches on a real local Ray cluster (a head and worker nodes started
with `ray start` on 127.0.0.1): the same tables as a local run, a bot built once per
worker, and a node killed in the middle of a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games.substitution import Settings
from arena.tournament import TournamentSpec, run_tournament, to_json

pytest.importorskip("ray", reason="the cluster extra is not installed (pip install '.[cluster]')")

from .ray_cluster import RayCluster

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--grammar", "classic", "--moves", "12", "--games", "60", "--seed", "11",
        "--bots", "random,short-words,smart-random", "--quiet"]


@pytest.fixture(scope="module")
def cluster():
    cluster = RayCluster(head_cpus=1).start()
    try:
        cluster.add_node(cpus=1)
        yield cluster
    finally:
        cluster.stop()


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process (Ray's driver state stays out of the test process)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, env=env, timeout=600, check=False)


def test_a_tournament_on_the_cluster_equals_the_local_run(cluster, tmp_path):
    done = run_cli("tournament", *ARGS, "--cluster", cluster.client_address,
                   "--json", str(tmp_path / "cluster.json"), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "on Ray cluster ray://127.0.0.1" in done.stdout
    local = CliRunner().invoke(main, ["tournament", *ARGS, "--jobs", "2",
                                      "--json", str(tmp_path / "local.json")])
    assert local.exit_code == 0, local.output
    assert (json.loads((tmp_path / "cluster.json").read_text())
            == json.loads((tmp_path / "local.json").read_text()))
    validated = run_cli("tournament", "validate", str(tmp_path / "out"))
    assert "540 games checked, 0 with defects" in validated.stdout


def test_a_match_on_the_cluster_equals_the_local_run(cluster, tmp_path):
    sprt = ["sim-perfect", "sim-random", "--game", "sim", "--settings", '{"vertices": 6}',
            "--seed", "2", "--sprt", "elo0=0,elo1=50", "--quiet"]
    done = run_cli("match", *sprt, "--cluster", cluster.address, "--json",
                   str(tmp_path / "cluster.json"))
    assert done.returncode == 0, done.stderr
    local = CliRunner().invoke(main, ["match", *sprt, "--jobs", "1", "--json",
                                      str(tmp_path / "local.json")])
    assert local.exit_code == 0, local.output
    cluster_json = json.loads((tmp_path / "cluster.json").read_text())
    assert cluster_json == json.loads((tmp_path / "local.json").read_text())
    assert cluster_json["decision"] == "H1"


def test_a_dead_node_s_batches_are_played_elsewhere(cluster):
    # Two CPUs: when the victim returns a batch, its other CPU is playing one. The run
    # lasts long enough (seconds) for the new nodes' Ray workers to start and take part.
    victim = cluster.add_node(cpus=2)
    spec = TournamentSpec("substitution", Settings.preset("classic", 200).to_json(),
                          ("random", "short-words", "smart-random"), 300, 5)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "tests.tournament.ray_kill_driver", cluster.address,
         str(victim.node_manager_port), str(victim.process.pid), json.dumps(spec.to_json())],
        capture_output=True, text=True, env=env, timeout=600, cwd=ROOT, check=False)
    victim.process.wait(timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["killed"]  # the victim node returned two batches, then died
    assert report["retried"] >= 1  # the batch it was playing was played again elsewhere
    assert report["tables"] == to_json(run_tournament(spec, processes=2))
    # each worker process built (and prepared) each bot at most once, for many batches
    for worker, built in report["built"].items():
        assert max(Counter(built).values()) == 1, worker
    assert len(report["nodes"]) > len(report["built"])


def test_without_ray_the_cluster_option_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    result = CliRunner().invoke(main, ["tournament", "--bots", "random", "--games", "1",
                                       "--cluster", "auto"])
    assert result.exit_code == 1
    assert "--cluster needs Ray, an optional extra: pip install 'arena[cluster]'" in result.output
