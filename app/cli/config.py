"""What every CLI command checks first, its settings, its workspace and its request.

Each problem is a `BadStart`: one line, exit code 2, before anything is run.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from app.cli.bad_starts import BadStart
from checkpoints.savers import CheckpointerNotReadyError
from core.db.reachability import WorkspaceUnavailable, check, not_migrated, usable_directory
from core.models import ModelConfigError
from core.settings import ConfigurationError, Settings, load_settings
from graph.runner import InvalidRequest, TurnRequest
from tools.pack_data import branches
from tools.pack_loading import PackError, enabled

_err = Console(stderr=True, soft_wrap=True)


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
    data directory, an enabled pack that cannot be loaded and (with `migrated`) a database
    whose runtime or enabled packs' tables are not at their newest revision are each a
    `BadStart`.
    """
    settings = settings_or_exit()
    try:
        check(settings, migrated=migrated, branches=branches(enabled(settings.packs)))
    except (WorkspaceUnavailable, PackError) as exc:
        raise BadStart(str(exc)) from None
    return settings


def request_or_exit(**values: str | None) -> TurnRequest:
    """Build the request, or raise the `BadStart` that says why no run could serve it."""
    try:
        return TurnRequest(**values)  # type: ignore[arg-type]
    except InvalidRequest as exc:
        raise BadStart(str(exc)) from None


def warned(line: str) -> None:
    """Show a warning a command goes on after (an optional MCP server left out)."""
    _err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)


def cannot_open(
    settings: Settings, exc: ModelConfigError | CheckpointerNotReadyError | PackError
) -> BadStart:
    """Return the `BadStart` to raise when the runner cannot open (before a thread is touched).

    A model that cannot be used says why; missing checkpoint tables (the workspace's
    migrated, `db upgrade` stopped before the checkpointer's) say to upgrade.
    """
    if isinstance(exc, CheckpointerNotReadyError):
        return BadStart(not_migrated(settings, "its checkpoint tables are missing"))
    return BadStart(str(exc))
