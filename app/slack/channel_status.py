"""Whether channel threads show the assistant status or a placeholder message, per process.

Slack accepts the status in channel threads with `chat:write`; where it refuses it, the
refusal is remembered (and logged once) so later channel turns go straight to the placeholder.
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
        # A rate limit passes: that turn shows the placeholder, the next tries the status.
        if error == "ratelimited" or self.refused is not None:
            return
        self.refused = error
        logger.warning(
            "Slack refused the assistant status in a channel thread (%s): channel threads "
            "show a placeholder message from now on (set SLACK_STATUS_IN_CHANNELS=false "
            "to skip the attempt)",
            error,
        )
