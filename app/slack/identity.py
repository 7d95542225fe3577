"""Who a Slack user is to the agent: the role from `team_members`, a setting, or the default."""

from __future__ import annotations

from sqlalchemy import select

from core.db.engine import Database
from core.db.models import TeamMember
from core.settings_sections import SlackSection


class Roles:
    """Looks up a Slack user's role (overrides first, then the team table, then the default)."""

    def __init__(self, db: Database, settings: SlackSection) -> None:
        self._db = db
        self._settings = settings

    async def role_of(self, slack_user_id: str) -> str:
        """Return the role the agent acts with for this user."""
        if slack_user_id in self._settings.user_roles:
            return self._settings.user_roles[slack_user_id]
        async with self._db.session() as session:
            role = await session.scalar(
                select(TeamMember.role).where(TeamMember.slack_user_id == slack_user_id)
            )
        return role or self._settings.default_role
