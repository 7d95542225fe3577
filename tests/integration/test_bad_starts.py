"""Every bad start of `agentloop` is one line on stderr and exit 2, with nothing written:
a database missing or unreachable, a workspace not migrated, an unusable data directory,
ids no store can hold; long ids are shown shortened; two upgrades at once both succeed;
an unexpected error is one line (exit 1) and leaves no run `running`."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, text

from core.db.engine import sync_url
from core.settings import Settings
from tests.support.cli import ROOT, agentloop, upgraded
from tests.support.scratch_pg import scratch_database

HELLO = [{"content": "Hello."}]
CREATE = [
    {"tool_calls": [{"name": "create_task", "args": {"client": "Thorinox", "title": "Refresh"}}]}
]
SURROGATE = os.fsdecode(b"\xed\xa0\x80")
"""Invalid UTF-8 in argv, as Python hands it to the program: lone surrogates."""


def one_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """Check `proc` exited with `code` after one line on stderr (no traceback); return it."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def commands(write_script) -> dict[str, tuple[str, ...]]:
    """The commands a person starts with, a plain ask and one that calls a tool among them."""
    return {
        "ask": ("ask", "hi", "--thread", "t", "--model", write_script(HELLO)),
        "tool ask": ("ask", "make the task", "--thread", "t", "--model", write_script(CREATE)),
        "resume": ("resume", "--thread", "t", "--approve"),
        "runs list": ("runs", "list"),
        "runs show": ("runs", "show", "abc"),
        "seed": ("seed", "--demo"),
        "chat": ("chat", "--thread", "t"),
    }


def run_statuses(url: str) -> list[str]:
    engine = create_engine(sync_url(Settings(_env_file=None, database_url=url)))
    try:
        with engine.connect() as conn:
            return [row[0] for row in conn.execute(text("SELECT status FROM agent_runs"))]
    finally:
        engine.dispose()


@pytest.fixture
def empty_pg(pg_url: str) -> Iterator[str]:
    """A PostgreSQL database that exists and holds nothing (never migrated)."""
    with scratch_database(pg_url, "empty") as url:
        yield url


# 1. A database that does not exist, or a server that cannot be reached.


@pytest.mark.postgres
@pytest.mark.parametrize("command", ["ask", "tool ask", "runs list", "db upgrade"])
def test_a_database_that_does_not_exist_is_named(
    command: str, pg_url: str, tmp_path: Path, write_script
) -> None:
    missing = f"nope_{uuid.uuid4().hex[:6]}"
    env = {
        "DATABASE_URL": f"{pg_url.rsplit('/', 1)[0]}/{missing}",
        "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
    }
    args = {"db upgrade": ("db", "upgrade"), **commands(write_script)}[command]
    line = one_line(agentloop(*args, env=env))
    # Named before any pool opens (a pool would have waited, then said its initialization
    # was incomplete).
    assert line == f"error: database '{missing}' does not exist on 127.0.0.1:5432"


@pytest.mark.parametrize("command", ["ask", "tool ask", "runs list", "db upgrade"])
def test_an_unreachable_server_is_named(command: str, tmp_path: Path, write_script) -> None:
    env = {
        "DATABASE_URL": "postgresql://postgres@127.0.0.1:1/agentloop",
        "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
    }
    args = {"db upgrade": ("db", "upgrade"), **commands(write_script)}[command]
    line = one_line(agentloop(*args, env=env))
    assert line == "error: cannot reach PostgreSQL on 127.0.0.1:1: connection refused"


def test_a_sqlite_url_in_a_directory_that_cannot_be_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a directory should be")
    env = {
        "DATABASE_URL": f"sqlite:///{blocker}/workspace.sqlite",
        "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
    }
    for args in (("runs", "list"), ("db", "upgrade")):
        line = one_line(agentloop(*args, env=env))
        assert line == (
            f"error: the directory of the workspace database {blocker} is not a directory "
            "(it is a file)"
        )


# 2. A workspace that exists but was never migrated.


def _unmigrated(env: dict[str, str], where: str, write_script) -> None:
    for name, args in commands(write_script).items():
        line = one_line(agentloop(*args, env=env, stdin=""))
        assert line == (
            f"error: the workspace at {where} is not migrated: run `agentloop db upgrade`"
        ), name


def test_an_unmigrated_sqlite_workspace_says_to_upgrade(tmp_path: Path, write_script) -> None:
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    _unmigrated(env, str(tmp_path / "data" / "workspace.sqlite"), write_script)
    assert not (tmp_path / "data" / "workspace.sqlite").exists()  # nothing was created
    assert agentloop("db", "upgrade", env=env).returncode == 0
    assert agentloop("runs", "list", env=env).returncode == 0


@pytest.mark.postgres
def test_an_unmigrated_postgres_workspace_says_to_upgrade(
    empty_pg: str, tmp_path: Path, write_script
) -> None:
    env = {"DATABASE_URL": empty_pg, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    _unmigrated(env, f"postgresql://127.0.0.1:5432/{empty_pg.rsplit('/', 1)[1]}", write_script)
    with psycopg.connect(empty_pg) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        assert tables.fetchone() == (0,)


@pytest.mark.postgres
def test_postgres_checkpoint_tables_missing_say_to_upgrade(
    empty_pg: str, tmp_path: Path, write_script
) -> None:
    from tools.pack_data import upgrade_workspace

    upgrade_workspace(Settings(_env_file=None, database_url=empty_pg))  # no checkpoint tables
    env = {"DATABASE_URL": empty_pg, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    where = f"postgresql://127.0.0.1:5432/{empty_pg.rsplit('/', 1)[1]}"
    for name in ("ask", "tool ask", "resume", "chat"):
        line = one_line(agentloop(*commands(write_script)[name], env=env, stdin=""))
        assert line == (
            f"error: the workspace at {where} is not migrated (its checkpoint tables are "
            "missing): run `agentloop db upgrade`"
        ), name
    assert run_statuses(empty_pg) == []


# 3. A data directory that is a file, or cannot be written in.


def test_a_data_directory_that_is_a_file_is_named(tmp_path: Path, write_script) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("")
    env = {"AGENTLOOP_DATA_DIR": str(blocker)}
    for args in (*commands(write_script).values(), ("db", "upgrade")):
        line = one_line(agentloop(*args, env=env, stdin=""))
        assert line == f"error: the data directory {blocker} is not a directory (it is a file)"


def test_a_read_only_data_directory_is_named(tmp_path: Path, write_script) -> None:
    if os.geteuid() == 0:
        # root writes through any mode bits: a directory of the kernel's sysfs stands in.
        read_only = Path("/sys/kernel")
        if not read_only.is_dir() or os.access(read_only / "x", os.F_OK):
            pytest.skip("no read-only directory for root here")
    else:
        read_only = tmp_path / "data"
        read_only.mkdir()
        read_only.chmod(0o555)
    env = {"AGENTLOOP_DATA_DIR": str(read_only)}
    for args in (commands(write_script)["ask"], ("runs", "list"), ("db", "upgrade")):
        line = one_line(agentloop(*args, env=env))
        assert line.startswith(f"error: the data directory {read_only} is not writable: ")


# 4 and 5. Ids no store can hold, and ids too long to show whole.


def test_ids_with_invalid_utf8_or_control_characters_are_usage_errors(
    workspace_url: str, tmp_path: Path, write_script
) -> None:
    env = {"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    model = ("--model", write_script(HELLO))
    for bad in (f"t{SURROGATE}", "t\x01x", "t\x1b[31m"):
        for args, option in (
            (("ask", "hi", "--thread", bad, *model), "'--thread' / '-t'"),
            (("ask", "hi", "--thread", "t", "--user", bad, *model), "'--user' / '-u'"),
            (("resume", "--thread", bad, "--approve"), "'--thread' / '-t'"),
            (("chat", "--user", bad), "'--user' / '-u'"),
            (("runs", "list", "--thread", bad), "'--thread' / '-t'"),
            (("runs", "show", bad), "'run_id'"),
        ):
            line = one_line(agentloop(*args, env=env))
            assert line.startswith(
                f"error: Invalid value for {option}: must be valid UTF-8 text without "
                "control characters"
            ), line
    assert run_statuses(workspace_url) == []  # refused before any row was written


def test_a_long_id_is_shown_shortened(workspace_url: str, tmp_path: Path) -> None:
    env = {"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    long_id = "r" * 10_000
    line = one_line(agentloop("runs", "show", long_id, env=env), code=1)
    assert line == f"error: no run '{'r' * 40}…'"
    line = one_line(agentloop("ask", "hi", "--thread", long_id, env=env))
    assert len(line) < 200 and "(got 10000 characters)" in line
    line = one_line(agentloop("ask", "hi", "--thread", "t", "--role", long_id, env=env))
    assert len(line) < 200 and "Invalid value for '--role'" in line
    assert run_statuses(workspace_url) == []


# 6. Two upgrades at once.


def _two_upgrades_at_once(env: dict[str, str]) -> None:
    racers = [
        subprocess.Popen(
            [sys.executable, "-m", "app.cli", "db", "upgrade"],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, (out, err)
        assert "workspace database at the newest revision" in out and err == ""


@pytest.mark.postgres
def test_two_upgrades_at_once_both_succeed_on_postgres(pg_url: str, tmp_path: Path) -> None:
    for trial in range(3):
        with scratch_database(pg_url, f"up{trial}") as url:
            env = {"DATABASE_URL": url, "AGENTLOOP_DATA_DIR": str(tmp_path / "d")}
            _two_upgrades_at_once(env)
            assert agentloop("runs", "list", env=env).returncode == 0


def test_two_upgrades_at_once_both_succeed_on_sqlite(tmp_path: Path) -> None:
    for trial in range(3):
        env = {"AGENTLOOP_DATA_DIR": str(tmp_path / f"data{trial}")}
        _two_upgrades_at_once(env)
        assert agentloop("runs", "list", env=env).returncode == 0


# 7. Something unexpected.


def broken_cli(part: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run `agentloop ARGS` with one part broken (tests/support/broken_cli.py)."""
    return subprocess.run(
        [sys.executable, "-m", "tests.support.broken_cli", part, *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_an_unexpected_error_is_one_line_and_debug_shows_its_traceback(
    workspace_url: str, tmp_path: Path, write_script
) -> None:
    env = upgraded({"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")})
    ask = ("ask", "hi", "--thread", "t", "--model", write_script(HELLO * 2))
    line = one_line(broken_cli("render", *ask, env=env), code=1)
    assert line == (
        "error: RuntimeError: the renderer broke (`agentloop --debug …` shows the traceback)"
    )
    debug = broken_cli("render", "--debug", *ask, env=env)
    assert debug.returncode == 1 and "Traceback" in debug.stderr
    assert debug.stderr.rstrip().endswith("RuntimeError: the renderer broke")
    assert run_statuses(workspace_url) == ["completed", "completed"]
    assert "RuntimeError: the renderer broke" in (tmp_path / "data" / "agentloop.log").read_text()


def test_an_interrupted_run_is_recorded_interrupted_not_running(
    workspace_url: str, tmp_path: Path, write_script
) -> None:
    env = upgraded({"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")})
    proc = broken_cli(
        "interrupt", "ask", "hi", "--thread", "t", "--model", write_script(HELLO), env=env
    )
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, proc.stderr
    assert run_statuses(workspace_url) == ["interrupted"]


def test_upgraded_commands_start(tmp_path: Path, write_script) -> None:
    # The checks cost a start nothing it needs: a migrated workspace answers as before.
    env = upgraded({"AGENTLOOP_DATA_DIR": str(tmp_path / "data")})
    proc = agentloop(*commands(write_script)["ask"], env=env)
    assert proc.returncode == 0 and "Hello." in proc.stdout, proc.stderr
