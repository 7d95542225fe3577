"""The enabled packs' tables and demo data: `agentloop db upgrade` and `agentloop seed --demo`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from core.db.engine import Database
from core.db.migrate import Branch, upgrade
from core.settings import Settings
from tools.pack_loading import PackError, declared, enabled, installed
from tools.packs import Pack


def branches(packs: Iterable[Pack]) -> list[Branch]:
    """The migration branches of the packs that have tables."""
    return [Branch(pack.name, pack.migrations) for pack in packs if pack.migrations is not None]


def upgrade_workspace(settings: Settings) -> str:
    """Migrate the runtime's tables and exactly the enabled packs' (`AGENTLOOP_PACKS`).

    Every other installed pack's migrations are read too (not run), so a database that had
    one of them enabled before is still understood.
    """
    packs = enabled(settings.packs)
    return upgrade(settings, branches(packs), branches(_loadable()))


async def seed_demo(db: Database, packs: Iterable[Pack]) -> dict[str, int]:
    """Load each pack's demo data, a pack after those it requires; return rows added per table."""
    added: Counter[str] = Counter()
    for pack in packs:
        if pack.seed is not None:
            added.update(await pack.seed(db))
    return dict(added)


def _loadable() -> list[Pack]:
    """Every installed pack that loads (one that does not is simply not known here)."""
    found = []
    for pack in installed().values():
        try:
            found.append(declared(pack))
        except PackError:
            continue
    return found
