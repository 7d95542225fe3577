"""Ranked full-text search over the knowledge base: FTS5 bm25 on SQLite, tsvector on Postgres."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from core.terms import terms

ANY_WORD_POOL = 100
_BREAK = re.compile(r"\n|(?<!\d)[.!?;:]\s+")
"""Where an excerpt may start: after a line's end or a sentence's."""


@dataclass(frozen=True)
class Hit:
    """One ranked document."""

    id: int
    title: str
    kind: str
    client_id: int | None
    score: float
    excerpt: str


async def search(
    session: AsyncSession,
    dialect: str,
    query: str,
    *,
    client_id: int | None = None,
    kind: str | None = None,
    limit: int = 5,
) -> list[Hit]:
    """Rank documents for `query`; with `client_id`, that client's and agency-wide ones.

    Documents with every word rank first; only when they are too few do documents with
    any word fill the rest. Matching all words first keeps the ranked set small, which
    is what keeps a search over thousands of documents fast.
    """
    words = terms(query)
    if not words:
        return []
    hits = await _ranked(session, dialect, words, "all", client_id, kind, limit)
    if len(hits) < limit and len(words) > 1:
        seen = {hit.id for hit in hits}
        more = await _ranked(session, dialect, words, "any", client_id, kind, limit + len(hits))
        hits += [hit for hit in more if hit.id not in seen][: limit - len(hits)]
    return hits


async def _ranked(
    session: AsyncSession,
    dialect: str,
    words: list[str],
    mode: str,
    client_id: int | None,
    kind: str | None,
    limit: int,
) -> list[Hit]:
    params: dict[str, object] = {"limit": limit}
    conditions = []
    if client_id is not None:
        conditions.append("(d.client_id IS NULL OR d.client_id = :client_id)")
        params["client_id"] = client_id
    if kind is not None:
        conditions.append("d.kind = :kind")
        params["kind"] = kind
    scope = "".join(f" AND {c}" for c in conditions)
    # Any-word matches of common words can be most of the corpus; ranking a bounded pool
    # of them keeps the fallback's cost flat (all-word matches are ranked in full).
    pool = f"LIMIT {ANY_WORD_POOL}" if mode == "any" else ""
    if dialect == "postgresql":
        params["q"] = (" & " if mode == "all" else " | ").join(words)
        matches = (
            "SELECT d.id, d.search_vector FROM kb_documents d "
            f"WHERE d.search_vector @@ to_tsquery('english', :q){scope} {pool}"
        )
        ranked = (
            "SELECT m.id, ts_rank_cd(m.search_vector, to_tsquery('english', :q)) AS score "
            f"FROM ({matches}) m"
        )
    else:
        params["q"] = (" AND " if mode == "all" else " OR ").join(f'"{w}"' for w in words)
        join = " JOIN kb_documents d ON d.id = f.rowid" if conditions else ""
        ranked = (
            "SELECT f.rowid AS id, -bm25(kb_documents_fts, 10.0, 1.0) AS score "
            f"FROM kb_documents_fts f{join} WHERE kb_documents_fts MATCH :q{scope} {pool}"
        )
    # Rank on ids and scores only; bodies are read for the few rows returned.
    sql = (
        "SELECT d.id, d.title, d.kind, d.client_id, d.body, r.score "
        f"FROM (SELECT id, score FROM ({ranked}) ranked ORDER BY score DESC, id LIMIT :limit) r "
        "JOIN kb_documents d ON d.id = r.id ORDER BY r.score DESC, d.id"
    )
    rows = (await session.execute(text(sql), params)).all()
    return [
        Hit(
            row.id,
            row.title,
            row.kind,
            row.client_id,
            round(float(row.score), 4),
            excerpt(row.body, words),
        )
        for row in rows
    ]


def excerpt(body: str, words: list[str], width: int = 280) -> str:
    """Return up to `width` characters of `body` that hold the most query words (or its start).

    A window starts at the body's start or after a line's or sentence's end, and ends after one
    too where it can. Of those, the one with the most distinct query words wins, the earliest on
    a tie: a step far down an SOP ("coupons need 24 hours to go live") is shown when the question
    is about it, not the SOP's opening.
    """
    lowered = body.casefold()
    starts = [0, *(m.end() for m in _BREAK.finditer(body) if m.end() < len(body))]

    def end(start: int) -> int:
        if start + width >= len(body):
            return len(body)
        ends = [start + m.end() for m in _BREAK.finditer(body[start : start + width])]
        return max([e for e in ends if e > start + width // 2], default=start + width)

    def held(start: int) -> int:
        window = lowered[start : end(start)]
        return sum(1 for w in set(words) if w in window)

    first = max(starts, key=lambda s: (held(s), -s)) if words else 0
    last = end(first)
    prefix = "…" if first > 0 else ""
    suffix = "…" if last < len(body) else ""
    return f"{prefix}{body[first:last].strip()}{suffix}"
