"""Turns for Slack threads: one lane per thread, live status, the answer or a card, stop.

Listeners hand a message or a button click to `Conversations`; it holds the thread's lane
around every runner call, so a thread's messages run one at a time, in order, whichever
worker received them.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Coroutine
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from app.slack import cards
from app.slack.dedupe import EventLedger
from app.slack.formatting import QUEUED, STATUS_LABELS, to_mrkdwn
from app.slack.identity import Roles
from app.slack.lanes import Lanes
from app.slack.settings import SlackSettings
from app.slack.status import LiveStatus
from app.slack.stopping import STOPPED, close_stopped_turn
from app.slack.thread_context import earlier_messages, with_earlier_messages
from app.slack.threads import SlackThread
from graph import proposals
from graph.runner import Runner, TurnRequest, TurnResult

logger = logging.getLogger(__name__)

CHANNEL = "slack"


def apology(run_id: str) -> str:
    """Return what a person sees when a turn failed: short, with the id to look it up by."""
    return f"Sorry, something went wrong and I couldn't finish that. Run id: `{run_id}`."


class Conversations:
    """Runs Slack messages and decisions through the runner, one at a time per thread."""

    def __init__(
        self,
        runner: Runner,
        lanes: Lanes,
        roles: Roles,
        ledger: EventLedger,
        client: AsyncWebClient,
        settings: SlackSettings,
    ) -> None:
        self.runner = runner
        self.lanes = lanes
        self.roles = roles
        self.ledger = ledger
        self.client = client
        self.settings = settings
        self._running: dict[str, asyncio.Task[TurnResult]] = {}

    def _status(self, thread: SlackThread) -> LiveStatus:
        return LiveStatus(
            self.client, thread, self.settings.status_interval_s, self.settings.max_message_chars
        )

    async def knows(self, thread: SlackThread) -> bool:
        """Whether the agent has taken part in the thread (it has checkpointed messages)."""
        return bool(await self.runner.history(thread.thread_id))

    async def message(self, thread: SlackThread, user: str, text: str, ts: str) -> None:
        """Answer one message in its thread: placeholder at once, then the answer or a card."""
        status = self._status(thread)
        await status.post()

        async def queued() -> None:
            status.show(QUEUED)

        try:
            async with self.lanes.hold(thread.thread_id, on_wait=queued):
                status.show(STATUS_LABELS["thinking"])
                if not await self.knows(thread):
                    earlier = await earlier_messages(
                        self.client, thread, ts, self.settings.thread_history_messages
                    )
                    text = with_earlier_messages(text, earlier)
                request = TurnRequest(
                    thread_id=thread.thread_id,
                    user_id=user,
                    message=text,
                    user_role=await self.roles.role_of(user),
                    channel=CHANNEL,
                )
                result = await self._run(thread, self.runner.run_turn(request, on_event=status))
                if result is None:
                    await close_stopped_turn(self.runner, thread.thread_id)
                    await status.finish(STOPPED)
                    return
                await self._answer(status, thread, result)
        except Exception:
            error_id = str(uuid.uuid4())
            logger.exception("slack turn %s in %s failed", error_id, thread.thread_id)
            await status.finish(apology(error_id))

    async def decide(
        self,
        thread: SlackThread,
        user: str,
        action_id: str,
        fingerprints: list[str],
        card: dict[str, Any],
    ) -> None:
        """Apply an Approve / Reject click; refuse it (only to the clicker) when not allowed."""
        decision = cards.decision_for(action_id, fingerprints, user)
        role = await self.roles.role_of(user)
        request = TurnRequest(
            thread_id=thread.thread_id, user_id=user, message="", user_role=role, channel=CHANNEL
        )
        async with self.lanes.hold(thread.thread_id):
            refusal = await self._precheck(request, decision)
            if refusal is not None:
                await self._refuse(thread, user, refusal)
                return
            verb = "Approved" if action_id == cards.APPROVE else "Rejected"
            mark = ":white_check_mark:" if action_id == cards.APPROVE else ":x:"
            await self.client.chat_update(
                channel=thread.channel,
                ts=str(card["ts"]),
                text=f"{verb} by <@{user}>",
                blocks=cards.decided_card(card.get("blocks", []), f"{mark} {verb} by <@{user}>"),
            )
            status = self._status(thread)
            await status.post()
            try:
                result = await self._run(
                    thread, self.runner.resume(request, decision, on_event=status)
                )
                if result is None:
                    await close_stopped_turn(self.runner, thread.thread_id)
                    await status.finish(STOPPED)
                elif result.status == "refused":
                    await status.remove()
                    await self._refuse(thread, user, result.text)
                else:
                    await self._answer(status, thread, result)
            except Exception:
                error_id = str(uuid.uuid4())
                logger.exception("slack decision %s in %s failed", error_id, thread.thread_id)
                await status.finish(apology(error_id))

    def stop(self, thread_id: str) -> bool:
        """Cancel the thread's running turn in this process; return whether one was running."""
        task = self._running.get(thread_id)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    async def stop_in_thread(self, thread: SlackThread) -> None:
        """Handle "stop" sent in a thread: cancel its running turn, or say nothing runs."""
        if not self.stop(thread.thread_id):
            await self.client.chat_postMessage(
                channel=thread.channel,
                thread_ts=thread.thread_ts,
                text="Nothing is running in this thread right now.",
            )

    def running(self, prefix: str = "") -> list[str]:
        """Return the thread ids with a turn running in this process (optionally by prefix)."""
        return [t for t, task in self._running.items() if t.startswith(prefix) and not task.done()]

    async def close(self) -> None:
        """Cancel every running turn (shutdown)."""
        tasks = [task for task in self._running.values() if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(
        self, thread: SlackThread, work: Coroutine[Any, Any, TurnResult]
    ) -> TurnResult | None:
        """Run a runner call as a task `stop` can cancel; None when it was stopped."""
        task = asyncio.create_task(work)
        self._running[thread.thread_id] = task
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # this handler is being cancelled (shutdown), not only the turn
            logger.info("turn in %s stopped by the person", thread.thread_id)
            return None
        finally:
            if self._running.get(thread.thread_id) is task:
                del self._running[thread.thread_id]

    async def _answer(self, status: LiveStatus, thread: SlackThread, result: TurnResult) -> None:
        if result.status == "failed":
            await status.finish(apology(result.run_id))
        elif result.status == "needs_confirmation":
            text = to_mrkdwn(result.text)
            await status.finish(
                text, blocks=cards.approval_card(text, thread.thread_id, result.interrupts)
            )
        elif result.text:
            await status.finish(result.text)
        else:
            await status.remove()

    async def _precheck(self, request: TurnRequest, decision: dict[str, Any]) -> str | None:
        """Return why a click must be refused before anything runs (the runner checks again)."""
        pending = await self.runner.pending(request.thread_id)
        if pending is None:
            return "That proposal is no longer waiting for a decision; nothing was changed."
        checked = proposals.check(
            pending,
            decision,
            decider=request.user_id,
            decider_role=request.user_role,
            approver_roles=self.runner.settings.approver_roles,
            tools={tool.name: tool for tool in self.runner.registry.tools()},
            now=time.time(),
        )
        return checked if isinstance(checked, str) else None

    async def _refuse(self, thread: SlackThread, user: str, text: str) -> None:
        await self.client.chat_postEphemeral(
            channel=thread.channel, user=user, thread_ts=thread.thread_ts, text=text
        )
