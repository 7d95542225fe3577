"""`agentloop bench`: finds the checkout's benchmarks, checks names, says when there are none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import bench as bench_cli
from app.cli.main import app
from tests.support.cli import ROOT, agentloop


def test_list_names_every_benchmark() -> None:
    proc = agentloop("bench", "--list")
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert names[-2:] == ["checkpoints", "concurrency"]
    assert {"overhead", "wave", "tracing"} <= set(names)


def test_unknown_name_is_bad_usage_and_runs_nothing() -> None:
    proc = agentloop("bench", "wave", "nope")
    assert proc.returncode == 2
    assert "unknown benchmark(s): nope" in proc.stderr
    assert "running" not in proc.stdout


def test_the_installed_command_finds_the_checkout_from_another_directory(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("agentloop")
    if not script.exists():
        pytest.skip("the agentloop console script is not installed in this environment")
    proc = subprocess.run(
        [str(script), "bench", "--list"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "concurrency" in proc.stdout


def test_without_a_checkout_it_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_cli, "checkout_root", lambda: None)
    result = CliRunner().invoke(app, ["bench", "--list"])
    assert result.exit_code == 2
    assert "from a checkout of the agentloop repository" in result.output


def test_checkout_root_is_the_folder_with_the_benchmarks(tmp_path: Path) -> None:
    assert bench_cli.checkout_root([tmp_path, ROOT]) == ROOT
    assert bench_cli.checkout_root([tmp_path]) is None
