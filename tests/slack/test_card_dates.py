"""An approval card's expiry shows in each reader's own time zone (Slack's date formatting)."""

from __future__ import annotations

from datetime import UTC, datetime

from app.slack import cards
from app.slack.formatting import when


def test_the_expiry_is_a_slack_date_with_a_utc_fallback() -> None:
    expires = datetime(2026, 12, 3, 5, 30, tzinfo=UTC)
    proposal = {
        "tool": "create_task",
        "description": "Create a task",
        "args": {"title": "Refresh images"},
        "actor": "U0GRACE",
        "expires_at": expires.isoformat(),
        "proposal_fingerprint": "f" * 64,
        "run_id": "r1",
    }
    blocks = cards.approval_card("T0TEAM:C1:1.1", [{"proposals": [proposal], "run_id": "r1"}])
    context = next(b for b in blocks if "Asked by" in str(b))
    text = context["elements"][0]["text"]
    stamp = int(expires.timestamp())
    assert text == (
        f"Asked by <@U0GRACE> · expires "
        f"<!date^{stamp}^{{date_short_pretty}} at {{time}}|2026-12-03 05:30 UTC>"
    )


def test_a_value_that_is_not_a_date_is_shown_as_given() -> None:
    assert when("soon") == "soon"
