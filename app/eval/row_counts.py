"""The row counts a scenario expects in the workspace once its steps have passed."""

from __future__ import annotations

from sqlalchemy import func, select

from app.eval.scenario import RowCount
from core.db.base import Base
from core.db.engine import open_database
from core.settings import Settings


async def count_rows(settings: Settings, checks: list[RowCount]) -> list[str]:
    """Return one problem per count that differs, saying what was found and expected."""
    if not checks:
        return []
    db = open_database(settings)
    problems = []
    try:
        async with db.session() as session:
            for check in checks:
                table = Base.metadata.tables[check.table]
                query = select(func.count()).select_from(table)
                for column, value in check.where.items():
                    query = query.where(
                        table.c[column].is_(None) if value is None else table.c[column] == value
                    )
                for column, value in check.where_not.items():
                    query = query.where(
                        table.c[column].is_not(None) if value is None else table.c[column] != value
                    )
                count = await session.scalar(query) or 0
                if count != check.count:
                    problems.append(f"{_describe(check)}: {count} row(s), expected {check.count}")
    finally:
        await db.dispose()
    return problems


def _describe(check: RowCount) -> str:
    conditions = [f"{c} = {v!r}" for c, v in check.where.items()]
    conditions += [f"{c} != {v!r}" for c, v in check.where_not.items()]
    return check.table + (f" where {' and '.join(conditions)}" if conditions else "")
