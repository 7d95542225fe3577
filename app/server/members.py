"""The people a server acts for: the workspace's `team_members`, by Slack id or email.

A relay may act only for someone listed here, and a JWT's claim must name someone listed
here; either way the person acts with the role listed here. Lookups are kept for
`ROLE_TTL_S` per process (every request is authenticated, every relayed run checked), so a
change in `team_members` takes effect within that time. A database that cannot answer
raises: nobody is let in on a guess.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import func, or_, select

from core.db.engine import Database
from core.db.models import TeamMember
from core.db.people import ROLE_TTL_S


@dataclass(frozen=True)
class Member:
    """A person the workspace lists, with the id the server knows them by."""

    user_id: str
    """Their Slack id when they have one (the id every surface shares), else their email."""
    email: str
    role: str
    name: str


_known: dict[tuple[int, str], tuple[float, Member | None]] = {}


async def member(db: Database, key: str) -> Member | None:
    """Return the person whose Slack id or email (any case) is `key`, or None."""
    cache_key = (id(db), key)
    known = _known.get(cache_key)
    if known is not None and time.monotonic() - known[0] < ROLE_TTL_S:
        return known[1]
    async with db.session() as session:
        row = await session.scalar(
            select(TeamMember).where(
                or_(
                    TeamMember.slack_user_id == key,
                    func.lower(TeamMember.email) == key.strip().lower(),
                )
            )
        )
        found = (
            None
            if row is None
            else Member(
                user_id=row.slack_user_id or row.email,
                email=row.email,
                role=row.role,
                name=row.name,
            )
        )
    _known[cache_key] = (time.monotonic(), found)
    return found
