"""`db upgrade` and `seed`: set up the workspace database and the checkpointer, load data."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console

from app.cli.config import workspace_or_exit
from app.cli.options import VerboseOpt
from core.observability import logs
from core.settings import Settings
from tools.pack_loading import enabled, names
from tools.packs import Pack

db_app = typer.Typer(help="Database set-up.", no_args_is_help=True)
out = Console()
err = Console(stderr=True)
logger = logging.getLogger(__name__)


@db_app.command("upgrade")
def db_upgrade(verbose: VerboseOpt = False) -> None:
    """Migrate the runtime's and the enabled packs' tables, and set up the checkpointer's."""
    from checkpoints.savers import setup_checkpointer
    from tools.pack_data import upgrade_workspace

    settings = workspace_or_exit(migrated=False)
    logs.configure(settings.data_dir, verbose)
    try:
        out.print(upgrade_workspace(settings))
        out.print(asyncio.run(setup_checkpointer(settings)))
    except Exception as exc:
        logger.exception("database upgrade failed")
        raise typer.TyperException(f"database upgrade failed: {exc}") from None  # one line


def seed(
    demo: Annotated[bool, typer.Option("--demo", help="Load the demo workspace.")] = False,
    verbose: VerboseOpt = False,
) -> None:
    """Load seed data into the workspace database (idempotent)."""
    if not demo:
        err.print("[red]error:[/] say what to load: --demo is the only seed so far")
        raise typer.Exit(2)
    settings = workspace_or_exit()
    logs.configure(settings.data_dir, verbose)
    packs = enabled(settings.packs)
    seeded = [pack.name for pack in packs if pack.seed is not None]
    if not seeded:
        out.print(f"no demo data to load: the enabled packs ({names(packs)}) bring none")
        return
    try:
        added = asyncio.run(_seed_demo(settings, packs))
    except Exception as exc:
        logger.exception("seeding failed")
        raise typer.TyperException(f"seeding failed: {exc}") from None  # one line
    summary = ", ".join(f"{count} {table}" for table, count in sorted(added.items()))
    loaded = f"demo data of {', '.join(seeded)} loaded"
    out.print(f"{loaded} ({summary or 'already complete, nothing added'})")


async def _seed_demo(settings: Settings, packs: Sequence[Pack]) -> dict[str, int]:
    from core.db.engine import open_database
    from tools.pack_data import seed_demo

    db = open_database(settings)
    try:
        return await seed_demo(db, packs)
    finally:
        await db.dispose()
