"""`db upgrade` and `seed`: set up the workspace database and the checkpointer, load data."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated

import typer
from rich.console import Console

from app.cli.config import settings_or_exit
from app.cli.options import VerboseOpt
from core.observability import logs
from core.settings import Settings

db_app = typer.Typer(help="Database set-up.", no_args_is_help=True)
out = Console()
err = Console(stderr=True)
logger = logging.getLogger(__name__)


@db_app.command("upgrade")
def db_upgrade(verbose: VerboseOpt = False) -> None:
    """Migrate the workspace database and set up the checkpointer's tables."""
    from checkpoints.savers import setup_checkpointer
    from core.db.migrate import upgrade

    settings = settings_or_exit()
    logs.configure(settings.data_dir, verbose)
    try:
        out.print(upgrade(settings))
        out.print(asyncio.run(setup_checkpointer(settings)))
    except Exception as exc:
        logger.exception("database upgrade failed")
        err.print(f"[red]error:[/] database upgrade failed: {exc}")
        raise typer.Exit(1) from None


def seed(
    demo: Annotated[bool, typer.Option("--demo", help="Load the demo workspace.")] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Load seed data into the workspace database (idempotent)."""
    from core.db.migrate import missing_tables

    if not demo:
        err.print("[red]error:[/] say what to load: --demo is the only seed so far")
        raise typer.Exit(2)
    settings = settings_or_exit()
    logs.configure(settings.data_dir, verbose)
    try:
        if missing_tables(settings):
            err.print("[red]error:[/] the workspace tables are missing: run `agentloop db upgrade`")
            raise typer.Exit(1)
        added = asyncio.run(_seed_demo(settings))
    except typer.Exit:
        raise
    except Exception as exc:
        logger.exception("seeding failed")
        err.print(f"[red]error:[/] seeding failed: {exc}")
        raise typer.Exit(1) from None
    summary = ", ".join(f"{count} {table}" for table, count in sorted(added.items()))
    out.print(f"demo workspace loaded ({summary or 'already complete, nothing added'})")


async def _seed_demo(settings: Settings) -> dict[str, int]:
    from core.db.engine import open_database
    from core.db.seed import seed_demo

    db = open_database(settings)
    try:
        return await seed_demo(db)
    finally:
        await db.dispose()
