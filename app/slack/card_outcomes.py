"""Approval cards that outlive their question show who decided and what, wherever it was decided.

A click updates its card at once. A decision typed in the thread, given with `agentloop
resume` or in Studio leaves the card's buttons live; the Slack app closes such cards when it
next handles the thread (a message, a click, the end of a turn). It keeps no table of cards:
the thread's checkpointed tool results say which proposals were decided and how, and the
cards are found by looking the thread up (`conversations.replies`) — only when the thread
holds more decided changes than at this worker's last look, so a thread without new
decisions costs no Web API call. Who decided comes from the thread (the person who typed
the answer) or from the decision's audit row (`agent_runs.decided_by`, a resume run whose
parent is the card's turn); a decision without one (Studio) says it was decided elsewhere.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from sqlalchemy import select

from app.slack import cards
from app.slack.threads import SlackThread
from core.db.engine import Database
from core.db.models import AgentRun
from graph.runner import Runner

logger = logging.getLogger(__name__)

_REPLIES_LIMIT = 200
_THREADS_REMEMBERED = 10_000
_LINES = {
    "ok": ":white_check_mark: Approved by {who}",
    "error": ":warning: Approved by {who}, but it did not complete",
    "timeout": ":warning: Approved by {who}, but it did not complete",
    "refused": ":warning: Approved by {who}, but it was not allowed to run",
    "capped": ":warning: Approved by {who}, but it did not run (a limit was reached)",
    "rejected": ":x: Rejected by {who}",
    "not_confirmed": ":heavy_minus_sign: Not confirmed: {who} moved on, nothing was changed",
}
_GONE = ":heavy_minus_sign: No longer waiting for a decision; nothing was changed"


def decided_calls(history: list[BaseMessage], runner: Runner) -> dict[str, str]:
    """Return the outcome of every mutating call of the thread that has a result, by call id."""
    mutating = {
        call["id"]
        for message in history
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call.get("id") and _is_mutating(runner, call["name"])
    }
    return {
        m.tool_call_id: str(m.additional_kwargs.get("outcome", "error"))
        for m in history
        if isinstance(m, ToolMessage) and m.tool_call_id in mutating
    }


def outcome_line(card: cards.CardRef, outcomes: dict[str, str], who: str) -> str:
    """Return the line a decided card shows (one per distinct outcome of its proposals)."""
    lines = []
    for call_id in card.call_ids or [""]:
        outcome = outcomes.get(call_id)
        line = _GONE if outcome is None else _LINES.get(outcome, _LINES["error"])
        if line.format(who=who) not in lines:
            lines.append(line.format(who=who))
    return "\n".join(lines)


class CardKeeper:
    """Finds a thread's cards whose proposals are no longer pending and shows their outcome."""

    def __init__(self, runner: Runner, client: AsyncWebClient, db: Database) -> None:
        self._runner = runner
        self._client = client
        self._db = db
        self._looked: OrderedDict[str, int] = OrderedDict()
        """Thread → how many decided changes it held at this worker's last look (the most
        recent threads; one forgotten costs one more look)."""
        self._closed: OrderedDict[str, None] = OrderedDict()
        """The cards (their ts) this worker last showed decided: a late click on one (a double
        click, a second screen) leaves it as it is."""

    async def settle(self, thread: SlackThread, decided_here: dict[str, str] | None = None) -> None:
        """Close the thread's live cards that were decided (`decided_here`: fingerprint → who)."""
        outcomes = decided_calls(await self._runner.history(thread.thread_id), self._runner)
        if len(outcomes) <= self._looked.get(thread.thread_id, 0):
            return
        try:
            replies = await self._client.conversations_replies(
                channel=thread.channel, ts=thread.thread_ts, limit=_REPLIES_LIMIT
            )
        except SlackApiError:
            logger.exception("could not look up the cards of %s", thread.thread_id)
            return
        pending = await self._runner.pending(thread.thread_id)
        waiting = {p["proposal_fingerprint"] for p in (pending or {}).get("proposals", [])}
        messages: list[dict[str, Any]] = replies.get("messages", [])
        for message in messages:
            card = cards.card_of_message(message)
            if card is None or set(card.fingerprints) & waiting:
                continue
            await self.close(thread, message, card, outcomes, decided_here or {})
        self._looked[thread.thread_id] = len(outcomes)
        self._looked.move_to_end(thread.thread_id)
        while len(self._looked) > _THREADS_REMEMBERED:
            self._looked.popitem(last=False)

    async def close_clicked(self, thread: SlackThread, message: dict[str, Any]) -> None:
        """Close a card someone clicked after it was decided elsewhere.

        The click carries the card as it was when clicked; when two clicks on one card reach
        two workers, the one that decided has closed it already, so the card is read as it
        is now and left alone once it shows its outcome.
        """
        card = cards.card_of_message(message)
        ts = str(message["ts"])
        if card is None or ts in self._closed:
            return
        now = await self._card_now(thread, ts)
        if now is not None and cards.card_of_message(now) is None:
            self.closed(ts)
            return
        outcomes = decided_calls(await self._runner.history(thread.thread_id), self._runner)
        await self.close(thread, message, card, outcomes, {})

    async def _card_now(self, thread: SlackThread, ts: str) -> dict[str, Any] | None:
        """The card at `ts` as Slack shows it now (None when it cannot be read)."""
        try:
            # The thread's parent may come first whatever `oldest` says: two are enough.
            found = await self._client.conversations_replies(
                channel=thread.channel, ts=thread.thread_ts, oldest=ts, inclusive=True, limit=2
            )
        except SlackApiError:
            logger.exception("could not read the card %s in %s", ts, thread.thread_id)
            return None
        messages: list[dict[str, Any]] = found.get("messages", [])
        return next((m for m in messages if str(m.get("ts")) == ts), None)

    async def close(
        self,
        thread: SlackThread,
        message: dict[str, Any],
        card: cards.CardRef,
        outcomes: dict[str, str],
        decided_here: dict[str, str],
    ) -> None:
        """Replace the card's buttons with who decided what."""
        deciders = {decided_here[f] for f in card.fingerprints if f in decided_here}
        who = f"<@{deciders.pop()}>" if len(deciders) == 1 else await self._decider(card, outcomes)
        line = outcome_line(card, outcomes, who)
        try:
            await self._client.chat_update(
                channel=thread.channel,
                ts=str(message["ts"]),
                text=line,
                blocks=cards.decided_card(message.get("blocks") or [], line),
            )
        except SlackApiError:
            logger.exception("could not update the card %s in %s", message["ts"], thread.thread_id)
            return
        self.closed(str(message["ts"]))

    def closed(self, ts: str) -> None:
        """Note that the card at `ts` now shows its outcome."""
        self._closed[ts] = None
        self._closed.move_to_end(ts)
        while len(self._closed) > _THREADS_REMEMBERED:
            self._closed.popitem(last=False)

    async def _decider(self, card: cards.CardRef, outcomes: dict[str, str]) -> str:
        """Return who decided, as the audit recorded it (a resume run of the card's turn)."""
        if not card.run_id or not any(c in outcomes for c in card.call_ids):
            return "someone"
        async with self._db.session() as session:
            row = (
                await session.execute(
                    select(AgentRun.decided_by, AgentRun.channel)
                    .where(
                        AgentRun.parent_run_id == card.run_id,
                        AgentRun.kind == "resume",
                        AgentRun.decided_by.is_not(None),
                    )
                    .order_by(AgentRun.started_at)
                    .limit(1)
                )
            ).first()
        if row is None:
            return "someone outside Slack"
        where = "" if row.channel == "slack" else f" (from {row.channel or 'another surface'})"
        return f"<@{row.decided_by}>{where}"


def _is_mutating(runner: Runner, name: str) -> bool:
    tool = runner.registry.get(name)
    return tool is not None and tool.mutating
