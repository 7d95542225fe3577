"""What every CLI command checks first, its settings, its workspace and its request.

Each problem is a `BadStart`: one line, exit code 2, before anything is run.
"""

from __future__ import annotations

from app.cli.bad_starts import BadStart
from checkpoints.savers import CheckpointerNotReadyError
from core.db.reachability import WorkspaceUnavailable, check, not_migrated, usable_directory
from core.models import ModelConfigError
from core.settings import ConfigurationError, Settings, load_settings
from graph.runner import InvalidRequest, TurnRequest


def settings_or_exit() -> Settings:
    """Return the settings, or raise the `BadStart` that says why they cannot be used.

    Every command logs under the data directory, so it must be a directory one can write in.
    """
    try:
        settings = load_settings()
        usable_directory(settings.data_dir, "the data directory")
    except (ConfigurationError, WorkspaceUnavailable) as exc:
        raise BadStart(str(exc)) from None
    return settings


def workspace_or_exit(*, migrated: bool = True) -> Settings:
    """Return the settings once the workspace can be used (`core.db.reachability.check`).

    Checked once, before any pool opens: a missing or unreachable database, an unusable
    data directory and (with `migrated`) a database not at the newest revision are each a
    `BadStart`.
    """
    settings = settings_or_exit()
    try:
        check(settings, migrated=migrated)
    except WorkspaceUnavailable as exc:
        raise BadStart(str(exc)) from None
    return settings


def request_or_exit(**values: str | None) -> TurnRequest:
    """Build the request, or raise the `BadStart` that says why no run could serve it."""
    try:
        return TurnRequest(**values)  # type: ignore[arg-type]
    except InvalidRequest as exc:
        raise BadStart(str(exc)) from None


def cannot_open(settings: Settings, exc: ModelConfigError | CheckpointerNotReadyError) -> BadStart:
    """Return the `BadStart` to raise when the runner cannot open (before a thread is touched).

    A model that cannot be used says why; missing checkpoint tables (the workspace's
    migrated, `db upgrade` stopped before the checkpointer's) say to upgrade.
    """
    if isinstance(exc, CheckpointerNotReadyError):
        return BadStart(not_migrated(settings, "its checkpoint tables are missing"))
    return BadStart(str(exc))
