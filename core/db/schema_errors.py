"""Telling a workspace that was never migrated from other database failures."""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError


def is_unmigrated(exc: BaseException) -> bool:
    """Whether `exc` says a workspace table is missing (`agentloop db upgrade` never ran)."""
    text = str(exc)
    return isinstance(exc, SQLAlchemyError) and (
        "no such table" in text or ("relation" in text and "does not exist" in text)
    )
