"""SIGTERM (`docker stop`, systemd, Kubernetes) stops the CLI cleanly, mid-turn and mid-approval.

A real `agentloop` process is sent SIGTERM while its model call is under way. A turn that
ends within the grace period (`AGENTLOOP_SHUTDOWN_GRACE_S`) ends as usual; one that does not
is interrupted: the process says so with the run id and the command that carries the turn
on, records the run `interrupted` (none is left `running`), and exits 0. The change an
approval set off is made once, and carrying the turn on finishes it. On SQLite and
PostgreSQL.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.faults.conftest import Query
from tests.support.cli import ROOT, agentloop, ask_json
from tests.support.task_scripts import CREATE, TITLE

Script = Callable[[list[dict[str, Any]]], str]
SLOW = 60.0
"""A model call far longer than any grace period here: a stop has to interrupt it."""
EXIT_WITHIN_S = 30.0
"""Far past the grace period and the process's own shutdown: reaching it means it hung."""
DONE = "The task is in Thorinox's list."


def start(args: list[str], env: dict[str, str], *, stdin: bool = False) -> subprocess.Popen[str]:
    """Start `agentloop ARGS`; with `stdin`, its input is a pipe kept open (else the test's)."""
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        stdin=subprocess.PIPE if stdin else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def model_called(transcript: Path, calls: int, process: subprocess.Popen[str]) -> None:
    """Return once the scripted model received `calls` requests (the last one under way)."""
    deadline = time.monotonic() + 60
    while not transcript.exists() or len(transcript.read_text().splitlines()) < calls:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the model was never called"
        time.sleep(0.05)


def stopped(process: subprocess.Popen[str]) -> tuple[int, dict[str, Any]]:
    """Send SIGTERM; return the exit code and the one JSON object the process printed."""
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=EXIT_WITHIN_S)
    lines = out.strip().splitlines()
    assert len(lines) == 1, (out, err)
    return process.returncode, json.loads(lines[0])


def env_for(cli_env: dict[str, str], tmp_path: Path, grace: float) -> dict[str, str]:
    transcript = tmp_path / f"requests-{time.monotonic_ns()}.jsonl"
    return {
        **cli_env,
        "AGENTLOOP_SHUTDOWN_GRACE_S": str(grace),
        "AGENTLOOP_SCRIPTED_TRANSCRIPT": str(transcript),
    }


def test_sigterm_mid_turn_interrupts_it_and_a_resume_carries_it_on(
    cli_env: dict[str, str], query: Query, write_script: Script, tmp_path: Path
) -> None:
    env = env_for(cli_env, tmp_path, grace=0.5)
    slow = write_script([{"content": "Too late.", "delay_s": SLOW}])
    asking = start(["ask", "who owns Garlic Press?", "--thread", "t-term", "--model", slow,
                    "--json"], env)  # fmt: skip
    model_called(Path(env["AGENTLOOP_SCRIPTED_TRANSCRIPT"]), 1, asking)

    code, out = stopped(asking)

    assert code == 0, out
    assert out["status"] == "interrupted" and out["run_id"], out
    assert "agentloop resume --thread t-term --continue" in out["text"]
    assert query("select id, status from agent_runs") == [(out["run_id"], "interrupted")]
    owner = write_script([{"content": "Thorinox owns Garlic Press."}])
    proc = agentloop("resume", "--thread", "t-term", "--continue", "--json",
                     env={**cli_env, "AGENTLOOP_MODEL": owner})  # fmt: skip
    carried = json.loads(proc.stdout)
    assert proc.returncode == 0 and carried["status"] == "completed", proc.stderr
    assert carried["text"] == "Thorinox owns Garlic Press."
    assert [s for (s,) in query("select status from agent_runs where status = 'running'")] == []


def test_sigterm_mid_approval_makes_the_change_once_and_a_resume_finishes(
    cli_env: dict[str, str], query: Query, write_script: Script, tmp_path: Path
) -> None:
    asked = ask_json("create a task to refresh the images", "--thread", "t-term-2",
                     "--model", write_script([CREATE]), env=cli_env)  # fmt: skip
    assert asked["status"] == "needs_confirmation", asked
    env = env_for(cli_env, tmp_path, grace=0.5)
    # The approved change runs, then the model's call that reports it is under way.
    env["AGENTLOOP_MODEL"] = write_script([{"content": DONE, "delay_s": SLOW}])
    approving = start(["resume", "--thread", "t-term-2", "--approve", "--json"], env)
    model_called(Path(env["AGENTLOOP_SCRIPTED_TRANSCRIPT"]), 1, approving)

    code, out = stopped(approving)

    assert code == 0 and out["status"] == "interrupted", out
    tasks = f"select count(*) from tasks where title = '{TITLE}'"
    assert query(tasks) == [(1,)]
    assert query("select count(*) from agent_runs where status = 'running'") == [(0,)]
    done = {**cli_env, "AGENTLOOP_MODEL": write_script([{"content": DONE}])}
    proc = agentloop("resume", "--thread", "t-term-2", "--continue", "--json", env=done)
    finished = json.loads(proc.stdout)
    assert proc.returncode == 0 and finished["status"] == "completed", proc.stderr
    assert finished["text"] == DONE
    assert query(tasks) == [(1,)]


def test_a_turn_that_ends_within_the_grace_period_ends_as_usual(
    cli_env: dict[str, str], query: Query, write_script: Script, tmp_path: Path
) -> None:
    env = env_for(cli_env, tmp_path, grace=30)
    answer = "Thorinox owns Garlic Press."
    quick = write_script([{"content": answer, "delay_s": 2.0}])
    asking = start(["ask", "who owns Garlic Press?", "--thread", "t-grace", "--model", quick,
                    "--json"], env)  # fmt: skip
    model_called(Path(env["AGENTLOOP_SCRIPTED_TRANSCRIPT"]), 1, asking)

    code, out = stopped(asking)

    assert (code, out["status"], out["text"]) == (0, "completed", answer)
    assert query("select status from agent_runs") == [("completed",)]


def read_until(process: subprocess.Popen[str], text: str) -> str:
    """Read the process's output until `text` shows (a prompt ends without a newline).

    The pipe is read below its buffer: a buffered read takes in more than it returns, and
    `select` would then wait for output that has already come.
    """
    assert process.stdout is not None
    fd, seen = process.stdout.fileno(), b""
    deadline = time.monotonic() + 60
    while text.encode() not in seen:
        assert time.monotonic() < deadline, f"never saw {text!r}: {seen!r}"
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            chunk = os.read(fd, 4096)
            assert chunk, f"the process ended before {text!r}: {seen!r}"
            seen += chunk
    return seen.decode()


def test_sigterm_at_the_chat_prompt_ends_the_conversation(
    cli_env: dict[str, str], write_script: Script
) -> None:
    # Its input stays open, as a terminal's does: the prompt waits for a line that never comes.
    chatting = start(
        ["chat", "--thread", "t-chat", "--model", write_script([])], cli_env, stdin=True
    )
    read_until(chatting, "you>")
    chatting.send_signal(signal.SIGTERM)
    chatting.wait(timeout=EXIT_WITHIN_S)
    assert chatting.returncode == 0, chatting.communicate()
