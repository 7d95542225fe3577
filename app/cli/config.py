"""What every CLI command checks first, its settings and its request: a problem is one line.

Each exits with code 2 (bad usage or configuration), before anything is run.
"""

from __future__ import annotations

import typer
from rich.console import Console

from core.models import ModelConfigError
from core.settings import ConfigurationError, Settings, load_settings
from graph.runner import InvalidRequest, TurnRequest

err = Console(stderr=True, soft_wrap=True)


def settings_or_exit() -> Settings:
    """Return the settings, or print why they cannot be read and exit with code 2."""
    try:
        return load_settings()
    except ConfigurationError as exc:
        err.print(f"[red]error:[/] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from None


def request_or_exit(**values: str | None) -> TurnRequest:
    """Build the request, or say in one line why no run could serve it and exit 2."""
    try:
        return TurnRequest(**values)  # type: ignore[arg-type]
    except InvalidRequest as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None


def bad_model(exc: ModelConfigError) -> typer.Exit:
    """Say why the model cannot be used (one line) and return the exit 2 to raise."""
    err.print(f"[red]error:[/] {exc}", highlight=False)
    return typer.Exit(2)
