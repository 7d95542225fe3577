"""Turns for Slack threads: one lane per thread, live progress, the answer or a card, stop.

Listeners hand a message or a button click to `Conversations` on the turn loop; it claims
the event, holds the thread's lane (the runner's) around what must see the thread unchanged
(the waiting change, the turn, the cards; a thread's messages run one at a time, in order,
whichever worker received them), shows progress and posts the outcome.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from app.slack import cards
from app.slack.answer_stream import AnswerStream
from app.slack.assistant import name_thread
from app.slack.card_outcomes import CardKeeper
from app.slack.channel_status import ChannelStatus
from app.slack.clean_text import clean_text
from app.slack.dedupe import EventLedger
from app.slack.feedback_buttons import feedback_block
from app.slack.formatting import QUEUED, STATUS_LABELS, to_mrkdwn
from app.slack.identity import Roles
from app.slack.incoming import Incoming, is_carry_on, is_stop
from app.slack.outcome_texts import INTERRUPTED, NOT_STARTED, NOTHING_RUNNING, apology
from app.slack.running import RunningTurns
from app.slack.status import LiveStatus
from app.slack.stop_signals import StopSignals
from app.slack.stopping import STOPPED, close_stopped_turn
from app.slack.thread_context import earlier_messages, with_earlier_messages
from app.slack.threads import SlackThread
from checkpoints.lanes import LaneLostError
from core.asker import Asker
from core.settings_sections import SlackSection
from graph.runner import Runner, TurnRequest, TurnResult
from tools import proposals
from tools.proposals import ConfirmationRequest

logger = logging.getLogger(__name__)

CHANNEL = "slack"


class Conversations:
    """Runs Slack messages and decisions through the runner, one at a time per thread."""

    def __init__(
        self,
        runner: Runner,
        roles: Roles,
        ledger: EventLedger,
        client: AsyncWebClient,
        settings: SlackSection,
        card_keeper: CardKeeper,
        running: RunningTurns | None = None,
        signals: StopSignals | None = None,
    ) -> None:
        self.runner = runner
        self.lanes = runner.lanes
        self.roles = roles
        self.ledger = ledger
        self.client = client
        self.settings = settings
        self.cards = card_keeper
        self.running = running or RunningTurns()
        self.signals = signals or StopSignals(self.running.stop)
        self.channel_status = ChannelStatus(settings.status_in_channels)
        self._handling: dict[str, int] = {}
        """Thread → messages being handled here (from before their placeholder is posted)."""

    def _status(self, thread: SlackThread, direct: bool, user: str) -> LiveStatus:
        answer = AnswerStream(
            self.client,
            thread,
            user,
            self.settings.stream_interval_s,
            self.settings.max_message_chars,
        )
        return LiveStatus(
            self.client,
            thread,
            self.settings.status_interval_s,
            self.settings.max_message_chars,
            mode=self.channel_status.mode(direct),
            answer=answer,
            on_refused=None if direct else self.channel_status.refuse,
        )

    async def knows(self, thread: SlackThread) -> bool:
        """Whether the agent takes part in the thread (a message of it in hand, or history)."""
        if self._handling.get(thread.thread_id):
            return True
        return bool(await self.runner.history(thread.thread_id))

    async def receive(self, incoming: Incoming) -> None:
        """Handle a message a listener passed on: first delivery only, then stop or a turn."""
        if incoming.follow_up and not await self.knows(incoming.thread):
            return
        if not await self.ledger.first_delivery(incoming.event_id):
            return
        if is_stop(incoming.text):
            await self.stop_in_thread(incoming.thread)
            return
        await self.message(incoming)

    async def message(self, incoming: Incoming) -> None:
        """Answer one message in its thread: progress at once, then the answer or a card."""
        thread = incoming.thread
        self._handling[thread.thread_id] = self._handling.get(thread.thread_id, 0) + 1
        try:
            await self._message(incoming)
        finally:
            self._handling[thread.thread_id] -= 1
            if not self._handling[thread.thread_id]:
                del self._handling[thread.thread_id]

    async def _message(self, incoming: Incoming) -> None:
        thread = incoming.thread
        status = self._status(thread, incoming.direct, incoming.user)
        await status.post()

        async def queued() -> None:
            status.show(QUEUED)

        try:
            async with self.lanes.hold(thread.thread_id, on_wait=queued):
                status.show(STATUS_LABELS["thinking"])
                text = clean_text(incoming.text)
                if not await self.runner.history(thread.thread_id):
                    if incoming.direct:
                        await name_thread(self.client, thread, text)
                    earlier = await earlier_messages(
                        self.client, thread, incoming.ts, self.settings.thread_history_messages
                    )
                    text = with_earlier_messages(text, [clean_text(e) for e in earlier])
                await self.cards.settle(thread)
                waiting = await self.runner.pending(thread.thread_id)
                request = TurnRequest(
                    thread_id=thread.thread_id,
                    user_id=incoming.user,
                    message=text,
                    user_role=await self.roles.role_of(incoming.user),
                    channel=CHANNEL,
                )
                if is_carry_on(text) and await self.runner.was_cut_off(thread.thread_id):
                    # The turn a restart interrupted, from its last saved step.
                    turn = self.runner.carry_on(request, on_event=status)
                else:
                    turn = self.runner.run_turn(request, on_event=status)
                result = await self.running.run(thread.thread_id, turn)
                await self._deliver(status, thread, result, self._people(incoming.user, waiting))
                # A "yes" or "no" typed while a card waited decided it: the card shows so.
                decided = {p["proposal_fingerprint"]: incoming.user for p in _proposals(waiting)}
                await self.cards.settle(thread, decided)
        except LaneLostError:
            # The database went away mid-turn: the turn is interrupted, `continue` resumes it.
            logger.exception("slack turn in %s lost its lane", thread.thread_id)
            await self._apologize(status, status.run_id, INTERRUPTED)
        except Exception:
            logger.exception("slack turn in %s failed (run %s)", thread.thread_id, status.run_id)
            await self._apologize(status, status.run_id)

    async def decide(
        self, card: cards.CardRef, user: str, action_id: str, message: dict[str, Any]
    ) -> None:
        """Apply an Approve / Reject click; refuse it (only to the clicker) when not allowed."""
        thread = SlackThread.parse(card.thread_id)
        decision = cards.decision_for(action_id, card.fingerprints, user)
        role = await self.roles.role_of(user)
        request = TurnRequest(
            thread_id=thread.thread_id, user_id=user, message="", user_role=role, channel=CHANNEL
        )
        async with self.lanes.hold(thread.thread_id):
            waiting = await self.runner.pending(thread.thread_id)
            refusal = self._precheck(waiting, request, card.fingerprints)
            if refusal is not None:
                await self._refuse(
                    thread, user, cards.mention_people(refusal, self._people(user, waiting))
                )
                if not {p["proposal_fingerprint"] for p in _proposals(waiting)} & set(
                    card.fingerprints
                ):
                    # Decided elsewhere (the CLI, Studio, the thread): the card says so now.
                    await self.cards.close_clicked(thread, message)
                return
            verb = "Approved" if action_id == cards.APPROVE else "Rejected"
            mark = ":white_check_mark:" if action_id == cards.APPROVE else ":x:"
            outcome = f"{mark} {verb} by <@{user}>"
            try:
                await self.client.chat_update(
                    channel=thread.channel,
                    ts=str(message["ts"]),
                    text=f"{verb} by <@{user}>",
                    blocks=cards.decided_card(message.get("blocks") or [], outcome),
                )
                self.cards.closed(str(message["ts"]))
            except SlackApiError:
                # The decision stands; the card catches up at the thread's next settle.
                logger.exception("could not update the card in %s", thread.thread_id)
            status = self._status(thread, thread.channel.startswith("D"), user)
            await status.post()
            try:
                result = await self.running.run(
                    thread.thread_id, self.runner.resume(request, decision, on_event=status)
                )
                if result is not None and result.status == "refused":
                    await status.remove()
                    people = self._people(user, waiting)
                    await self._refuse(thread, user, cards.mention_people(result.text, people))
                else:
                    await self._deliver(status, thread, result, self._people(user, waiting))
                await self.cards.settle(thread)
            except Exception:
                logger.exception(
                    "slack decision in %s failed (run %s)", thread.thread_id, status.run_id
                )
                await self._apologize(status, status.run_id)

    async def stop_in_thread(self, thread: SlackThread) -> None:
        """Handle "stop" sent in a thread: cancel its running turn wherever it runs."""
        if not await self.signals.stop(thread.thread_id, exact=True):
            await self.client.chat_postMessage(
                channel=thread.channel, thread_ts=thread.thread_ts, text=NOTHING_RUNNING
            )

    async def stop_channel(self, prefix: str) -> int:
        """Cancel the running turns of every thread whose id starts with `prefix`."""
        return await self.signals.stop(prefix, exact=False)

    async def close(self) -> None:
        """Cancel every running turn (shutdown)."""
        await self.running.close()

    async def _deliver(
        self,
        status: LiveStatus,
        thread: SlackThread,
        result: TurnResult | None,
        people: set[str],
    ) -> None:
        """Post the turn's outcome; a Web API failure here is logged, never an apology."""
        try:
            if result is None:
                await close_stopped_turn(self.runner, thread.thread_id)
                await status.finish(STOPPED)
            elif result.status == "failed":
                await status.finish(apology(result.run_id))
            elif result.status == "interrupted":
                await status.finish(INTERRUPTED if result.run_id else NOT_STARTED)
            elif result.status == "needs_confirmation":
                text = cards.mention_people(to_mrkdwn(result.text), people)
                blocks = cards.approval_card(thread.thread_id, result.interrupts)
                await status.finish(text, blocks=blocks)
            elif result.text:
                text = cards.mention_people(result.text, people)
                await status.finish(text, footer=[feedback_block(result.run_id)])
            else:
                await status.remove()
        except SlackApiError:
            run_id = result.run_id if result is not None else status.run_id
            logger.exception("could not post the outcome of run %s in %s", run_id, thread.thread_id)

    async def _apologize(self, status: LiveStatus, run_id: str | None, text: str = "") -> None:
        try:
            await status.finish(text or apology(run_id))
        except SlackApiError:
            logger.exception("could not post the apology for run %s", run_id)

    def _people(self, user: str, waiting: ConfirmationRequest | None) -> set[str]:
        """Return the Slack user ids a text may name: the sender, the askers, known users."""
        askers = {p.get("actor", "") for p in _proposals(waiting)}
        return {user, (waiting or {}).get("actor", ""), *askers, *self.settings.user_roles}

    def _precheck(
        self, waiting: ConfirmationRequest | None, request: TurnRequest, fingerprints: list[str]
    ) -> str | None:
        """Return why a click is refused at once (the graph checks the decision itself)."""
        pending = {p["proposal_fingerprint"] for p in _proposals(waiting)}
        if waiting is None or not set(fingerprints) <= pending:
            return "That proposal is no longer waiting for a decision; nothing was changed."
        actor = waiting.get("actor", "")
        approvers = self.runner.settings.approver_roles
        if not proposals.may_decide(Asker(request.user_id, request.user_role), actor, approvers):
            who = proposals.who_may_decide(actor, approvers)
            return f"Only {who} can decide on this proposal; it is still waiting."
        return None

    async def _refuse(self, thread: SlackThread, user: str, text: str) -> None:
        await self.client.chat_postEphemeral(
            channel=thread.channel, user=user, thread_ts=thread.thread_ts, text=text
        )


def _proposals(waiting: ConfirmationRequest | None) -> list[Any]:
    return list((waiting or {}).get("proposals", []))
