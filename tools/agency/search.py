"""Ranked full-text search over the knowledge base: FTS5 bm25 on SQLite, tsvector on Postgres."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from core.terms import terms

ANY_WORD_POOL = 100


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
    """Return the part of `body` around the first query word (or its start)."""
    lowered = body.casefold()
    positions = [p for p in (lowered.find(w) for w in words) if p >= 0]
    start = max(min(positions) - width // 3, 0) if positions else 0
    snippet = body[start : start + width].strip()
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + width < len(body) else ""
    return f"{prefix}{snippet}{suffix}"
