"""A scenario runs on its own copy of the workspace, with settings it does not inherit."""

from __future__ import annotations

from pathlib import Path

from app.eval.scenario import load_scenario
from app.eval.workspace import WORKSPACE_FILE, prepare
from core.settings import Settings

SCENARIO = """
description: d
references: [orion]
settings: {max_rounds: 2}
context_files: {policy.md: "# Policy"}
steps: [{say: hi}]
"""


def test_behaviour_comes_from_the_scenario_and_the_model_from_the_deployment(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    template = tmp_path / "template.sqlite"
    template.write_bytes(b"seeded")
    deployment = Settings(
        _env_file=None,
        input_guard="block",
        max_rounds=9,
        verify_judge=True,
        context_dir=tmp_path,
        openai_base_url="http://127.0.0.1:9/v1",
        model_timeout_s=5,
        database_url="postgresql://db.example/prod",
        checkpointer="postgres",
    )
    folder = tmp_path / "run"
    settings = prepare(load_scenario(path), template, folder, deployment)
    assert (settings.input_guard, settings.verify_judge, settings.max_rounds) == ("warn", False, 2)
    assert settings.context_dir == folder / "context"
    assert (folder / "context" / "policy.md").read_text() == "# Policy"
    assert (settings.openai_base_url, settings.model_timeout_s) == ("http://127.0.0.1:9/v1", 5)
    assert settings.database_url == f"sqlite:///{folder / WORKSPACE_FILE}"
    assert settings.checkpointer_kind() == "sqlite" and settings.data_dir == folder
    assert (folder / WORKSPACE_FILE).read_bytes() == b"seeded"
