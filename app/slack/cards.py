"""Block Kit approval cards: proposed changes with Approve / Reject, then the outcome."""

from __future__ import annotations

import json
from typing import Any

APPROVE = "agentloop_approve"
REJECT = "agentloop_reject"
_FIELD_CHARS = 300
_MAX_FIELDS = 10


def escape(text: str) -> str:
    """Escape the characters Slack reads as markup (`&`, `<`, `>`)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def button_value(thread_id: str, fingerprints: list[str]) -> str:
    """Return what the buttons carry: the thread and the exact proposals they decide."""
    return json.dumps({"thread": thread_id, "fingerprints": fingerprints}, separators=(",", ":"))


def read_button_value(value: str) -> tuple[str, list[str]]:
    """Return the thread id and the fingerprints a button carries."""
    data = json.loads(value)
    return str(data["thread"]), [str(f) for f in data["fingerprints"]]


def decision_for(action_id: str, fingerprints: list[str], user_id: str) -> dict[str, Any]:
    """Return the runner's resume value for a click: the decision on each named proposal."""
    if action_id == APPROVE:
        one: dict[str, Any] = {"decision": "approve"}
    else:
        one = {"decision": "reject", "reason": f"Rejected with the button by {user_id}."}
    return {"decisions": {fingerprint: dict(one) for fingerprint in fingerprints}}


def approval_card(
    text: str, thread_id: str, interrupts: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Return the blocks of a card for the pending proposals, with Approve / Reject buttons."""
    proposals = [p for item in interrupts for p in item.get("proposals", [])]
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": text[:3000]}}
    ]
    for proposal in proposals:
        blocks.append(
            {
                "type": "section",
                "text": {
                    "type": "mrkdwn",
                    "text": f"*{escape(proposal['tool'])}* — {escape(proposal['description'])}"[
                        :3000
                    ],
                },
            }
        )
        fields = [
            {"type": "mrkdwn", "text": f"*{escape(str(key))}*\n{escape(_short(value))}"}
            for key, value in proposal["args"].items()
            if value not in (None, "", [], {})
        ][:_MAX_FIELDS]
        if fields:
            blocks.append({"type": "section", "fields": fields})
        blocks.append(
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "text": f"Asked by <@{proposal['actor']}> · expires "
                        f"{proposal['expires_at']}",
                    }
                ],
            }
        )
    value = button_value(thread_id, [p["proposal_fingerprint"] for p in proposals])
    blocks.append(
        {
            "type": "actions",
            "block_id": "agentloop_decision",
            "elements": [
                {
                    "type": "button",
                    "action_id": APPROVE,
                    "style": "primary",
                    "text": {"type": "plain_text", "text": "Approve"},
                    "value": value,
                },
                {
                    "type": "button",
                    "action_id": REJECT,
                    "style": "danger",
                    "text": {"type": "plain_text", "text": "Reject"},
                    "value": value,
                },
            ],
        }
    )
    return blocks


def decided_card(blocks: list[dict[str, Any]], outcome: str) -> list[dict[str, Any]]:
    """Return the card with its buttons replaced by the outcome line."""
    kept = [b for b in blocks if b.get("type") != "actions"]
    kept.append({"type": "context", "elements": [{"type": "mrkdwn", "text": outcome}]})
    return kept


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _FIELD_CHARS else text[: _FIELD_CHARS - 1] + "…"
