"""A thumbs-down on the answer after an approved change drafts both steps; completed, it runs."""

from __future__ import annotations

from pathlib import Path

import yaml

from app.eval.evaluate import evaluate
from app.eval.feedback_drafts import rated_turns, write_drafts
from app.eval.scenario import ScenarioFileError, load_scenario
from core.db.engine import open_database
from core.observability.feedback import Vote, record_feedback
from core.observability.tracing import Tracing
from core.settings import Settings
from graph.runner import TurnRequest

TITLE = "Refresh the Garlic Press listing images"
ASK = "create a task to refresh the Garlic Press listing images for Thorinox"
CREATE = {
    "tool_calls": [
        {
            "name": "create_task",
            "args": {"client": "Thorinox", "brand": "Garlic Press", "title": TITLE},
        }
    ]
}
DONE = {"content": "Done."}


async def test_a_decided_turn_rated_down_is_drafted_and_runs_once_completed(
    durable, write_script, workspace_url: str, tmp_path: Path
) -> None:
    request = TurnRequest(thread_id="t-draft", user_id="U0GRACE", message=ASK)
    async with durable(write_script([CREATE, DONE])) as runner:
        asked = await runner.run_turn(request)
        assert asked.status == "needs_confirmation"
        done = await runner.resume(
            TurnRequest(thread_id="t-draft", user_id="U0GRACE", message=""),
            {"decision": "approve"},
        )
        assert done.status == "completed" and done.text == DONE["content"]
    db = open_database(Settings(_env_file=None, database_url=workspace_url))
    try:
        vote = Vote(done.run_id, "U0LINUS", "negative", "it should say which list", "cli")
        await record_feedback(db, Tracing(None), vote)
        [path] = [d.path for d in write_drafts(await rated_turns(db), tmp_path / "drafts")]
    finally:
        await db.dispose()

    draft = yaml.safe_load(path.read_text(encoding="utf-8"))
    asked_step, decided_step = draft["steps"]
    assert asked_step["say"] == ASK and asked_step["model"] == [CREATE]
    assert asked_step["expect"] == {"status": "needs_confirmation"}
    # The decision runs the change first: it is the rated step's call.
    assert decided_step["decide"] == "approve" and decided_step["model"] == [DONE]
    assert decided_step["expect"]["tools"] == ["create_task"]
    assert "U0LINUS (cli): it should say which list" in draft["description"]
    try:
        load_scenario(path)
        raise AssertionError("a draft loaded")
    except ScenarioFileError as exc:
        assert any(p.startswith("draft: Value error, still a draft") for p in exc.problems)

    del draft["draft"]
    right = f"Done: the task {TITLE} is in Thorinox's Amazon US - Garlic Press list."
    decided_step["model"] = [{"content": right}]
    decided_step["expect"]["text_contains"] = ["Amazon US - Garlic Press"]
    path.write_text(yaml.safe_dump(draft, sort_keys=False), encoding="utf-8")
    report = await evaluate([load_scenario(path)], Settings(_env_file=None))
    [result] = report.scenarios
    assert result.passed, result.failures
