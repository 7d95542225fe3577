"""`resume` with a decision on a thread with no waiting change is refused for everyone.

After a lookup turn failed (its model ran out mid-turn), nothing waits for a decision: an
approval by the asker or by another member is refused (exit 3), with nothing run and no
decision recorded, and says how to carry the turn on; `resume --continue` does. On SQLite
and PostgreSQL.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import create_engine, text

from core.db.engine import sync_url
from core.settings import Settings
from tests.support.cli import ask_json, resume_json, upgraded

LOOKUP = {"tool_calls": [{"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}}]}
ANSWER = "Hanukkah starts on December 4, 2026."


def rows(url: str, statement: str) -> list[tuple[object, ...]]:
    engine = create_engine(sync_url(Settings(_env_file=None, database_url=url)))
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(statement))]
    finally:
        engine.dispose()


def test_an_approval_after_a_failed_lookup_is_refused_and_continue_carries_on(
    workspace_url: str, tmp_path: Path, write_script: Callable[..., str]
) -> None:
    env = upgraded({"DATABASE_URL": workspace_url, "AGENTLOOP_DATA_DIR": str(tmp_path / "data")})
    # The model runs out after the lookup: the turn fails with its act left to run.
    failed = ask_json("when is Hanukkah?", "--thread", "t-look", "--model",
                      write_script([LOOKUP]), env=env)  # fmt: skip
    assert failed["status"] == "failed", failed

    code, by_asker = resume_json("--thread", "t-look", "--approve", env=env)
    assert (code, by_asker["status"]) == (3, "refused"), by_asker
    assert "nothing waiting for your approval" in by_asker["text"]
    assert "agentloop resume --thread t-look --continue" in by_asker["text"]
    code, by_other = resume_json("--thread", "t-look", "--approve", "--user", "U0LINUS", env=env)
    assert (code, by_other["status"]) == (3, "refused"), by_other
    assert by_other["text"].startswith(f"Only {getpass.getuser()} or an admin can decide")
    assert rows(workspace_url, "select count(*) from confirmation_records") == [(0,)]
    refusals = rows(workspace_url, "select status from agent_runs where kind = 'resume'")
    assert refusals == [("refused",)] * 2

    carried_env = {**env, "AGENTLOOP_MODEL": write_script([{"content": ANSWER}])}
    code, carried = resume_json("--thread", "t-look", "--continue", env=carried_env)
    assert (code, carried["status"], carried["text"]) == (0, "completed", ANSWER), carried
    assert [c["name"] for c in carried["tool_calls"]] == ["resolve_holiday"]
    who = rows(workspace_url, "select decided_by from agent_runs where status = 'completed'")
    assert who == [(None,)]  # carrying on is no decision
