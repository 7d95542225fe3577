"""A click on an answer's 👍 / 👎: recorded for the person who clicked, then acknowledged.

The vote is the clicker's (their Slack user id, as every listener reads it) and only a
person the workspace lists (`team_members`, or a role in `SLACK_USER_ROLES`) may give one;
anyone else is told so, only them, and nothing is written. A replayed click (the same
`action_ts`) is claimed once in `processed_events` and dropped after; a repeated click is
the person's latest vote, which replaces their earlier one (`record_feedback`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from app.slack.dedupe import EventLedger
from app.slack.feedback_buttons import read_click
from core.db.engine import Database
from core.db.people import listed_role
from core.observability.audit import AuditLog
from core.observability.feedback import UnknownRunError, Vote, record_feedback
from core.observability.tracing import Tracing
from core.settings_sections import SlackSection

logger = logging.getLogger(__name__)

CHANNEL = "slack"
THANKS = {
    "positive": "Thanks! Glad that helped.",
    "negative": "Thanks for telling me. I've noted that this answer was wrong, for review.",
}
NOT_A_MEMBER = (
    "Only members of this workspace can rate answers; your vote was not recorded. "
    "Ask an admin to add you to the team."
)
NO_RUN = "I can't find the run behind that answer any more; your vote was not recorded."


@dataclass(frozen=True)
class FeedbackClick:
    """Where a click on a feedback button happened, and who made it."""

    user: str
    value: str
    channel: str
    thread_ts: str
    action_ts: str


class FeedbackVotes:
    """Records the feedback buttons' clicks (on the turn loop, never on the acknowledging one)."""

    def __init__(
        self,
        db: Database,
        tracing: Tracing,
        client: AsyncWebClient,
        ledger: EventLedger,
        slack: SlackSection,
        audit: AuditLog | None = None,
    ) -> None:
        """Record votes in `db`, score them through `tracing`, answer through `client`.

        `audit`: the app's audit log, whose latest runs a click may name before they are
        written (it writes in batches).
        """
        self._audit = audit
        self._db = db
        self._tracing = tracing
        self._client = client
        self._ledger = ledger
        self._slack = slack

    async def click(self, click: FeedbackClick) -> None:
        """Record one click as the clicker's vote, and tell them (only them) it was."""
        try:
            clicked = read_click(click.value)
        except ValueError:
            logger.warning("a click on a feedback button that is not ours", exc_info=True)
            return
        if click.action_ts:
            replay = f"feedback:{click.channel}:{click.user}:{click.action_ts}"
            if not await self._ledger.first_delivery(replay):
                return
        if not await self._listed(click.user):
            await self._tell(click, NOT_A_MEMBER)
            return
        vote = Vote(
            run_id=clicked.run_id, person=click.user, rating=clicked.rating, channel=CHANNEL
        )
        try:
            await self._record(vote)
        except UnknownRunError:
            logger.warning("a vote on run %s, which the audit does not hold", clicked.run_id)
            await self._tell(click, NO_RUN)
            return
        await self._tell(click, THANKS[clicked.rating])

    async def _record(self, vote: Vote) -> None:
        try:
            await record_feedback(self._db, self._tracing, vote)
        except UnknownRunError:
            if self._audit is None:
                raise
            # A click right after the answer may beat the audit's next batch: write it now.
            await self._audit.drain()
            await record_feedback(self._db, self._tracing, vote)

    async def _listed(self, user: str) -> bool:
        return user in self._slack.user_roles or await listed_role(self._db, user) is not None

    async def _tell(self, click: FeedbackClick, text: str) -> None:
        try:
            await self._client.chat_postEphemeral(
                channel=click.channel, user=click.user, thread_ts=click.thread_ts, text=text
            )
        except SlackApiError:
            # The vote stands (or was refused) either way; only the note did not arrive.
            logger.exception("could not tell %s about their vote", click.user)
