"""Whether channel threads show progress in the assistant status or a placeholder message.

Slack accepts `assistant.threads.setStatus` in channel threads with `chat:write` alone, so
a channel thread shows the status by default, as a DM or the assistant pane does. Where a
workspace refuses it (`not_allowed`, `missing_scope`, `feature_not_enabled`, …) the turn
falls back to a placeholder message, and the refusal is remembered for the process: later
turns in channels go straight to the placeholder, and the refusal is logged once.
A rate-limited status is not a refusal: that turn uses the placeholder, the next tries again.
"""

from __future__ import annotations

import logging

from app.slack.status import Mode

logger = logging.getLogger(__name__)


class ChannelStatus:
    """The progress mode of channel threads, for the life of the process."""

    def __init__(self, enabled: bool) -> None:
        self.refused: str | None = None
        """Why Slack refused the status in a channel (None: not refused, or not tried)."""
        self._enabled = enabled

    def mode(self, direct: bool) -> Mode:
        """The mode a turn starts in: the status in DMs, in channels unless off or refused."""
        if direct:
            return "assistant"
        return "assistant" if self._enabled and self.refused is None else "placeholder"

    def refuse(self, error: str) -> None:
        """Remember that Slack refused the status in a channel thread (`error`: its code)."""
        if error == "ratelimited" or self.refused is not None:
            return
        self.refused = error
        logger.warning(
            "Slack refused the assistant status in a channel thread (%s): channel threads "
            "show a placeholder message from now on (set SLACK_STATUS_IN_CHANNELS=false "
            "to skip the attempt)",
            error,
        )
