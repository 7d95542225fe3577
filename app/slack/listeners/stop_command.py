"""`/agentloop stop`: cancel the turns running in this channel (`/agentloop` alone: help)."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from app.slack.conversations import Conversations
from app.slack.turn_loop import TurnLoop

HELP = (
    "Mention me in a channel or write to me directly; I answer in the thread. "
    "`/agentloop stop` (or `stop` in the thread) cancels what I am doing."
)


def register(app: AsyncApp, turns: TurnLoop, conversations: Conversations) -> None:
    """Handle the slash command; the reply is visible only to the person who sent it."""

    @app.command("/agentloop")
    async def stop_command(ack: AsyncAck, command: dict[str, Any]) -> None:
        if str(command.get("text", "")).strip().lower() != "stop":
            await ack(text=HELP)
            return
        # Slash commands don't say which thread they were sent from, so the channel's
        # running turns are stopped, in whichever worker they run.
        prefix = f"{command['team_id']}:{command['channel_id']}:"
        stopped = await turns.call(conversations.stop_channel(prefix))
        if stopped:
            await ack(text=f"Stopped {stopped} running turn(s) in this channel.")
        else:
            await ack(text="Nothing is running in this channel right now.")
