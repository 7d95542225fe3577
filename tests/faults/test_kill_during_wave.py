"""SIGKILL in the middle of an approved tool wave: `resume` in a new process finishes it once.

Killed during the model call that follows an approved change is
tests/integration/test_confirm_cli.py::test_killed_after_approval_resumes_to_one_task.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from core.settings import Settings
from graph.runner import Runner, TurnRequest, TurnResult
from tests.faults.conftest import ON_POSTGRES, Query
from tests.support.cli import ROOT, agentloop, ask_json

THREAD = "t-kill-wave"
TITLE = "Welcome pack for the Garlic Press launch"
GUEST = "Dana Levi"
WAVE = {
    "tool_calls": [
        {
            "name": "create_task",
            "args": {"client": "Thorinox", "brand": "Garlic Press", "title": TITLE},
        },
        {
            "name": "create_booking",
            "args": {
                "room_type": "Queen",
                "check_in": "2027-06-01",
                "check_out": "2027-06-03",
                "guests": 2,
                "guest_name": GUEST,
            },
        },
        {"name": "get_availability", "args": {"check_in": "2027-06-01", "check_out": "2027-06-03"}},
    ]
}
DONE = {"content": "Done: the task is created and the Queen room is booked for Dana Levi."}


@contextmanager
def bookings_locked(url: str) -> Iterator[None]:
    """Hold every query on `bookings` until the block ends: a database that is slow to answer."""
    with psycopg.connect(url) as conn:
        conn.execute("lock table bookings in access exclusive mode")
        try:
            yield
        finally:
            conn.rollback()


def waiting_on_locks(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "select count(*) from pg_stat_activity "
            "where datname = current_database() and wait_event_type = 'Lock'"
        ).fetchone()
    return int(row[0]) if row else 0


def other_sessions(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "select count(*) from pg_stat_activity "
            "where datname = current_database() and pid <> pg_backend_pid()"
        ).fetchone()
    return int(row[0]) if row else 0


def until(condition: Callable[[], bool], what: str, victim: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert victim.poll() is None, victim.communicate()
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.1)


async def approve_in_process(workspace_url: str) -> TurnResult:
    async with Runner.open(Settings(_env_file=None, database_url=workspace_url)) as runner:
        return await runner.resume(TurnRequest(THREAD, "tester", ""), {"decision": "approve"})


def resume_json(env: dict[str, str]) -> dict[str, Any]:
    proc = agentloop("resume", "--thread", THREAD, "--approve", "--json", env=env)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    return json.loads(proc.stdout)


@ON_POSTGRES
def test_killed_while_the_wave_runs_resumes_with_each_change_once(
    workspace_url: str,
    cli_env: dict[str, str],
    query: Query,
    write_script: Callable[[list[dict[str, Any]]], str],
) -> None:
    tasks = f"select count(*) from tasks where title = '{TITLE}'"
    bookings = f"select count(*) from bookings where guest_name = '{GUEST}'"
    receipts = "select count(*) from mutation_receipts"
    asked = ask_json(
        "book Dana and make the task",
        "--thread",
        THREAD,
        "--model",
        write_script([WAVE]),
        env=cli_env,
    )
    assert asked["status"] == "needs_confirmation", asked
    assert [p["tool"] for p in asked["interrupts"][0]["proposals"]] == [
        "create_task",
        "create_booking",
    ]

    victim_env = {**os.environ, **cli_env, "AGENTLOOP_MODEL": write_script([DONE])}
    with bookings_locked(workspace_url):
        victim = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "resume", "--thread", THREAD, "--approve", "--json"],
            cwd=ROOT,
            env=victim_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            # The wave is under way: the task is committed, the booking and the availability
            # lookup wait on the locked table.
            until(lambda: query(tasks)[0][0] == 1, "the task is created", victim)
            until(lambda: waiting_on_locks(workspace_url) >= 2, "both wait on bookings", victim)
        finally:
            victim.send_signal(signal.SIGKILL)
            victim.wait()
    # The killed process's sessions end, rolling back the booking it had started.
    deadline = time.monotonic() + 30
    while other_sessions(workspace_url):
        assert time.monotonic() < deadline, "the killed process's sessions linger"
        time.sleep(0.1)
    assert [query(tasks)[0][0], query(bookings)[0][0], query(receipts)[0][0]] == [1, 0, 1]

    finished = resume_json({**cli_env, "AGENTLOOP_MODEL": write_script([DONE])})

    assert finished["status"] == "completed", finished
    assert finished["text"] == DONE["content"]
    calls = {call["name"]: call for call in finished["tool_calls"]}
    assert {name: call["status"] for name, call in calls.items()} == {
        "create_task": "ok",
        "create_booking": "ok",
        "get_availability": "ok",
    }
    assert calls["create_task"]["result"]["replayed"] is True
    assert calls["create_booking"]["result"]["guest_name"] == GUEST
    assert [query(tasks)[0][0], query(bookings)[0][0], query(receipts)[0][0]] == [1, 1, 2]
    # Nothing is left to finish: another approval is refused and changes nothing.
    assert asyncio.run(approve_in_process(workspace_url)).status == "refused"
    assert [query(tasks)[0][0], query(bookings)[0][0], query(receipts)[0][0]] == [1, 1, 2]
