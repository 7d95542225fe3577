"""Answer text for Slack: Markdown slips turned into mrkdwn, long answers split, status labels."""

from __future__ import annotations

import re
from datetime import UTC, datetime

STATUS_LABELS = {
    "thinking": "thinking…",
    "executing_tools": "looking things up…",
    "executing_plan": "working through a plan…",
    "waiting_on_user": "waiting for a decision…",
    "verifying": "checking the answer…",
    "rewriting": "checking the answer again…",
}
LOADING_MESSAGES = {
    "thinking": ("Reading the thread…", "Gathering what I know…", "Thinking it through…"),
    "executing_tools": ("Looking things up…", "Checking the records…"),
    "executing_plan": ("Working through the plan…", "Taking the next step…"),
    "verifying": ("Checking the answer…", "Making sure it holds up…"),
}
QUEUED = "waiting for the previous message in this thread to finish…"
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")


def loading_messages(label: str) -> list[str]:
    """What the assistant status rotates through under `label` (Slack's `loading_messages`)."""
    state = next((key for key, shown in STATUS_LABELS.items() if shown == label), "")
    return list(LOADING_MESSAGES.get(state, (label[:1].upper() + label[1:],)))


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


def when(iso: str) -> str:
    """A moment shown in each reader's own time zone (Slack's date formatting).

    E.g. "Tomorrow at 9:30 AM"; clients that cannot format it show the UTC fallback. A value
    that is not a date is shown as given.
    """
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    fallback = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(moment.timestamp())}^{{date_short_pretty}} at {{time}}|{fallback}>"
