"""The audit records every run (main and resume, messages, tool calls); `runs` reads it."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import create_engine, text

from core.db.engine import sync_url
from core.settings import Settings
from tests.support.cli import agentloop, ask_json

CREATE = {
    "tool_calls": [
        {
            "name": "create_task",
            "args": {"client": "Thorinox", "brand": "Garlic Press", "title": "Audit me"},
        }
    ]
}
WHERE_CREATE_TASK_WAS_CALLED = """
SELECT DISTINCT r.thread_id
FROM agent_runs r JOIN agent_skill_events e ON e.run_id = r.id
WHERE e.event_type = 'skill_call' AND e.skill_id = 'create_task'
"""


def test_runs_are_audited_and_listed(workspace_url: str, tmp_path: Path, write_script) -> None:
    env = {"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    assert agentloop("db", "upgrade", env=env).returncode == 0
    asked = ask_json(
        "make the task",
        "-t",
        "t-audit",
        "-u",
        "U0GRACE",
        "--model",
        write_script([CREATE]),
        env=env,
    )
    assert asked["status"] == "needs_confirmation"
    done_env = {**env, "AGENTLOOP_MODEL": write_script([{"content": "Done: created."}])}
    resumed = agentloop(
        "resume", "-t", "t-audit", "--approve", "-u", "U0ADMIN", "--role", "admin", env=done_env
    )
    assert resumed.returncode == 0, resumed.stderr
    other = ask_json(
        "hello", "-t", "t-other", "--model", write_script([{"content": "Hi."}]), env=env
    )
    assert other["status"] == "completed"

    engine = create_engine(sync_url(Settings(_env_file=None, database_url=workspace_url)))
    with engine.connect() as conn:
        threads = [row[0] for row in conn.execute(text(WHERE_CREATE_TASK_WAS_CALLED))]
        runs = conn.execute(
            text(
                "SELECT id, kind, parent_run_id, user_id, decided_by, status, trace_id"
                " FROM agent_runs WHERE thread_id = 't-audit' ORDER BY started_at"
            )
        ).all()
        results = conn.execute(
            text(
                "SELECT run_id, status, duration_ms FROM agent_skill_events"
                " WHERE event_type = 'skill_result' AND skill_id = 'create_task'"
            )
        ).all()
    engine.dispose()
    assert threads == ["t-audit"]
    main, resume = runs
    assert (
        main.kind == "main" and main.id == asked["run_id"] and main.status == "needs_confirmation"
    )
    assert resume.kind == "resume" and resume.parent_run_id == main.id
    assert resume.user_id == "U0GRACE" and resume.decided_by == "U0ADMIN"
    assert resume.status == "completed" and resume.trace_id == main.trace_id
    [(result_run, outcome, duration)] = results
    assert result_run == resume.id and outcome == "ok" and duration is not None

    listed = agentloop("runs", "list", "--tool", "create_task", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert [r["id"] for r in json.loads(listed.stdout)] == [main.id]
    by_status = json.loads(
        agentloop("runs", "list", "--status", "completed", "--json", env=env).stdout
    )
    assert {r["thread_id"] for r in by_status} == {"t-audit", "t-other"}

    shown = json.loads(agentloop("runs", "show", main.id[:12], "--json", env=env).stdout)
    assert [m["role"] for m in shown["messages"]] == ["human", "ai"]
    [call] = shown["tool_calls"]
    assert call["tool"] == "create_task" and call["status"] == "ok"
    assert "Audit me" in json.dumps(call["result"])
    [child] = shown["children"]
    assert child["id"] == resume.id
    assert [m["role"] for m in child["messages"]] == ["tool", "ai"]
    assert child["messages"][-1]["content"] == "Done: created."

    table = agentloop("runs", "show", main.id, env=env)
    assert table.returncode == 0 and "create_task" in table.stdout and "resume run" in table.stdout
    missing = agentloop("runs", "show", "no-such-run", env=env)
    assert missing.returncode == 1 and "no run" in missing.stderr
