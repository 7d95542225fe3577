"""MCP servers as packs through the CLI: reads answer, changes wait and run at most once.

The ticket desk (tests/support/mcp/tickets.py) runs as a real MCP server over stdio (started
by each `agentloop` process) or over streamable HTTP on loopback, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import ROOT, agentloop, ask_json, resume_json
from tests.support.mcp.desk import Desk

LIST = {"tool_calls": [{"name": "tickets__list_tickets", "args": {"status": "open"}}]}
CLOSE = {"tool_calls": [{"name": "tickets__close_ticket", "args": {"ticket": "42"}}]}
REOPEN = {"tool_calls": [{"name": "tickets__reopen_ticket", "args": {"ticket": "43"}}]}
ESCALATE = {"tool_calls": [{"name": "tickets__escalate_ticket", "args": {"ticket": "41"}}]}
OPEN = {"content": "Tickets 41 and 42 are open."}
CLOSED = {"content": "Ticket 42 is closed."}
TOLD = {"content": "I could not confirm that; please check the ticket desk."}


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    folder = tmp_path / "desk"
    folder.mkdir()
    return Desk(folder)


def env_for(workspace_url: str, tmp_path: Path, config: Path) -> dict[str, str]:
    env = {
        "DATABASE_URL": workspace_url,
        "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
        "AGENTLOOP_MCP_CONFIG": str(config),
    }
    upgrade = agentloop("db", "upgrade", env=env)
    assert upgrade.returncode == 0, upgrade.stderr
    return env


@contextmanager
def served(desk: Desk, transport: str, **settings: Any) -> Iterator[Path]:
    """A servers file naming the desk over `transport` (stdio, or HTTP started here)."""
    if transport == "stdio":
        yield desk.write_config({"tickets": desk.stdio(**settings)})
        return
    with desk.over_http() as url:
        yield desk.write_config(
            {"tickets": {"url": url, "transport": "streamable_http", **settings}}
        )


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_read_answers_and_a_change_waits_then_runs_once(
    transport: str, workspace_url: str, tmp_path: Path, desk: Desk, write_script
) -> None:
    with served(desk, transport, trust="annotations") as config:
        env = env_for(workspace_url, tmp_path, config)
        read = ask_json(
            "what's open?", "--thread", "r", "--model", write_script([LIST, OPEN]), env=env
        )
        assert read["status"] == "completed", read
        [call] = read["tool_calls"]
        assert call["status"] == "ok"
        assert {t["ticket"] for t in call["result"]["tickets"]} == {"41", "42"}

        asked = ask_json("close 42", "--thread", "c", "--model", write_script([CLOSE]), env=env)
        assert asked["status"] == "needs_confirmation", asked
        [proposal] = asked["interrupts"][0]["proposals"]
        assert proposal["tool"] == "tickets__close_ticket" and proposal["args"] == {"ticket": "42"}
        assert "marks this tool destructive" in proposal["description"]
        assert desk.calls("close_ticket") == []  # nothing runs before a person decides

        done_env = {**env, "AGENTLOOP_MODEL": write_script([CLOSED])}
        code, done = resume_json("--thread", "c", "--approve", env=done_env)
        assert code == 0 and done["status"] == "completed", done
        assert done["tool_calls"][0]["result"]["status"] == "closed"
        [closed] = desk.calls("close_ticket")
        assert closed["meta"]["idempotencyKey"].startswith("confirm:")
        assert desk.status("42") == "closed"

        again = resume_json("--thread", "c", "--approve", env=done_env)[1]
        assert again["status"] == "refused", again
        assert len(desk.calls("close_ticket")) == 1


def test_an_untrusted_server_waits_for_every_call_unless_listed_as_reading(
    workspace_url: str, tmp_path: Path, desk: Desk, write_script
) -> None:
    env = env_for(workspace_url, tmp_path, desk.write_config({"tickets": desk.stdio()}))
    asked = ask_json("what's open?", "--thread", "u", "--model", write_script([LIST]), env=env)
    assert asked["status"] == "needs_confirmation", asked
    assert "destructive" not in asked["interrupts"][0]["proposals"][0]["description"]
    assert desk.calls() == []

    listed = desk.write_config({"tickets": desk.stdio(reads=["list_tickets"])})
    read = ask_json(
        "what's open?",
        "--thread",
        "l",
        "--model",
        write_script([LIST, OPEN]),
        env={**env, "AGENTLOOP_MCP_CONFIG": str(listed)},
    )
    assert read["status"] == "completed" and len(desk.calls("list_tickets")) == 1


def test_a_viewer_never_reaches_a_change(
    workspace_url: str, tmp_path: Path, desk: Desk, write_script
) -> None:
    config = desk.write_config({"tickets": desk.stdio(trust="annotations", roles=["viewer"])})
    env = env_for(workspace_url, tmp_path, config)
    script = write_script([CLOSE, {"content": "You may not close tickets."}])
    asked = ask_json("close 42", "--thread", "v", "--role", "viewer", "--model", script, env=env)
    assert asked["status"] == "completed" and asked["interrupts"] == []
    assert asked["tool_calls"][0]["status"] == "refused"
    assert desk.calls() == []


def test_a_failed_change_is_read_by_the_model_and_not_called_again(
    workspace_url: str, tmp_path: Path, desk: Desk, write_script
) -> None:
    env = env_for(
        workspace_url, tmp_path, desk.write_config({"tickets": desk.stdio(trust="annotations")})
    )
    asked = ask_json("escalate 41", "--thread", "e", "--model", write_script([ESCALATE]), env=env)
    assert asked["status"] == "needs_confirmation"
    code, done = resume_json(
        "--thread", "e", "--approve", env={**env, "AGENTLOOP_MODEL": write_script([TOLD])}
    )
    assert code == 0, done
    [call] = done["tool_calls"]
    assert call["status"] == "error"
    assert "the on-call rota is empty this week" in call["result"]
    assert len(desk.calls("escalate_ticket")) == 1


def test_a_server_that_cannot_start_is_one_line(
    workspace_url: str, tmp_path: Path, desk: Desk, write_script
) -> None:
    broken = {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}
    env = env_for(workspace_url, tmp_path, desk.write_config({"broken": broken}))
    proc = agentloop("ask", "hi", "--thread", "b", "--model", write_script([OPEN]), env=env)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: MCP server 'broken' ({Path(sys.executable).name} -c raise SystemExit(3)) could "
        "not start: it exited before answering (its log may say why)"
    ]
    optional = desk.write_config({"broken": {**broken, "optional": True}})
    proc = agentloop(
        "ask",
        "hi",
        "--thread",
        "b",
        "--model",
        write_script([OPEN]),
        env={**env, "AGENTLOOP_MCP_CONFIG": str(optional)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "warning: MCP server 'broken'" in proc.stderr
    assert "its tools are left out (it is optional)" in proc.stderr


def _killed_mid_call(env: dict[str, str], desk: Desk, tool: str, thread: str, script: str) -> None:
    """Approve in a process that is killed while the server carries the call out."""
    victim = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "resume", "--thread", thread, "--approve", "--json"],
        cwd=ROOT,
        env={**env, "AGENTLOOP_MODEL": script},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 90
    while not desk.calls(tool) and time.monotonic() < deadline:
        time.sleep(0.1)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)
    assert len(desk.calls(tool)) == 1, "the call never reached the server"


def test_killed_during_an_approved_call_it_is_never_called_again(
    workspace_url: str, tmp_path: Path, desk: Desk, write_script
) -> None:
    slow = desk.write_config(
        {"tickets": desk.stdio(trust="annotations", env={"TICKETS_SLOW_S": "60"})}
    )
    env = env_for(workspace_url, tmp_path, slow)
    asked = ask_json("close 42", "--thread", "k", "--model", write_script([CLOSE]), env=env)
    assert asked["status"] == "needs_confirmation"
    _killed_mid_call(env, desk, "close_ticket", "k", write_script([CLOSED]))

    quick = desk.write_config({"tickets": desk.stdio(trust="annotations")})
    later_env = {**env, "AGENTLOOP_MCP_CONFIG": str(quick), "AGENTLOOP_MODEL": write_script([TOLD])}
    code, later = resume_json("--thread", "k", "--approve", env=later_env)
    assert code == 0 and later["status"] == "completed", later
    [call] = later["tool_calls"]
    assert call["status"] == "error"
    assert "the outcome of tickets__close_ticket is unknown" in call["result"]
    assert "will not be called again" in call["result"]
    assert len(desk.calls("close_ticket")) == 1


def test_an_idempotent_change_cut_off_is_tried_once_more_with_the_same_key(
    workspace_url: str, tmp_path: Path, desk: Desk, write_script
) -> None:
    slow = desk.write_config(
        {"tickets": desk.stdio(trust="annotations", env={"TICKETS_SLOW_S": "60"})}
    )
    env = env_for(workspace_url, tmp_path, slow)
    asked = ask_json("reopen 43", "--thread", "i", "--model", write_script([REOPEN]), env=env)
    assert asked["status"] == "needs_confirmation"
    _killed_mid_call(env, desk, "reopen_ticket", "i", write_script([CLOSED]))

    quick = desk.write_config({"tickets": desk.stdio(trust="annotations")})
    reopened = {"content": "Ticket 43 is open again."}
    later_env = {
        **env,
        "AGENTLOOP_MCP_CONFIG": str(quick),
        "AGENTLOOP_MODEL": write_script([reopened]),
    }
    code, later = resume_json("--thread", "i", "--approve", env=later_env)
    assert code == 0 and later["status"] == "completed", later
    assert later["tool_calls"][0]["status"] == "ok"
    first, second = desk.calls("reopen_ticket")
    assert first["meta"]["idempotencyKey"] == second["meta"]["idempotencyKey"]
    assert desk.status("43") == "open"
