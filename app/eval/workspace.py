"""Fresh workspaces for scenarios: the demo workspace is seeded once and copied per scenario."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from app.eval.scenario import Scenario, ScenarioSettings
from core.db.engine import open_database
from core.settings import Settings
from tools.pack_data import seed_demo, upgrade_workspace
from tools.pack_loading import enabled

WORKSPACE_FILE = "workspace.sqlite"


async def build_template(folder: Path, base: Settings) -> Path:
    """Migrate and seed a demo workspace (SQLite) in `folder`; return its file."""
    path = folder / WORKSPACE_FILE
    settings = workspace_settings(base, folder)
    upgrade_workspace(settings)
    db = open_database(settings)
    try:
        await seed_demo(db, enabled(settings.packs))
    finally:
        await db.dispose()
    return path


# A scenario's outcome must not depend on the environment it runs in: these settings start
# from their defaults, and only the scenario's own `settings` change them. The model's
# settings (keys, base URL, timeouts, retries) still come from the deployment.
BEHAVIOUR_SETTINGS = (
    *ScenarioSettings.model_fields,
    "context_dir",
    "context_block_tokens",
    "turn_timeout_s",
    "tool_timeout_s",
    # A scenario runs in-process on its own workspace, never on a configured server.
    "graph_url",
)


def prepare(scenario: Scenario, template: Path, folder: Path, base: Settings) -> Settings:
    """Give the scenario its own copy of the workspace, checkpoints and context folder.

    Returns the settings it runs with: the deployment's model settings, the defaults of
    `BEHAVIOUR_SETTINGS` changed by the scenario's own, and its data in `folder`.
    """
    folder.mkdir(parents=True)
    shutil.copy(template, folder / WORKSPACE_FILE)
    overrides: dict[str, Any] = {
        name: Settings.model_fields[name].get_default(call_default_factory=True)
        for name in BEHAVIOUR_SETTINGS
    }
    overrides.update(scenario.settings.model_dump(exclude_none=True))
    if scenario.context_files:
        context = folder / "context"
        context.mkdir()
        for name, text in scenario.context_files.items():
            (context / name).write_text(text, encoding="utf-8")
        overrides["context_dir"] = context
    return workspace_settings(base, folder, **overrides)


def workspace_settings(base: Settings, folder: Path, **overrides: Any) -> Settings:
    """Return `base` with its workspace and checkpoints in SQLite files under `folder`."""
    values = {
        "data_dir": folder,
        "database_url": f"sqlite:///{folder / WORKSPACE_FILE}",
        "checkpointer": "sqlite",
        **overrides,
    }
    return base.model_copy(update=values)
