"""`agentloop eval`: the shipped scenarios pass on the scripted model; failures are caught."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from app.cli.main import app
from app.eval.evaluate import evaluate
from app.eval.scenario import load_scenario
from core.settings import Settings
from tests.support.cli import agentloop
from tests.support.openai_stub import OpenAIStub, ToolCall, text, tools
from tools import hospitality

REFERENCES = {"agencyclaw", "orion", "hotel", "buildos", "goclaw"}
EVALUATION_PAGE = Path(__file__).resolve().parents[2] / "docs" / "evaluation.md"

# The coupon example, but expecting create_task to run without a confirmation.
UNCONFIRMED = """
description: expects a mutation to complete in one step, which the graph never allows
references: [agencyclaw]
steps:
  - say: create a coupon code for Garlic Press for Thorinox
    model:
      - tool_calls:
          - name: create_task
            args: {client: Thorinox, brand: Garlic Press, title: Coupon for Garlic Press}
      - content: never reached
    expect:
      status: completed
      outcomes: {create_task: ok}
rows:
  - table: tasks
    where: {title: Coupon for Garlic Press}
    count: 1
"""

WRONG_ROWS = """
description: the answer is right, the row count is not
references: [hotel]
steps:
  - say: Check availability for January 17-19
    model:
      - content: "Rooms are free January 17-19."
    expect:
      status: completed
rows:
  - table: bookings
    count: 99
"""

HOTEL = Path(hospitality.__file__).parent / "scenarios"


def run_eval(tmp_path: Path, *args: str) -> Any:
    return agentloop("eval", *args, env={"AGENTLOOP_DATA_DIR": str(tmp_path / "data")})


def test_every_shipped_scenario_passes_on_the_scripted_model(tmp_path: Path) -> None:
    proc = run_eval(tmp_path, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["model"] == "scripted"
    assert report["scenarios_total"] >= 20
    failed = {s["name"]: s["failures"] for s in report["scenarios"] if not s["passed"]}
    assert failed == {}
    assert report["pass_rate"] == 1.0
    covered = {ref for s in report["scenarios"] for ref in s["references"]}
    assert covered == REFERENCES
    for scenario in report["scenarios"]:
        assert scenario["llm_calls"] == sum(step["llm_calls"] for step in scenario["steps"])
        # The scripted model reports no usage: its tokens are estimates, and say so.
        assert scenario["tokens_estimated"] == (scenario["llm_calls"] > 0)
    by_name = {s["name"]: s for s in report["scenarios"]}
    coupon = by_name["coupon-create-task"]["steps"]
    assert [c["name"] for c in coupon[0]["tool_calls"]] == [
        "resolve_brand",
        "search_kb",
        "create_task",
    ]
    assert coupon[0]["proposals"] == ["create_task"]
    assert by_name["guard-blocks-injection"]["steps"][0]["llm_calls"] == 0


async def test_failing_scenarios_say_why(tmp_path: Path) -> None:
    scenarios = []
    for name, body in (("unconfirmed", UNCONFIRMED), ("wrong-rows", WRONG_ROWS)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(body, encoding="utf-8")
        scenarios.append(load_scenario(path))
    report = await evaluate(scenarios, Settings(_env_file=None))
    assert report.passed == 0 and report.pass_rate == 0.0
    unconfirmed, wrong_rows = report.scenarios
    step = "step 1 (say 'create a coupon code for Garlic Press...'): "
    assert unconfirmed.failures == [
        step + "status is 'needs_confirmation', expected 'completed'",
        step + "create_task ended pending_confirmation, expected ok",
        step + "the model was called 1 time(s) in this step; the script has 2 answer(s) for it",
    ]
    assert len(unconfirmed.steps) == 1 and unconfirmed.steps[0].seen.proposals
    # The steps passed, so the rows were counted: that is the only problem.
    assert wrong_rows.failures == ["bookings: 2 row(s), expected 99"]


def test_the_table_shows_each_scenario_and_the_exit_status_says_failed(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    shutil.copy(HOTEL / "hotel-dates-known.yaml", folder)
    (folder / "wrong-rows.yaml").write_text(WRONG_ROWS, encoding="utf-8")
    proc = run_eval(tmp_path, str(folder))
    assert proc.returncode == 1, proc.stderr
    rows = {line.split()[1]: line for line in proc.stdout.splitlines() if "│" in line}
    assert "PASS" in rows["hotel-dates-known"] and "FAIL" in rows["wrong-rows"]
    assert "FAIL wrong-rows" in proc.stdout
    assert "  - bookings: 2 row(s), expected 99" in proc.stdout
    assert "1/2 scenarios passed (50%) · 3 LLM calls · ~" in proc.stdout
    assert "~ estimated: the model reported no usage" in proc.stdout


def test_an_invalid_file_is_named_with_its_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "description: x\nreferences: [hotel]\n"
        "steps:\n  - say: hi\n    expect: {status: done}\n  - decide: edit\n",
        encoding="utf-8",
    )
    proc = run_eval(tmp_path, str(bad))
    assert proc.returncode == 2
    assert str(bad) in proc.stderr
    assert "steps[0].expect.status: Input should be 'completed'" in proc.stderr
    assert "steps[1]: Value error, decide: edit needs args" in proc.stderr
    assert proc.stdout == ""


def test_a_scripted_model_is_not_a_real_model() -> None:
    result = CliRunner().invoke(app, ["eval", "--model", "scripted:x.json"])
    assert result.exit_code == 2
    assert "--model takes a real model" in result.output


async def test_a_real_model_endpoint_ignores_the_scripts_and_reports_its_usage(
    tmp_path: Path,
) -> None:
    """The hotel scenario against an OpenAI-compatible server (a stub on loopback)."""
    scenario = load_scenario(HOTEL / "hotel-dates-known.yaml")
    availability = ToolCall(
        "get_availability", json.dumps({"check_in": "2027-01-17", "check_out": "2027-01-19"})
    )
    async with OpenAIStub(
        tools(availability), text("January 17-19: a Queen at $149 a night.")
    ) as stub:
        base = Settings(_env_file=None, openai_base_url=stub.base_url, model_max_retries=0)
        report = await evaluate([scenario], base, "openai:stub-model")
    assert [body["model"] for body in stub.bodies] == ["stub-model", "stub-model"]
    [result] = report.scenarios
    assert result.passed, result.failures
    assert report.model == "openai:stub-model"
    # The stub reports 11 prompt and 7 completion tokens per call.
    assert (result.llm_calls, result.input_tokens, result.output_tokens) == (2, 22, 14)
    assert not result.tokens_estimated


async def test_a_real_model_that_misses_an_expectation_fails(tmp_path: Path) -> None:
    scenario = load_scenario(HOTEL / "hotel-dates-known.yaml")
    async with OpenAIStub(text("I'm not sure, please call the front desk.")) as stub:
        base = Settings(_env_file=None, openai_base_url=stub.base_url, model_max_retries=0)
        report = await evaluate([scenario], base, "openai:stub-model")
    [result] = report.scenarios
    assert not result.passed
    assert any("tools called [], expected ['get_availability']" in f for f in result.failures)


async def test_the_documented_example_is_a_passing_scenario(tmp_path: Path) -> None:
    page = EVALUATION_PAGE.read_text(encoding="utf-8")
    example = page.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "documented-example.yaml"
    path.write_text(example, encoding="utf-8")
    report = await evaluate([load_scenario(path)], Settings(_env_file=None))
    [result] = report.scenarios
    assert result.passed, result.failures
    assert [c.name for c in result.steps[0].seen.calls] == [
        "resolve_brand",
        "search_kb",
        "create_task",
    ]
