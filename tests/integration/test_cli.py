"""The CLI across processes: a thread continues on SQLite and on the real Postgres."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import agentloop, ask_json, upgraded

GREETING = [{"content": "Nice to meet you, Ada."}]
RECALL = [{"content": "You told me your name is Ada."}]


def requests_of(transcript: Path) -> list[dict]:
    return [json.loads(line) for line in transcript.read_text().splitlines()]


def two_processes_one_thread(tmp_path: Path, write_script, env: dict[str, str]) -> None:
    transcript = tmp_path / "requests.jsonl"
    env = {**env, "AGENTLOOP_SCRIPTED_TRANSCRIPT": str(transcript)}
    first = ask_json(
        "My name is Ada.", "--thread", "t-42", "--model", write_script(GREETING), env=env
    )
    assert first["status"] == "completed"
    assert first["text"] == "Nice to meet you, Ada."
    second = ask_json(
        "What is my name?", "--thread", "t-42", "--model", write_script(RECALL), env=env
    )
    assert second["status"] == "completed"
    assert second["thread_id"] == "t-42"
    assert second["run_id"] != first["run_id"]
    # The second process's model call received the first turn from the checkpoint.
    _, later = requests_of(transcript)
    contents = [m["data"]["content"] for m in later["messages"]]
    assert contents[1:] == ["My name is Ada.", "Nice to meet you, Ada.", "What is my name?"]


def test_thread_continues_across_processes_sqlite(tmp_path, write_script) -> None:
    env = {"AGENTLOOP_CHECKPOINTER": "sqlite", "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    two_processes_one_thread(tmp_path, write_script, upgraded(env))
    assert (tmp_path / "data" / "checkpoints.sqlite").exists()


@pytest.mark.postgres
def test_thread_continues_across_processes_postgres(tmp_path, write_script, pg_url) -> None:
    env = {"DATABASE_URL": pg_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    upgrade = agentloop("db", "upgrade", env=env)
    assert upgrade.returncode == 0, upgrade.stderr
    assert "postgres checkpointer tables migrated" in upgrade.stdout
    two_processes_one_thread(tmp_path, write_script, env)


def test_json_shape(tmp_path, write_script) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}}]},
            {"content": "Hanukkah 2026 runs Dec 5–12."},
        ]
    )
    env = upgraded({"AGENTLOOP_DATA_DIR": str(tmp_path / "data")})
    out = ask_json(
        "When is Hanukkah?", "--thread", "j", "--model", spec, "--today", "2026-11-22", env=env
    )
    assert set(out) == {"thread_id", "run_id", "status", "text", "tool_calls", "interrupts"}
    assert out["interrupts"] == []
    [call] = out["tool_calls"]
    assert set(call) == {"name", "args", "status", "result"}
    assert call["name"] == "resolve_holiday" and call["status"] == "ok"
    assert call["result"]["start"] == "2026-12-05"


def test_failed_run_exits_non_zero_without_traceback(tmp_path, write_script) -> None:
    env = upgraded({"AGENTLOOP_DATA_DIR": str(tmp_path / "data")})
    out = ask_json("hi", "--thread", "x", "--model", write_script([]), env=env)
    assert out["status"] == "failed"


def test_a_bad_model_exits_2_before_the_thread_is_touched(tmp_path, write_script) -> None:
    env = upgraded({"AGENTLOOP_DATA_DIR": str(tmp_path / "data")})
    for model in ("nonsense", f"scripted:{tmp_path}/missing.json"):
        proc = agentloop("ask", "hi", "--thread", "x", "--model", model, env=env)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert (
        "unknown model 'nonsense'"
        in agentloop("ask", "hi", "--thread", "x", "--model", "nonsense", env=env).stderr
    )
    # The thread never got the message: a working model sees an empty history.
    transcript = tmp_path / "requests.jsonl"
    recall = ask_json(
        "first?",
        "--thread",
        "x",
        "--model",
        write_script([{"content": "Yes, this is the first message."}]),
        env={**env, "AGENTLOOP_SCRIPTED_TRANSCRIPT": str(transcript)},
    )
    assert recall["status"] == "completed"
    [request] = requests_of(transcript)
    assert [m["data"]["content"] for m in request["messages"][1:]] == ["first?"]


def test_prepare_warms_only_a_model_that_learns_from_examples(tmp_path, write_script) -> None:
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    scripted = agentloop("prepare", "--model", write_script([]), env=env)
    assert scripted.returncode == 0 and "nothing to prepare" in scripted.stdout
    unknown = agentloop("prepare", "--model", "nonsense", env=env)
    assert unknown.returncode == 2 and "unknown model 'nonsense'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_an_id_no_store_can_hold_exits_2(tmp_path) -> None:
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    proc = agentloop("ask", "hi", "--thread", "t" * 10_000, env=env)
    assert proc.returncode == 2 and "thread id must be 1 to 256 characters" in proc.stderr


def test_an_empty_user_is_refused_like_an_empty_thread(tmp_path, write_script) -> None:
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    for args in (
        ("ask", "hi", "--thread", "t", "--user", "", "--model", write_script([])),
        ("resume", "--thread", "t", "--approve", "--user", ""),
        ("chat", "--thread", "t", "--user", ""),
    ):
        proc = agentloop(*args, env=env)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith("error: a user id must be 1 to 200 characters")
    thread = agentloop("ask", "hi", "--thread", "", env=env)
    assert thread.returncode == 2
    assert thread.stderr.startswith("error: a thread id must be 1 to 256 characters")


def test_bad_usage_exits_2(tmp_path) -> None:
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    assert agentloop("ask", "hi", env=env).returncode == 2  # --thread is required
    proc = agentloop("ask", "hi", "--thread", "x", "--role", "boss", env=env)
    assert proc.returncode == 2 and "Invalid value for '--role'" in proc.stderr
    assert "'boss' is not one of 'viewer'" in proc.stderr
    proc = agentloop("ask", "hi", "--thread", "x", "--today", "soon", env=env)
    assert proc.returncode == 2 and "Invalid value for '--today'" in proc.stderr
    proc = agentloop("chat", "--context-type", "novel", env=env)
    assert proc.returncode == 2 and "Invalid value for '--context-type'" in proc.stderr
    proc = agentloop("resume", "--thread", "x", "--approve", "--role", "owner", env=env)
    assert proc.returncode == 2 and "Invalid value for '--role'" in proc.stderr


def test_invalid_setting_is_one_line(tmp_path) -> None:
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data"), "AGENTLOOP_MAX_ROUNDS": "zero"}
    proc = agentloop("ask", "hi", "--thread", "x", env=env)
    assert proc.returncode == 2
    assert "invalid configuration: max_rounds" in proc.stderr
    assert "Traceback" not in proc.stderr
    # A value that is not the JSON its setting needs fails while parsing, before validation.
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data"), "AGENTLOOP_APPROVER_ROLES": "admin"}
    proc = agentloop("ask", "hi", "--thread", "x", env=env)
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr.startswith("error: invalid configuration") and "approver_roles" in proc.stderr
    )
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.postgres
def test_postgres_without_upgrade_says_so(tmp_path, write_script, pg_url) -> None:
    import psycopg

    fresh = pg_url + "_noup"
    admin_url = pg_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{fresh.rsplit("/", 1)[1]}"')
    try:
        env = {"DATABASE_URL": fresh, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
        proc = agentloop("ask", "hi", "--thread", "x", "--model", write_script(GREETING), env=env)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.endswith("is not migrated: run `agentloop db upgrade`\n")
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{fresh.rsplit("/", 1)[1]}" WITH (FORCE)')


def upgrade_and_seed_twice(env: dict[str, str]) -> None:
    upgrade = agentloop("db", "upgrade", env=env)
    assert upgrade.returncode == 0, upgrade.stderr
    assert "workspace database at the newest revision" in upgrade.stdout
    first = agentloop("seed", "--demo", env=env)
    assert first.returncode == 0, first.stderr
    assert "2 clients" in first.stdout and "6 kb_documents" in first.stdout
    again = agentloop("seed", "--demo", env=env)
    assert again.returncode == 0, again.stderr
    assert "already complete, nothing added" in again.stdout
    assert agentloop("db", "upgrade", env=env).returncode == 0


def test_upgrade_and_seed_on_an_empty_sqlite_file(tmp_path) -> None:
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    upgrade_and_seed_twice(env)
    assert (tmp_path / "data" / "workspace.sqlite").exists()


@pytest.mark.postgres
def test_upgrade_and_seed_on_an_empty_postgres_database(tmp_path, pg_url) -> None:
    import psycopg

    name = pg_url.rsplit("/", 1)[1] + "_cli"
    admin_url = pg_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        env = {
            "DATABASE_URL": pg_url.rsplit("/", 1)[0] + f"/{name}",
            "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
        }
        upgrade_and_seed_twice(env)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_seed_before_upgrade_says_what_to_do(tmp_path) -> None:
    env = {"AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    proc = agentloop("seed", "--demo", env=env)
    assert proc.returncode == 2
    assert "run `agentloop db upgrade`" in proc.stderr
    assert agentloop("seed", env=env).returncode == 2
