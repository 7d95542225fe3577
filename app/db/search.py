"""Ranked full-text search over the knowledge base: FTS5 bm25 on SQLite, tsvector on Postgres."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

_WORD = re.compile(r"\w+", re.UNICODE)
# Words that match nearly every document and only dilute the ranking.
_STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "the",
        "this",
        "to",
        "us",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "you",
        "your",
    }
)
MAX_TERMS = 16


@dataclass(frozen=True)
class Hit:
    """One ranked document."""

    id: int
    title: str
    kind: str
    client_id: int | None
    score: float
    excerpt: str


def terms(query: str) -> list[str]:
    """Return the searchable words of a query (no operators survive: only word characters)."""
    words = [w.casefold() for w in _WORD.findall(query)]
    kept = [w for w in dict.fromkeys(words) if w not in _STOPWORDS and len(w) > 1]
    return kept[:MAX_TERMS]


async def search(
    session: AsyncSession,
    dialect: str,
    query: str,
    *,
    client_id: int | None = None,
    kind: str | None = None,
    limit: int = 5,
) -> list[Hit]:
    """Rank documents for `query`; with `client_id`, that client's and agency-wide ones."""
    words = terms(query)
    if not words:
        return []
    params: dict[str, object] = {"limit": limit}
    conditions = ["TRUE" if dialect == "postgresql" else "1"]
    if client_id is not None:
        conditions.append("(d.client_id IS NULL OR d.client_id = :client_id)")
        params["client_id"] = client_id
    if kind is not None:
        conditions.append("d.kind = :kind")
        params["kind"] = kind
    scope = " AND ".join(conditions)
    if dialect == "postgresql":
        params["q"] = " | ".join(words)
        sql = (
            "SELECT d.id, d.title, d.kind, d.client_id, d.body, "
            "ts_rank_cd(d.search_vector, q) AS score "
            "FROM kb_documents d, to_tsquery('english', :q) q "
            f"WHERE d.search_vector @@ q AND {scope} ORDER BY score DESC, d.id LIMIT :limit"
        )
    else:
        params["q"] = " OR ".join(f'"{w}"' for w in words)
        sql = (
            "SELECT d.id, d.title, d.kind, d.client_id, d.body, "
            "-bm25(kb_documents_fts, 10.0, 1.0) AS score "
            "FROM kb_documents_fts JOIN kb_documents d ON d.id = kb_documents_fts.rowid "
            f"WHERE kb_documents_fts MATCH :q AND {scope} ORDER BY score DESC, d.id LIMIT :limit"
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
