"""Confirmation across processes: ask pauses, `resume` decides in a new process, once."""

from __future__ import annotations

import getpass
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import create_engine, func, select, text

from core.db.engine import sync_url
from core.settings import Settings
from tests.support.cli import ROOT, agentloop, ask_json, resume_json
from tools.agency.models import Task

TITLE = "Refresh the Garlic Press listing images"
CREATE = {
    "tool_calls": [
        {
            "name": "create_task",
            "args": {"client": "Thorinox", "brand": "Garlic Press", "title": TITLE},
        }
    ]
}
DONE = {"content": "Done: the task is created."}


def env_for(workspace_url: str, tmp_path: Path) -> dict[str, str]:
    env = {"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    upgrade = agentloop("db", "upgrade", env=env)
    assert upgrade.returncode == 0, upgrade.stderr
    return env


def task_count(workspace_url: str) -> int:
    engine = create_engine(sync_url(Settings(_env_file=None, database_url=workspace_url)))
    try:
        with engine.connect() as conn:
            statement = select(func.count()).select_from(Task).where(Task.title == TITLE)
            return conn.execute(statement).scalar_one()
    finally:
        engine.dispose()


def test_ask_then_resume_in_new_processes(workspace_url, tmp_path, write_script) -> None:
    env = env_for(workspace_url, tmp_path)
    asked = ask_json("make the task", "--thread", "t1", "--model", write_script([CREATE]), env=env)
    assert asked["status"] == "needs_confirmation"
    [proposal] = asked["interrupts"][0]["proposals"]
    assert proposal["tool"] == "create_task" and proposal["args"]["title"] == TITLE
    assert task_count(workspace_url) == 0

    model_env = {**env, "AGENTLOOP_MODEL": write_script([DONE])}
    code, done = resume_json("--thread", "t1", "--approve", env=model_env)
    assert code == 0 and done["status"] == "completed", done
    assert done["text"] == DONE["content"]
    assert task_count(workspace_url) == 1

    code, again = resume_json("--thread", "t1", "--approve", env=model_env)
    assert code == 3 and again["status"] == "refused"
    assert "nothing waiting" in again["text"]
    assert task_count(workspace_url) == 1


def test_yes_in_the_thread_executes(workspace_url, tmp_path, write_script) -> None:
    env = env_for(workspace_url, tmp_path)
    ask_json("make the task", "--thread", "t2", "--model", write_script([CREATE]), env=env)
    yes = ask_json("yes, create it", "--thread", "t2", "--model", write_script([DONE]), env=env)
    assert yes["status"] == "completed" and yes["tool_calls"][0]["status"] == "ok"
    assert task_count(workspace_url) == 1


def test_refusals_exit_3_and_change_nothing(workspace_url, tmp_path, write_script) -> None:
    env = env_for(workspace_url, tmp_path)
    ask_json("make the task", "--thread", "t3", "--model", write_script([CREATE]), env=env)
    code, other = resume_json("--thread", "t3", "--approve", "--user", "mallory", env=env)
    assert code == 3 and "can decide" in other["text"]
    code, bad = resume_json("--thread", "t3", "--edit-args", '{"title": ""}', env=env)
    assert code == 3 and "title" in bad["text"]
    usage = agentloop("resume", "--thread", "t3", "--approve", "--reject", env=env)
    assert usage.returncode == 2 and "exactly one" in usage.stderr
    assert task_count(workspace_url) == 0


def _spawn_resume(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "resume", "--thread", "t-race", "--approve", "--json"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


ON_POSTGRES = pytest.mark.parametrize(
    "workspace_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


@ON_POSTGRES
def test_two_processes_approving_at_once_create_one_task(
    workspace_url, tmp_path, write_script
) -> None:
    pg_workspace_url = workspace_url
    env = env_for(pg_workspace_url, tmp_path)
    ask_json("make the task", "--thread", "t-race", "--model", write_script([CREATE]), env=env)
    racers = [_spawn_resume({**env, "AGENTLOOP_MODEL": write_script([DONE])}) for _ in range(2)]
    outputs = [racer.communicate(timeout=120) for racer in racers]
    results = [json.loads(stdout) for stdout, _ in outputs]
    assert {r["status"] for r in results} <= {"completed", "refused"}, outputs
    assert "completed" in {r["status"] for r in results}, outputs
    assert task_count(pg_workspace_url) == 1
    with psycopg.connect(pg_workspace_url) as conn:
        receipts = conn.execute("select count(*) from mutation_receipts").fetchone()
    assert receipts == (1,)


def _killed_after_approval(workspace_url: str, env: dict[str, str], write_script) -> None:
    """Propose in thread t-kill, approve, and kill the approving process after the change."""
    ask_json("make the task", "--thread", "t-kill", "--model", write_script([CREATE]), env=env)
    slow = write_script([{"content": "Done.", "delay_s": 60}])
    victim = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "resume", "--thread", "t-kill", "--approve", "--json"],
        cwd=ROOT,
        env={**os.environ, **env, "AGENTLOOP_MODEL": slow},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while task_count(workspace_url) == 0:
            assert victim.poll() is None, victim.communicate()
            assert time.monotonic() < deadline, "the approved task never appeared"
            time.sleep(0.1)
        time.sleep(0.5)  # into the slow model call that follows the tool
    finally:
        victim.send_signal(signal.SIGKILL)
        victim.wait()
    assert task_count(workspace_url) == 1


def _runs(workspace_url: str, thread: str) -> list[tuple[str, str, str | None]]:
    """The thread's runs in order: kind, status, who decided."""
    engine = create_engine(sync_url(Settings(_env_file=None, database_url=workspace_url)))
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "select kind, status, decided_by from agent_runs where thread_id = :thread"
                    " order by started_at"
                ),
                {"thread": thread},
            ).all()
    finally:
        engine.dispose()
    return [tuple(row) for row in rows]


def test_killed_after_approval_resumes_to_one_task(workspace_url, tmp_path, write_script) -> None:
    pg_workspace_url = workspace_url
    env = env_for(pg_workspace_url, tmp_path)
    _killed_after_approval(pg_workspace_url, env, write_script)

    code, finished = resume_json(
        "--thread", "t-kill", "--approve", env={**env, "AGENTLOOP_MODEL": write_script([DONE])}
    )
    assert code == 0 and finished["status"] == "completed", finished
    assert finished["text"] == DONE["content"]
    assert task_count(pg_workspace_url) == 1
    engine = create_engine(sync_url(Settings(_env_file=None, database_url=pg_workspace_url)))
    try:
        with engine.connect() as conn:
            receipts = conn.execute(text("select count(*) from mutation_receipts")).one()
            results = conn.execute(
                text(
                    "select e.run_id, e.payload from agent_skill_events e"
                    " where e.thread_id = 't-kill' and e.skill_id = 'create_task'"
                    " and e.event_type = 'skill_result'"
                )
            ).all()
    finally:
        engine.dispose()
    assert tuple(receipts) == (1,)
    # The killed run is closed as interrupted, and the change it made has its result
    # recorded (from its receipt: the run died before writing its audit rows).
    assert [run[:2] for run in _runs(pg_workspace_url, "t-kill")] == [
        ("main", "needs_confirmation"),
        ("resume", "interrupted"),
        ("resume", "completed"),
    ]
    [(_run, payload)] = results
    result = payload if isinstance(payload, dict) else json.loads(payload)
    assert result["from_receipt"] is True and result["result"]["status"] == "created"


def test_chat_asks_inline_and_runs_the_approved_change(
    workspace_url, tmp_path, write_script
) -> None:
    env = {**env_for(workspace_url, tmp_path), "AGENTLOOP_MODEL": write_script([CREATE, DONE])}
    proc = agentloop("chat", "--thread", "c1", env=env, stdin="make the task\ny\n\n")
    assert proc.returncode == 0, proc.stderr
    assert "Shall I go ahead?" in proc.stdout
    assert "approve? [y]es / [n]o / [e]dit" in proc.stdout
    assert DONE["content"] in proc.stdout
    assert task_count(workspace_url) == 1


def test_chat_takes_a_rejections_reason_from_its_line_and_reads_the_next_as_a_message(
    workspace_url, tmp_path, write_script
) -> None:
    left = {"content": "OK, I left it undone."}
    hello = {"content": "Hello again! What next?"}
    env = {
        **env_for(workspace_url, tmp_path),
        "AGENTLOOP_MODEL": write_script([CREATE, left, hello]),
    }
    stdin = "make the task\nno, wrong client\nhello\n"
    proc = agentloop("chat", "--thread", "c4", env=env, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert "reason (optional)" not in proc.stdout
    # The line after the "no" is the person's next message, not a reason the prompt took.
    assert left["content"] in proc.stdout and hello["content"] in proc.stdout
    assert task_count(workspace_url) == 0
    engine = create_engine(sync_url(Settings(_env_file=None, database_url=workspace_url)))
    try:
        with engine.connect() as conn:
            payloads = (
                conn.execute(
                    text(
                        "select payload from agent_skill_events where thread_id = 'c4'"
                        " and skill_id = 'create_task' and event_type = 'skill_result'"
                    )
                )
                .scalars()
                .all()
            )
    finally:
        engine.dispose()
    assert "wrong client" in json.dumps(payloads, default=str)


def test_chat_ends_at_quit_without_sending_it_or_what_follows(
    workspace_url, tmp_path, write_script
) -> None:
    hello = {"content": "Hello! What can I do for you?"}
    env = {**env_for(workspace_url, tmp_path), "AGENTLOOP_MODEL": write_script([hello])}
    stdin = "hello\n/quit\nmake the task\n"
    proc = agentloop("chat", "--thread", "c3", env=env, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    # One model call (the script holds one answer): neither "/quit" nor the line after it ran.
    assert hello["content"] in proc.stdout
    assert "called a 2nd time" not in proc.stdout + proc.stderr
    assert task_count(workspace_url) == 0


def test_chat_ending_at_the_prompt_leaves_the_change_waiting(
    workspace_url, tmp_path, write_script
) -> None:
    env = {**env_for(workspace_url, tmp_path), "AGENTLOOP_MODEL": write_script([CREATE])}
    proc = agentloop("chat", "--thread", "c2", env=env, stdin="make the task\n")
    assert proc.returncode == 0, proc.stderr
    assert "still waiting" in proc.stdout
    assert task_count(workspace_url) == 0
    answer = write_script([{"content": "OK, I left it undone."}])
    code, later = resume_json("--thread", "c2", "--reject", env={**env, "AGENTLOOP_MODEL": answer})
    assert code == 0 and later["status"] == "completed", later
    assert later["tool_calls"][0]["status"] == "rejected"


def test_a_change_inside_the_planner_resumes_in_a_new_process(
    workspace_url, tmp_path, write_script
) -> None:
    env = env_for(workspace_url, tmp_path)
    plan = {"tool_calls": [{"name": "create_plan", "args": {"objective": "Onboard Garlic Press"}}]}
    steps = {"content": json.dumps({"steps": ["Check the mapping", "Create the task"]})}
    lookup = {"tool_calls": [{"name": "resolve_brand", "args": {"brand": "Garlic Press"}}]}
    asked = ask_json(
        "onboard Garlic Press",
        "--thread",
        "t-plan",
        "--model",
        write_script([plan, steps, lookup, {"content": "Mapped."}, CREATE]),
        env=env,
    )
    assert asked["status"] == "needs_confirmation", asked
    [proposal] = asked["interrupts"][0]["proposals"]
    assert proposal["tool"] == "create_task"

    model = write_script([{"content": "Created."}, {"content": "Onboarded Garlic Press."}])
    resumed = agentloop(
        "resume", "--thread", "t-plan", "--approve", env={**env, "AGENTLOOP_MODEL": model}
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "Onboarded Garlic Press." in resumed.stdout
    # The live status lists each tool call the resumed process ran: only the approved one.
    assert "create_task(" in resumed.stderr and "resolve_brand(" not in resumed.stderr
    assert task_count(workspace_url) == 1


def test_refused_decisions_after_a_killed_run_close_it(
    workspace_url, tmp_path, write_script
) -> None:
    env = env_for(workspace_url, tmp_path)
    _killed_after_approval(workspace_url, env, write_script)
    asker = getpass.getuser()
    assert _runs(workspace_url, "t-kill") == [
        ("main", "needs_confirmation", None),
        ("resume", "running", asker),
    ]
    code, other = resume_json("--thread", "t-kill", "--approve", "--user", "mallory", env=env)
    assert code == 3 and "can decide" in other["text"], other
    code, late = resume_json("--thread", "t-kill", "--reject", env=env)
    assert code == 3 and "already approved" in late["text"], late
    # Each refused decision is a run of its own (who tried is on record); the first closes
    # the run the killed process left running. Nothing ran a second time.
    assert _runs(workspace_url, "t-kill") == [
        ("main", "needs_confirmation", None),
        ("resume", "interrupted", asker),
        ("resume", "refused", "mallory"),
        ("resume", "refused", asker),
    ]
    assert task_count(workspace_url) == 1
