"""A team's own pack, from its own distribution, on every surface under the same promises.

tests/support/acme_pack is a distribution outside this repository's packages (its own
pyproject.toml and entry point). It is built and installed into a folder put on the
processes' path, found through the `agentloop.packs` entry points, enabled with
`AGENTLOOP_PACKS`, migrated, seeded, and used through the CLI and Studio: its read answers,
its change waits for approval and runs once, and the audit records both.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph_sdk import get_client
from sqlalchemy import create_engine, text

from core.db.engine import sync_url
from core.settings import Settings
from tests.server.conftest import serve
from tests.support.cli import ROOT, agentloop, ask_json, resume_json

PACK_SOURCE = ROOT / "tests" / "support" / "acme_pack"
LIST = {"tool_calls": [{"name": "list_support_tickets", "args": {"status": "open"}}]}
CLOSE = {"tool_calls": [{"name": "close_support_ticket", "args": {"ticket": 1}}]}
CLOSE_2 = {"tool_calls": [{"name": "close_support_ticket", "args": {"ticket": 2}}]}


@pytest.fixture(scope="session")
def acme_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """acme-support built and installed (as pip installs any distribution) into a folder."""
    site = tmp_path_factory.mktemp("acme-site")
    source = tmp_path_factory.mktemp("acme-build") / "acme_pack"
    shutil.copytree(PACK_SOURCE, source)  # built outside the repository, as pip builds it
    installed = subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
            "--no-build-isolation", "--target", str(site), str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    assert (site / "acme_support-1.0.0.dist-info" / "entry_points.txt").exists()
    return site


def rows(workspace_url: str, query: str) -> list[tuple]:
    engine = create_engine(sync_url(Settings(_env_file=None, database_url=workspace_url)))
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(query))]
    finally:
        engine.dispose()


def test_a_pack_from_its_own_distribution_works_through_the_cli(
    acme_site: Path, workspace_url: str, tmp_path: Path, write_script
) -> None:
    env = {
        "PYTHONPATH": str(acme_site),
        "DATABASE_URL": workspace_url,
        "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
        "AGENTLOOP_PACKS": "calendar,acme_support",
    }
    listed = json.loads(agentloop("tools", "--json", env=env).stdout)
    [acme] = [p for p in listed["packs"] if p["name"] == "acme_support"]
    assert acme["status"] == "enabled" and acme["from"].startswith("acme-support 1.0.0")
    offered = {t["name"]: t for t in listed["tools"]}
    assert offered["close_support_ticket"]["kind"] == "changes"
    assert offered["close_support_ticket"]["from"] == "acme-support 1.0.0"
    assert "create_task" not in offered  # the agency pack is not enabled

    for command in (("db", "upgrade"), ("seed", "--demo")):
        proc = agentloop(*command, env=env)
        assert proc.returncode == 0, proc.stderr
    assert "demo data of acme_support loaded (2 acme_support_tickets)" in proc.stdout

    script = write_script([LIST, {"content": "Tickets 1 and 2 are open."}])
    read = ask_json("which tickets are open?", "--thread", "r", "--model", script, env=env)
    assert read["status"] == "completed"
    assert [t["customer"] for t in read["tool_calls"][0]["result"]["tickets"]] == [
        "Globex",
        "Initech",
    ]

    asked = ask_json("close ticket 1", "--thread", "c", "--model", write_script([CLOSE]), env=env)
    assert asked["status"] == "needs_confirmation"
    still = "select status from acme_support_tickets where id = 1"
    assert rows(workspace_url, still) == [("open",)]
    done_env = {**env, "AGENTLOOP_MODEL": write_script([{"content": "Ticket 1 is closed."}])}
    code, done = resume_json("--thread", "c", "--approve", env=done_env)
    assert code == 0 and done["status"] == "completed", done
    code, again = resume_json("--thread", "c", "--approve", env=done_env)
    assert again["status"] == "refused"

    closed = "select status, closed_by from acme_support_tickets where id = 1"
    assert rows(workspace_url, closed) == [("closed", getpass.getuser())]
    assert rows(
        workspace_url, "select count(*) from mutation_receipts where tool = 'close_support_ticket'"
    ) == [(1,)]
    audited = rows(
        workspace_url,
        "select event_type from agent_skill_events where skill_id = 'close_support_ticket' "
        "and thread_id = 'c' order by id",
    )
    assert ("skill_call",) in audited and ("skill_result",) in audited


def test_calendar_alone_has_no_agency_tables_and_offers_only_its_tools(
    tmp_path: Path, write_script
) -> None:
    transcript = tmp_path / "requests.jsonl"
    env = {
        "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
        "AGENTLOOP_PACKS": "calendar",
        "AGENTLOOP_SCRIPTED_TRANSCRIPT": str(transcript),
    }
    assert agentloop("db", "upgrade", env=env).returncode == 0
    workspace = f"sqlite:///{tmp_path / 'data' / 'workspace.sqlite'}"
    tables = rows(workspace, "select name from sqlite_master where type = 'table'")
    names = {name for (name,) in tables}
    assert "agent_runs" in names and "team_members" in names
    assert not names & {"clients", "brands", "tasks", "rooms", "bookings"}
    script = write_script([{"content": "Hanukkah starts on December 4."}])
    proc = agentloop(
        "chat", "--thread", "cal", "--model", script, env=env, stdin="when is Hanukkah?\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "Hanukkah starts on December 4." in proc.stdout
    [request] = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert set(request["tools"]) <= {
        "create_plan",
        "load_prior_skill_result",
        "resolve_date_hint",
        "resolve_holiday",
    }
    assert "resolve_holiday" in request["tools"]


@pytest.fixture(scope="module")
def acme_server(
    acme_site: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[object, str]]:
    """`langgraph dev` with acme-support on its path and enabled, over a fresh workspace."""
    home = tmp_path_factory.mktemp("acme-dev-server")
    workspace = f"sqlite:///{home / 'workspace.sqlite'}"
    settings = {"PYTHONPATH": str(acme_site), "AGENTLOOP_PACKS": "acme_support"}
    env = {**os.environ, **settings, "DATABASE_URL": workspace, "AGENTLOOP_DATA_DIR": str(home)}
    for command in (("db", "upgrade"), ("seed", "--demo")):
        assert agentloop(*command, env=env).returncode == 0
    with serve(home, workspace, [], settings) as server:
        yield server, workspace


async def test_a_pack_from_its_own_distribution_works_in_studio(
    acme_server: tuple[object, str], write_script
) -> None:
    server, workspace = acme_server
    client = get_client(url=server.url)  # type: ignore[attr-defined]
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(
        thread_id,
        "agent",
        input={"messages": [{"type": "human", "content": "close ticket 2"}]},
        context={"model": write_script([CLOSE_2])},
    )
    [interrupt] = (await client.threads.get_state(thread_id))["interrupts"]
    assert interrupt["value"]["proposals"][0]["tool"] == "close_support_ticket"
    command = {"resume": {interrupt["id"]: {"decision": "approve"}}}
    for _ in range(2):  # the same approval twice: one change
        done = write_script([{"content": "Ticket 2 is closed."}])
        await client.runs.wait(thread_id, "agent", command=command, context={"model": done})
    assert rows(workspace, "select status from acme_support_tickets where id = 2") == [("closed",)]
    assert rows(
        workspace, "select count(*) from mutation_receipts where tool = 'close_support_ticket'"
    ) == [(1,)]
