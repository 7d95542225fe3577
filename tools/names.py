"""Resolving names people type ("garlic pres", "ACME") to workspace rows, for any pack's table.

Exact matches on the normalized name come first; otherwise rapidfuzz scores every name,
a clear winner is a match, close runners-up make the result ambiguous, and weak scores
come back as suggestions; with none close, the names there are come back (`known`).
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from rapidfuzz import fuzz, process, utils
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.base import name_key

Named = type[Any]
"""A mapped table whose rows have `id`, `name` and `name_key` columns (clients, people, ...)."""

MATCH_SCORE = 85.0
"""A fuzzy score at or above this is a match, if no runner-up is close behind."""
AMBIGUITY_MARGIN = 4.0
SUGGESTION_SCORE = 55.0
KNOWN_NAMES = 20
"""With no name close to a query, this many of the names there are, by name, are offered."""
MAX_NAME_CHARS = 200
"""No real name is longer; a longer query is cut so fuzzy matching stays cheap."""

_NAMES: dict[tuple[str, str], tuple[tuple[int, int | None], list[tuple[int, str, str]]]] = {}
"""Per process: (database, table) → ((row count, max id), names)."""


@dataclass(frozen=True)
class Candidate:
    """A row a name may refer to."""

    id: int
    name: str
    score: float


@dataclass(frozen=True)
class Resolution:
    """The outcome of resolving one name."""

    query: str
    status: Literal["found", "ambiguous", "not_found"]
    match: Candidate | None = None
    candidates: list[Candidate] = field(default_factory=list)
    known: list[str] = field(default_factory=list)
    """With no candidate: names there are (the first `KNOWN_NAMES` by name)."""

    def as_dict(self) -> dict[str, Any]:
        """Return the resolution as tool-result data."""
        return asdict(self)


async def resolve(
    session: AsyncSession,
    model: Named,
    query: str,
    *,
    where: ColumnElement[bool] | None = None,
    limit: int = 5,
) -> Resolution:
    """Resolve `query` against the names of `model`'s rows (optionally filtered by `where`).

    The query is made safe to match first: control characters are dropped (PostgreSQL
    rejects NUL in text) and absurd lengths are cut.
    """
    query = clean_name(query)
    key = name_key(query)
    if not key:
        return Resolution(query, "not_found")
    exact = select(model.id, model.name).where(model.name_key == key)
    if where is not None:
        exact = exact.where(where)
    rows = (await session.execute(exact)).all()
    if len(rows) == 1:
        return Resolution(query, "found", Candidate(rows[0].id, rows[0].name, 100.0))
    if len(rows) > 1:
        return Resolution(
            query, "ambiguous", candidates=[Candidate(r.id, r.name, 100.0) for r in rows]
        )
    named = await _candidates(session, model, where)
    scored = process.extract(
        utils.default_process(key),
        [processed for _, _, processed in named],
        scorer=fuzz.WRatio,
        processor=None,
        limit=limit,
        score_cutoff=SUGGESTION_SCORE,
    )
    candidates = [
        Candidate(named[index][0], named[index][1], round(score, 1)) for _, score, index in scored
    ]
    if not candidates:
        known = sorted({name for _, name, _ in named})[:KNOWN_NAMES]
        return Resolution(query, "not_found", known=known)
    best = candidates[0]
    runner_up = candidates[1].score if len(candidates) > 1 else 0.0
    if best.score >= MATCH_SCORE and best.score - runner_up >= AMBIGUITY_MARGIN:
        return Resolution(query, "found", best, candidates[1:])
    if best.score >= MATCH_SCORE:
        close = [c for c in candidates if best.score - c.score < AMBIGUITY_MARGIN]
        return Resolution(query, "ambiguous", candidates=close)
    return Resolution(query, "not_found", candidates=candidates)


def clean_name(query: str) -> str:
    """Drop control characters and outer spaces from a typed name; cut it to `MAX_NAME_CHARS`."""
    kept = "".join(ch for ch in query if unicodedata.category(ch) != "Cc" or ch in "\t ")
    return kept.strip()[:MAX_NAME_CHARS]


def not_blank(value: str) -> str:
    """Reject an empty or whitespace-only name with a message the model can act on."""
    if not value.strip():
        raise ValueError("must not be empty or whitespace; give the name as people write it")
    return value


async def _candidates(
    session: AsyncSession, model: Named, where: ColumnElement[bool] | None
) -> list[tuple[int, str, str]]:
    """Every (id, name, processed name) the fuzzy match scores against.

    A scoped lookup (one client's brands) reads its few rows; an unscoped one is `listing`.
    """
    if where is None:
        return await listing(session, model)
    columns = select(model.id, model.name, model.name_key)
    scoped = (await session.execute(columns.where(where))).all()
    return [(row.id, row.name, utils.default_process(row.name_key)) for row in scoped]


async def listing(session: AsyncSession, model: Named) -> list[tuple[int, str, str]]:
    """Every row's (id, name, processed name), from this process's copy when still current.

    The copy is reused while a `(count, max(id))` stamp shows no row was added: the
    workspace only ever adds clients, brands and people (nothing renames or deletes them),
    and reading thousands of names for every lookup costs tens of ms.
    """
    stamp_row = (await session.execute(select(func.count(), func.max(model.id)))).one()
    stamp = (int(stamp_row[0]), stamp_row[1])
    cache_key = (str(session.get_bind().engine.url), model.__tablename__)
    cached = _NAMES.get(cache_key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    columns = select(model.id, model.name, model.name_key)
    rows = [
        (row.id, row.name, utils.default_process(row.name_key))
        for row in (await session.execute(columns)).all()
    ]
    _NAMES[cache_key] = (stamp, rows)
    return rows
