"""Answer text for Slack: Markdown slips turned into mrkdwn, long answers split, status labels."""

from __future__ import annotations

import re

STATUS_LABELS = {
    "thinking": "thinking…",
    "executing_tools": "looking things up…",
    "executing_plan": "working through a plan…",
    "waiting_on_user": "waiting for a decision…",
    "verifying": "checking the answer…",
}
QUEUED = "waiting for the previous message in this thread to finish…"
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")


def status_text(label: str) -> str:
    """Return the live-status line shown while a turn runs."""
    return f":hourglass_flowing_sand: _{label}_"


def to_mrkdwn(text: str) -> str:
    """Return `text` with Markdown bold and links in Slack's mrkdwn form."""
    return _LINK.sub(r"<\2|\1>", _BOLD.sub(r"*\1*", text))


def split(text: str, limit: int) -> list[str]:
    """Split `text` into messages of at most `limit` characters, at paragraph or line ends.

    A piece without a break inside the limit is cut at the last space, else at the limit.
    """
    chunks: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[:limit]
        cut = next(
            (i for sep in ("\n\n", "\n", " ") if (i := window.rfind(sep)) > limit // 4), limit
        )
        chunks.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        chunks.append(rest)
    return chunks
