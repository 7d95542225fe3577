"""Block Kit approval cards: proposed changes with Approve / Reject, then who decided what."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.slack.formatting import when

APPROVE = "agentloop_approve"
REJECT = "agentloop_reject"
DECISION_BLOCK = "agentloop_decision"
_FIELD_CHARS = 300
_MAX_FIELDS = 10


@dataclass(frozen=True)
class CardRef:
    """What a card's buttons carry: its thread, proposals, their calls and the turn's run id.

    A decision's audit row names the turn's run id as its parent.
    """

    thread_id: str
    fingerprints: list[str]
    call_ids: list[str]
    run_id: str = ""


def escape(text: str) -> str:
    """Escape the characters Slack reads as markup (`&`, `<`, `>`)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mention_people(text: str, user_ids: Iterable[str]) -> str:
    """Return `text` with each bare occurrence of a known Slack user id as a `<@U…>` mention."""
    ids = sorted({u for u in user_ids if u}, key=len, reverse=True)
    if not ids:
        return text
    bare = re.compile(r"(?<![@\w])(" + "|".join(re.escape(u) for u in ids) + r")(?!\w)")
    return bare.sub(r"<@\1>", text)


def button_value(thread_id: str, run_id: str, proposals: list[dict[str, Any]]) -> str:
    """Return what the buttons carry: the thread and the exact proposals they decide."""
    return json.dumps(
        {
            "thread": thread_id,
            "run": run_id,
            "fingerprints": [p["proposal_fingerprint"] for p in proposals],
            "calls": [p.get("tool_call_id", "") for p in proposals],
        },
        separators=(",", ":"),
    )


def read_button_value(value: str) -> CardRef:
    """Return the card a button belongs to (ValueError when the value is not one of ours)."""
    try:
        data = json.loads(value)
        return CardRef(
            str(data["thread"]),
            [str(f) for f in data["fingerprints"]],
            [str(c) for c in data.get("calls", [])],
            str(data.get("run") or ""),
        )
    except (TypeError, KeyError, json.JSONDecodeError) as exc:
        raise ValueError(f"not an approval button value: {value[:80]!r}") from exc


def card_of_message(message: dict[str, Any]) -> CardRef | None:
    """Return the card a posted message is, when it still shows its buttons."""
    for block in message.get("blocks") or []:
        if block.get("type") == "actions" and block.get("block_id") == DECISION_BLOCK:
            for element in block.get("elements", []):
                try:
                    return read_button_value(str(element.get("value", "")))
                except ValueError:
                    continue
    return None


def decision_for(action_id: str, fingerprints: list[str], user_id: str) -> dict[str, Any]:
    """Return the runner's resume value for a click: the decision on each named proposal."""
    if action_id == APPROVE:
        one: dict[str, Any] = {"decision": "approve"}
    else:
        one = {"decision": "reject", "reason": f"Rejected with the button by {user_id}."}
    return {"decisions": {fingerprint: dict(one) for fingerprint in fingerprints}}


def approval_card(thread_id: str, interrupts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the blocks of a card for the pending proposals, with Approve / Reject buttons.

    Each proposal's description appears once, in its own section with its arguments.
    """
    proposals = [p for item in interrupts for p in item.get("proposals", [])]
    intro = (
        "I'd like to make this change:"
        if len(proposals) == 1
        else f"I'd like to make these {len(proposals)} changes:"
    )
    blocks: list[dict[str, Any]] = [_section(intro)]
    for proposal in proposals:
        blocks.append(_section(f"*{escape(proposal['tool'])}* — {escape(proposal['description'])}"))
        fields = [
            {"type": "mrkdwn", "text": f"*{escape(str(key))}*\n{escape(_short(value))}"}
            for key, value in proposal["args"].items()
            if value not in (None, "", [], {})
        ][:_MAX_FIELDS]
        if fields:
            blocks.append({"type": "section", "fields": fields})
        blocks.append(
            _context(f"Asked by <@{proposal['actor']}> · expires {when(proposal['expires_at'])}")
        )
    blocks.append(_context("Approve or reject here, or answer in the thread (yes / no)."))
    first = interrupts[0] if interrupts else {}
    run_id = str(first.get("turn_run_id") or first.get("run_id") or "")
    value = button_value(thread_id, run_id, proposals)
    blocks.append(
        {
            "type": "actions",
            "block_id": DECISION_BLOCK,
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
    """Return the card with its buttons (and their hint) replaced by the outcome line."""
    kept = [b for b in blocks if b.get("type") != "actions" and not _is_hint(b)]
    kept.append(_context(outcome))
    return kept


def _is_hint(block: dict[str, Any]) -> bool:
    elements = block.get("elements") or [{}]
    return block.get("type") == "context" and str(elements[0].get("text", "")).startswith(
        "Approve or reject here"
    )


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text[:3000]}}


def _context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text[:3000]}]}


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _FIELD_CHARS else text[: _FIELD_CHARS - 1] + "…"
