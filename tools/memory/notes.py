"""The memory pack: durable client notes, saved only when confident and archived, never deleted."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from rapidfuzz import fuzz, process, utils
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from core.db.base import utcnow
from tools.agency.models import Client, ClientMemoryNote
from tools.agency.records import require
from tools.arguments import Args
from tools.declaration import Shows, ToolContext, ToolFailure, declare
from tools.idempotency import run_once

MIN_CONFIDENCE = 0.7
"""Below this a note is likely volatile or speculative, and memory keeps only durable facts."""
MATCH_SCORE = 60.0
"""A text match for `forget_client_note` must score at least this (0-100)."""
AMBIGUITY_MARGIN = 5.0
STAFF = ("member", "admin")
_NOTE_ID = re.compile(r"#?(\d+)")


class RememberClientNoteArgs(Args):
    """Arguments of remember_client_note."""

    client: str = Field(min_length=1, max_length=200)
    note: str = Field(min_length=1, max_length=2_000, description="one durable fact")
    confidence: float = Field(
        default=MIN_CONFIDENCE, ge=0, le=1, description="how sure the fact is durable and true"
    )
    tags: list[str] = Field(default_factory=list, max_length=10, description="e.g. coupon")
    source: Literal["chat", "meeting", "manual"] = "chat"

    @field_validator("note")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    @field_validator("tags")
    @classmethod
    def _clean_tags(cls, values: list[str]) -> list[str]:
        tags = [" ".join(v.casefold().split()) for v in values]
        if any(not tag or len(tag) > 40 for tag in tags):
            raise ValueError("each tag must be 1-40 characters")
        return list(dict.fromkeys(tags))


class ForgetClientNoteArgs(Args):
    """Arguments of forget_client_note."""

    client: str = Field(min_length=1, max_length=200)
    note: str = Field(
        min_length=1,
        max_length=2_000,
        description="words from the note to forget, or its id such as #12",
    )

    @model_validator(mode="before")
    @classmethod
    def _earlier_spelling(cls, data: Any) -> Any:
        """Read `note_id` / `matching`, the names a proposal made before `note` had."""
        if isinstance(data, dict) and "note" not in data:
            earlier = data.get("matching") or data.get("note_id")
            rest = {k: v for k, v in data.items() if k not in ("matching", "note_id")}
            return {**rest, "note": str(earlier)} if earlier is not None else rest
        return data

    @property
    def note_id(self) -> int | None:
        """The note's id when `note` gives one ("12" or "#12")."""
        match = _NOTE_ID.fullmatch(self.note.strip())
        return int(match[1]) if match else None


def _note(row: ClientMemoryNote, client: str) -> dict[str, Any]:
    return {
        "id": row.id,
        "client": client,
        "note": row.note,
        "confidence": row.confidence,
        "tags": list(row.tags or []),
        "source": row.source,
        "author": row.author,
        "created_at": row.created_at.isoformat() if row.created_at else None,
        "archived_at": row.archived_at.isoformat() if row.archived_at else None,
    }


@declare(
    pack="memory",
    kind="mutating",
    roles=STAFF,
    provides=["memory_writer"],
    asks=(
        "remember that Acme prefers email",
        "note for Globex: invoices go to finance",
        "save this about the client for later",
        "make a note that Initech's launch slipped to March",
        "Hooli only approves creatives on Mondays, keep that in memory",
        "for future reference, Acme hates emojis",
        "Globex ships samples from Texas, save that",
        "make a note: Acme's CFO signs off every invoice",
        "note that Hooli wants a report each month",
        "Initech pays by card; put it in their notes",
        "add a note for Globex that returns go to Denver",
        "Hooli's buyers only accept samples in person, keep that in mind",
        "Acme: no promos during Q4, please remember",
    ),
    shows=Shows(
        fields=("note.note", "note.client", "note.tags", "note.source", "reason"),
        lead={
            "saved": "Saved the note",
            "already_known": "That note was already saved",
            "not_saved": "Did not save the note",
        },
    ),
)
async def remember_client_note(args: RememberClientNoteArgs, ctx: ToolContext) -> dict[str, Any]:
    """Remember a durable fact about a client for later conversations.

    Save stable facts (preferences, policies, caps, contacts), not volatile or speculative
    ones (today's numbers, guesses). `confidence` is how sure you are the fact is true and
    lasting; below 0.7 nothing is saved. A note identical to an active one is not repeated.

    Returns:
        {"status": "saved" | "already_known", "note": {"id", "client", "note", "confidence",
        "tags", "source", "author", "created_at", "archived_at"}}, or
        {"status": "not_saved", "reason"} when confidence is below 0.7.

    Example:
        {"client": "Thorinox", "note": "Coupons are capped at 15%.", "confidence": 0.9,
        "tags": ["coupon"], "source": "meeting"}
    """
    async with ctx.database().session() as session:
        client = await require(session, Client, args.client, label="client")
    if args.confidence < MIN_CONFIDENCE:
        reason = (
            f"confidence {args.confidence} is below {MIN_CONFIDENCE}: memory keeps durable, "
            "confirmed facts only; confirm it with the person first"
        )
        return {"status": "not_saved", "reason": reason}

    async def mutate(session: AsyncSession) -> dict[str, Any]:
        same = await session.scalar(
            select(ClientMemoryNote).where(
                ClientMemoryNote.client_id == client.id,
                ClientMemoryNote.archived_at.is_(None),
                ClientMemoryNote.note == args.note,
            )
        )
        if same is not None:
            return {"status": "already_known", "note": _note(same, client.name)}
        row = ClientMemoryNote(
            client_id=client.id,
            author=ctx.user_id,
            source=args.source,
            note=args.note,
            confidence=args.confidence,
            tags=args.tags,
            created_at=utcnow(),
        )
        session.add(row)
        await session.flush()
        return {"status": "saved", "note": _note(row, client.name)}

    return await run_once(ctx, "remember_client_note", args.model_dump(mode="json"), mutate)


async def _forgets(args: ForgetClientNoteArgs, ctx: ToolContext) -> str:
    """The note a forget would archive, for its proposal: a person approves the note itself."""
    async with ctx.database().session() as session:
        try:
            client = await require(session, Client, args.client, label="client")
            row = _pick(await _active(session, client.id), args, client.name)
        except ValueError as exc:
            raise ToolFailure(f"nothing to forget: {exc}") from None
    return f"→ the note #{row.id}: {row.note}"


async def _active(session: AsyncSession, client_id: int) -> Sequence[ClientMemoryNote]:
    """The client's active notes, oldest first."""
    rows = await session.scalars(
        select(ClientMemoryNote)
        .where(ClientMemoryNote.client_id == client_id, ClientMemoryNote.archived_at.is_(None))
        .order_by(ClientMemoryNote.id)
    )
    return rows.all()


@declare(
    pack="memory",
    kind="mutating",
    roles=STAFF,
    asks=(
        "forget the note about Acme's email preference",
        "delete that client note",
        "remove the saved note for Globex",
        "that note about Initech is wrong, archive it",
        "we no longer need the Hooli note about Mondays",
        "forget that Acme wants calls on Mondays, it changed",
        "the note saying Acme wants weekly calls is wrong now, remove it",
        "the Globex note on invoices is out of date, drop it",
        "scrap the note about Hooli's deadlines",
        "Initech doesn't ask for that anymore, delete the note",
        "erase what we stored about Umbrella's shipping days",
    ),
    shows=Shows(fields=("note.note", "note.client"), lead={"archived": "Forgot the note"}),
    previews=_forgets,
)
async def forget_client_note(args: ForgetClientNoteArgs, ctx: ToolContext) -> dict[str, Any]:
    """Forget a client note that is wrong or outdated (it is archived, kept for the record).

    `note` picks it: an id such as #12, or words closest to one of the client's active
    notes (else words only it shares: "the coupon one"). An unknown id, or words that match
    no note or several equally, is an error that lists the client's active notes with their ids.

    Returns:
        {"status": "archived", "note": {"id", "client", "note", ..., "archived_at"}}.

    Examples:
        {"client": "Thorinox", "note": "#12"}, {"client": "Distex", "note": "concise
        titles"}.
    """
    async with ctx.database().session() as session:
        client = await require(session, Client, args.client, label="client")

    async def mutate(session: AsyncSession) -> dict[str, Any]:
        row = _pick(await _active(session, client.id), args, client.name)
        row.archived_at = utcnow()
        await session.flush()
        return {"status": "archived", "note": _note(row, client.name)}

    return await run_once(ctx, "forget_client_note", args.model_dump(mode="json"), mutate)


def _pick(
    active: Sequence[ClientMemoryNote], args: ForgetClientNoteArgs, client: str
) -> ClientMemoryNote:
    """Return the active note `args` points at, or raise naming the notes there are."""
    listing = "; ".join(f"#{n.id}: {n.note[:80]}" for n in active) or "none"
    if (note_id := args.note_id) is not None:
        for row in active:
            if row.id == note_id:
                return row
        raise ValueError(f"{client} has no active note #{note_id}; active notes: {listing}")
    scored = process.extract(
        args.note,
        {row.id: row.note for row in active},
        scorer=fuzz.WRatio,
        processor=utils.default_process,
        limit=2,
        score_cutoff=MATCH_SCORE,
    )
    if not scored:  # "the coupon limits" is none of "caps coupon discounts at 15%"'s spelling
        if len(sharing := _sharing(active, args.note, client)) == 1:
            return sharing[0]
        raise ValueError(f"no active note of {client} matches {args.note!r}; {listing}")
    if len(scored) > 1 and scored[0][1] - scored[1][1] < AMBIGUITY_MARGIN:
        raise ValueError(f"{args.note!r} matches several notes of {client}; {listing}")
    best = scored[0][2]
    return next(row for row in active if row.id == best)


def _sharing(active: Sequence[ClientMemoryNote], text: str, client: str) -> list[ClientMemoryNote]:
    """The notes sharing the most words of four letters or more with `text`, one at least.

    Its client's name aside: a note described in words that are none of its wording.
    """

    def words(said: str) -> set[str]:
        return {w.removesuffix("s") for w in utils.default_process(said).split() if len(w) > 3}

    described = words(text) - words(client)
    shared = {row.id: len(words(row.note) & described) for row in active}
    most = max(shared.values(), default=0)
    return [row for row in active if most and shared[row.id] == most]


TOOLS = [remember_client_note, forget_client_note]
