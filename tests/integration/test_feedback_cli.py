"""A thumbs-down from the CLI becomes an evaluation case: rate, list, show, draft, complete, run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from tests.support.cli import agentloop, ask_json, upgraded

ASK = "what's still open for Thorinox?"
LOOKUP = {"tool_calls": [{"name": "list_tasks", "args": {"client": "Thorinox", "status": "open"}}]}
WRONG = {"content": "Thorinox has no open tasks right now."}
RIGHT = "One open Thorinox task: Refresh Garlic Press main images (Omar Haddad, due 2026-12-04)."


def test_a_negative_vote_is_listed_shown_and_drafted_into_a_scenario_that_runs(
    sqlite_template: Path, tmp_path: Path, write_script
) -> None:
    workspace = tmp_path / "workspace.sqlite"
    shutil.copy(sqlite_template, workspace)
    env = upgraded(
        {"DATABASE_URL": f"sqlite:///{workspace}", "AGENTLOOP_DATA_DIR": str(tmp_path / "data")}
    )
    model = write_script([LOOKUP, WRONG])
    asked = ask_json(ASK, "-t", "t-open", "-u", "U0GRACE", "--model", model, env=env)
    assert asked["status"] == "completed" and asked["text"] == WRONG["content"]
    run_id = asked["run_id"]

    neither = agentloop("runs", "feedback", run_id, env=env)
    assert neither.returncode == 2 and "--positive or --negative" in neither.stderr
    unknown = agentloop("runs", "feedback", "no-such-run", "--negative", env=env)
    assert unknown.returncode == 1 and "no run 'no-such-run'" in unknown.stderr
    rated = agentloop(
        "runs", "feedback", run_id[:12], "--negative", "--comment", "one task is open",
        "--user", "U0GRACE", "--json", env=env,
    )  # fmt: skip
    assert rated.returncode == 0, rated.stderr
    assert json.loads(rated.stdout)["run_id"] == run_id

    listed = json.loads(
        agentloop("runs", "list", "--feedback", "negative", "--json", env=env).stdout
    )
    assert [r["id"] for r in listed] == [run_id]
    assert [(v["person"], v["comment"]) for v in listed[0]["feedback"]] == [
        ("U0GRACE", "one task is open")
    ]
    assert (
        json.loads(agentloop("runs", "list", "--feedback", "positive", "--json", env=env).stdout)
        == []
    )
    shown = json.loads(agentloop("runs", "show", run_id, "--json", env=env).stdout)
    assert [(v["rating"], v["channel"]) for v in shown["feedback"]] == [("negative", "cli")]
    table = agentloop("runs", "show", run_id, env=env).stdout
    assert "feedback" in table and "one task is open" in table

    drafts = tmp_path / "drafts"
    written = agentloop("eval", "--from-feedback", "--out", str(drafts), env=env)
    assert written.returncode == 0, written.stderr
    [path] = sorted(drafts.iterdir())
    draft = yaml.safe_load(path.read_text(encoding="utf-8"))
    [step] = draft["steps"]
    assert step["say"] == ASK and step["model"] == [LOOKUP, WRONG]
    assert step["expect"]["tools"] == ["list_tasks"]
    assert any("TODO" in text for text in step["expect"]["text_contains"])
    assert "one task is open" in draft["description"]

    # As written it is a draft: refused, and it says what to do.
    refused = agentloop("eval", str(path), env=env)
    assert refused.returncode == 2 and "still a draft from feedback" in refused.stderr
    # A second --from-feedback keeps the file a person is completing.
    path.write_text(path.read_text(encoding="utf-8") + "# being completed\n", encoding="utf-8")
    again = agentloop("eval", "--from-feedback", "--out", str(drafts), env=env)
    assert again.returncode == 0 and "kept" in again.stdout
    assert path.read_text(encoding="utf-8").endswith("# being completed\n")

    # Completed: what should have happened, then run like any scenario.
    del draft["draft"]
    draft["description"] = "Open tasks are listed, not denied."
    step["model"][-1] = {"content": RIGHT}
    step["expect"]["text_contains"] = ["Refresh Garlic Press main images"]
    path.write_text(yaml.safe_dump(draft, sort_keys=False), encoding="utf-8")
    ran = agentloop("eval", str(path), "--json", env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    [scenario] = json.loads(ran.stdout)["scenarios"]
    assert scenario["passed"] and scenario["references"] == ["feedback"]
