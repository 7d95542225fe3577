"""The grounded task draft: the best SOP's steps as a checklist, product ids, and what is missing.

Pure helpers plus `build_draft`, which reads the knowledge base; no tool lives here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from core.terms import terms
from tools.agency.models import Brand, Client, KbDocument
from tools.agency.search import search

_ASIN = re.compile(r"\bB0[A-Z0-9]{8}\b", re.IGNORECASE)
_STEP = re.compile(r"^\s*(\d+)[.)]\s+(\S.*)$")
# Words that mean the text is about specific products, so it needs their identifiers.
_PRODUCT_WORDS = re.compile(r"\b(listings?|products?|asins?|skus?|coupons?|deals?)\b", re.I)
# Promotions apply to a set of products: the hint can name what they should cover.
_PROMOTIONS = ("coupon", "deal")
# Words every SOP title shares or that say nothing about the topic.
_TITLE_NOISE = frozenset({"sop", "checklist", "setup", "new"})
_CANDIDATE_SOPS = 5


def extract_product_ids(text: str) -> list[str]:
    """Return the ASINs in `text`, uppercased and de-duplicated in order of appearance.

    Args:
        text: Free text, e.g. a task title and details.

    Returns:
        ASINs such as "B0CGP12345" (a "B0" and eight letters or digits, any case).
    """
    return list(dict.fromkeys(match.upper() for match in _ASIN.findall(text)))


def normalize_product_ids(values: Iterable[str]) -> list[str]:
    """Return product ids stripped, ASINs uppercased, de-duplicated in order.

    Raises:
        ValueError: When an id is blank or longer than 64 characters.
    """
    cleaned = [v.strip().upper() if _ASIN.fullmatch(v.strip()) else v.strip() for v in values]
    if any(not v or len(v) > 64 for v in cleaned):
        raise ValueError("each product id must be 1-64 characters")
    return list(dict.fromkeys(cleaned))


def product_mentions_without_ids(
    text: str, brand_names: Iterable[str] = (), *, sop_title: str | None = None
) -> str | None:
    """Return a question asking for product ids when `text` is about products but has none.

    Args:
        text: The text to inspect.
        brand_names: Brand or product names whose mention means the text is about products.
        sop_title: The SOP that requires the identifiers, named in the hint when given.

    Returns:
        The hint, or None when the text names identifiers or is not about products.
    """
    if extract_product_ids(text):
        return None
    lowered = " ".join(text.casefold().split())
    words = [match.casefold() for match in _PRODUCT_WORDS.findall(text)]
    names = [name for name in brand_names if _mentions(lowered, name)]
    if not words and not names:
        return None
    promotion = next((p for p in _PROMOTIONS if any(w.startswith(p) for w in words)), None)
    if promotion:
        hint = f"Which ASINs should the {promotion} cover?"
    else:
        hint = "Which ASINs (or SKUs) is this about?"
    if sop_title:
        hint += f" The {sop_title} needs them."
    return hint


def extract_steps(body: str) -> list[str]:
    """Return the numbered steps ("1. Do this") of an SOP body, without their numbers."""
    steps = []
    for line in body.splitlines():
        match = _STEP.match(line)
        if match:
            steps.append(match.group(2).strip())
    return steps


def compose_description(details: str, sop_title: str | None, steps: list[str]) -> str:
    """Return the task description: the details, then the SOP's checklist (or a reference)."""
    parts = [details.strip()] if details.strip() else []
    if sop_title and steps:
        lines = [f"{n}. {step}" for n, step in enumerate(steps, start=1)]
        parts.append("\n".join([f"Checklist (from {sop_title}):", *lines]))
    elif sop_title:
        parts.append(f"Reference: {sop_title}")
    return "\n\n".join(parts)


async def build_draft(
    session: AsyncSession,
    dialect: str,
    *,
    title: str,
    details: str,
    client: Client,
    brand: Brand | None,
    product_ids: Iterable[str] = (),
) -> dict[str, Any]:
    """Ground a task in the client's knowledge base.

    Args:
        session: An open session on the workspace.
        dialect: The database dialect full-text search must speak.
        title: The task title.
        details: What the person asked for, beyond the title.
        client: The task's client (its SOPs and the agency-wide ones are searched).
        brand: The task's brand, if any.
        product_ids: Identifiers given explicitly, merged with those found in the text.

    Returns:
        {"title", "description", "sop": {"id", "title"} | None, "product_ids", "missing"}.
    """
    text = f"{title}\n{details}"
    ids = list(dict.fromkeys([*product_ids, *extract_product_ids(text)]))
    sop = await _best_sop(session, dialect, text, client.id)
    steps = extract_steps(sop["body"]) if sop else []
    needs_ids = any("asin" in step.casefold() for step in steps)
    missing = []
    hint = product_mentions_without_ids(
        text,
        [brand.name] if brand else [],
        sop_title=sop["title"] if sop and needs_ids else None,
    )
    if hint and not ids:
        missing.append(hint)
    if brand and not (brand.destination_space and brand.destination_list):
        missing.append(
            f"{brand.name} ({client.name}) has no complete destination mapping "
            "(space and list); an admin should map it before the task is filed."
        )
    return {
        "title": title,
        "description": compose_description(details, sop["title"] if sop else None, steps),
        "sop": {"id": sop["id"], "title": sop["title"]} if sop else None,
        "product_ids": ids,
        "missing": missing,
    }


async def _best_sop(
    session: AsyncSession, dialect: str, text: str, client_id: int
) -> dict[str, Any] | None:
    """Return the best-ranked SOP whose title shares a topic word with `text`."""
    # Ranking alone matches on any shared word ("create"), so the title must agree too.
    wanted = {_stem(word) for word in terms(text)}
    hits = await search(
        session, dialect, text, client_id=client_id, kind="sop", limit=_CANDIDATE_SOPS
    )
    for hit in hits:
        topic = {_stem(word) for word in terms(hit.title)} - _TITLE_NOISE
        if topic & wanted:
            body = await _body(session, hit.id)
            return {"id": hit.id, "title": hit.title, "body": body}
    return None


async def _body(session: AsyncSession, document_id: int) -> str:
    document = await session.get(KbDocument, document_id)
    return document.body if document else ""


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _mentions(lowered_text: str, name: str) -> bool:
    key = " ".join(name.casefold().split())
    return bool(key) and re.search(rf"(?<!\w){re.escape(key)}(?!\w)", lowered_text) is not None
