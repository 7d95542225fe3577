"""The declarative base every table derives from, and the column helpers they share."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar, cast

from sqlalchemy import JSON, Table
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase

JSONType = JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    """Return the current time, timezone-aware."""
    return datetime.now(UTC)


def name_key(name: str) -> str:
    """Return the case- and spacing-insensitive key names are matched on."""
    return " ".join(name.casefold().split())


class Base(DeclarativeBase):
    """Declarative base of every table."""

    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSONType, list[Any]: JSONType}


def table_of(model: type[Base]) -> Table:
    """Return a model's table, for Core statements built once (typed as the `Table` it is)."""
    return cast(Table, model.__table__)
