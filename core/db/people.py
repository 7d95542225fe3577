"""Who a person is to the workspace: the role `team_members` lists for a user id.

A user the workspace lists always acts with that role, whatever role a surface claims for
them (a `--role` flag, a Studio context); only users it does not list keep the claimed one.
Lookups are kept for `ROLE_TTL_S` per process: every turn needs the asker's role, and a
change of role in `team_members` takes effect within that time.
"""

from __future__ import annotations

import logging
import time

from sqlalchemy import or_, select
from sqlalchemy.exc import SQLAlchemyError

from core.db.engine import Database
from core.db.models import TeamMember

logger = logging.getLogger(__name__)

ROLE_TTL_S = 30.0
_known: dict[tuple[int, str], tuple[float, str | None]] = {}


async def listed_role(db: Database, user_id: str) -> str | None:
    """Return the role the workspace lists for `user_id` (a Slack id or an email), if any."""
    key = (id(db), user_id)
    known = _known.get(key)
    if known is not None and time.monotonic() - known[0] < ROLE_TTL_S:
        return known[1]
    try:
        async with db.session() as session:
            role = await session.scalar(
                select(TeamMember.role).where(
                    or_(TeamMember.slack_user_id == user_id, TeamMember.email == user_id)
                )
            )
    except SQLAlchemyError:
        # An unmigrated or unreachable workspace lists nobody; the claimed role stands.
        logger.warning("could not look up %s in team_members", user_id, exc_info=True)
        return None
    listed = str(role) if role else None
    _known[key] = (time.monotonic(), listed)
    return listed


async def role_of(db: Database | None, user_id: str, claimed: str) -> str:
    """Return the role `user_id` acts with: the workspace's if it lists them, else `claimed`."""
    if db is None:
        return claimed
    return await listed_role(db, user_id) or claimed
