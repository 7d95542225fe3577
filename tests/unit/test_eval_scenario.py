"""Scenario files: the format is validated, and a bad file names its field."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from app.eval.scenario import (
    SHIPPED,
    ScenarioFileError,
    ScenarioFilesError,
    load_all,
    load_scenario,
)
from tools.pack_loading import enabled

MINIMAL = "description: d\nreferences: [hotel]\nsteps:\n  - say: hi\n"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(path: Path) -> list[str]:
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    assert caught.value.path == path
    return caught.value.problems


def test_a_minimal_file_gets_its_name_and_defaults(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, "say-hi.yaml", MINIMAL))
    assert scenario.name == "say-hi"
    assert (scenario.user, scenario.role, scenario.today.isoformat()) == (
        "U0GRACE",
        "member",
        "2026-11-22",
    )
    assert scenario.source == str(tmp_path / "say-hi.yaml")
    assert scenario.steps[0].label == "say 'hi'" and scenario.script() == []


def test_field_errors_name_their_path(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "bad.yaml",
        "description: d\nreferences: [hotel, nasa]\nsteps:\n"
        "  - say: hi\n    model:\n      - tool_calls: [{name: x, argz: {}}]\n"
        "    expect: {text_matches: ['(']}\n",
    )
    problems = problems_of(path)
    assert problems[0].startswith("references[1]: Input should be 'agencyclaw'")
    assert "steps[0].model[0].tool_calls[0].argz: Extra inputs are not permitted" in problems
    assert any(
        p.startswith("steps[0].expect.text_matches: Value error, '(' is not a valid regular")
        for p in problems
    )


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("{say: hi, decide: approve}", "exactly one of say"),
        ("{}", "exactly one of say"),
        ("{decide: edit}", "decide: edit needs args"),
        ("{decide: approve, args: {title: x}}", "args go with decide: edit"),
        ("{decide: approve, reason: because}", "reason goes with decide: reject"),
        ("{say: hi, context_type: sales}", "must be one of general, client"),
    ],
)
def test_a_step_is_one_message_or_one_decision(tmp_path: Path, step: str, message: str) -> None:
    path = write(tmp_path, "s.yaml", f"description: d\nreferences: [hotel]\nsteps: [{step}]\n")
    [problem] = problems_of(path)
    assert problem.startswith("steps[0]") and message in problem


def test_row_counts_name_real_tables_and_columns(tmp_path: Path) -> None:
    # The agency pack's tables are known once its models are loaded, as `agentloop eval`
    # loads every enabled pack before it reads a scenario.
    importlib.import_module("tools.agency.models")
    rows = "rows:\n  - {table: taskz, count: 1}\n  - {table: tasks, where: {titel: x}, count: 1}\n"
    problems = problems_of(write(tmp_path, "r.yaml", MINIMAL + rows))
    assert problems[0].startswith("rows[0]: Value error, unknown table 'taskz'; tables: ")
    assert problems[1] == "rows[1]: Value error, table tasks has no column 'titel'"


def test_yaml_and_shape_errors(tmp_path: Path) -> None:
    [problem] = problems_of(write(tmp_path, "y.yaml", "steps: [say: hi"))
    assert problem.startswith("not valid YAML")
    [problem] = problems_of(write(tmp_path, "l.yaml", "- say: hi\n"))
    assert "must hold a mapping" in problem
    [problem] = problems_of(tmp_path / "missing.yaml")
    assert problem.startswith("cannot read it")
    problems = problems_of(write(tmp_path, "Bad Name.yaml", MINIMAL))
    assert problems == ["name: Value error, use lowercase letters, digits, '-' and '_'"]


def test_context_files_are_plain_markdown_names(tmp_path: Path) -> None:
    files = "context_files: {'../escape.md': x}\n"
    [problem] = problems_of(write(tmp_path, "c.yaml", MINIMAL + files))
    assert "plain names ending in .md" in problem


def test_all_bad_files_are_reported_together_and_names_must_differ(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", MINIMAL + "name: same\n")
    write(tmp_path, "b.yaml", MINIMAL + "name: same\n")
    write(tmp_path, "c.yml", "description: d\n")
    (tmp_path / "notes.txt").write_text("not a scenario", encoding="utf-8")
    with pytest.raises(ScenarioFilesError) as caught:
        load_all([tmp_path])
    [missing, duplicate] = caught.value.errors
    assert missing.path.name == "c.yml" and "references: Field required" in missing.problems
    assert duplicate.path.name == "b.yaml"
    assert duplicate.problems == [f"name: 'same' is also used by {tmp_path / 'a.yaml'}"]


def test_the_shipped_scenarios_load_and_cover_every_reference() -> None:
    folders = [SHIPPED, *(pack.scenarios for pack in enabled(None) if pack.scenarios)]
    scenarios, skipped = load_all(folders, {pack.name for pack in enabled(None)})
    assert len(scenarios) >= 30 and not skipped
    covered = {ref for s in scenarios for ref in s.references}
    assert covered == {"agencyclaw", "orion", "hotel", "buildos", "goclaw"}
