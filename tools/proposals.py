"""Proposed mutations and decisions on them: the confirmation contract every surface shares.

A wave's mutating calls become one confirmation request (the `interrupt()` payload). A
decision (the resume value) is checked here, by the confirm node only, so a bad decision
is refused the same way from the CLI, Slack, a thread reply or Studio.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.asker import Asker
from core.state import ConfirmationRequest, Decision, Proposal
from tools.declaration import Tool, ToolArgumentsError

RefusalReason = Literal[
    "unreadable",
    "not_pending",
    "not_allowed",
    "expired",
    "invalid_edit",
    "incomplete",
    "not_recorded",
    "changed",
    "unmigrated",
]


DECISION_SHAPES = (
    'A decision looks like {"decision": "approve"}, {"decision": "reject", "reason": "…"} or '
    '{"decision": "edit", "args": {…}}, or a reply such as "yes" or "no"; nothing was changed.'
)
"""What a refused, unreadable decision is told to look like."""


@dataclass(frozen=True)
class Refusal:
    """Why a decision was not applied; the proposal stays pending. `text` is for the person."""

    reason: RefusalReason
    text: str


class ProposalDecision(BaseModel):
    """A decision on one proposal."""

    model_config = ConfigDict(extra="forbid")
    decision: Literal["approve", "edit", "reject"]
    args: dict[str, Any] | None = None
    """The new arguments of an `edit`."""
    reason: str = Field(default="", max_length=2000)


class ResumeValue(BaseModel):
    """What a surface sends to resume a confirmation (the `Command(resume=...)` value).

    `decision` applies to every proposal of the request (`edit` only when it has one, or
    when `fingerprint` picks one); `decisions` decides proposal by proposal (by fingerprint).
    `dismiss` drops the request because the person moved on, with their new `message`.
    A typed reply in the thread is read into one of these by the confirm node first.
    """

    model_config = ConfigDict(extra="forbid")
    decision: Literal["approve", "edit", "reject", "dismiss"] | None = None
    fingerprint: str | None = None
    args: dict[str, Any] | None = None
    reason: str = Field(default="", max_length=2000)
    message: str | None = None
    decisions: dict[str, ProposalDecision] | None = None
    decided_at: float | None = None
    """Epoch seconds when the person decided (stamped by the runner); default: now."""


def fingerprint(tool: str, args: dict[str, Any], actor: str, message_id: str, call_id: str) -> str:
    """Return sha256 of the tool, its normalized arguments, the actor and the call asked for.

    The call is named by the AI message that asked for it and its call id: values a re-run
    or a fork of the thread cannot change, so every path to the same proposal (a re-run from
    any checkpoint, a second process) keys the same mutation. Two identical calls in one
    wave, or the same call asked for again in a later turn, are different proposals.
    """
    payload = json.dumps(
        [tool, args, actor, message_id, call_id], sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def idempotency_key(proposal: Proposal, args: dict[str, Any]) -> str:
    """Return the key the mutation is stored under: the fingerprint, plus edited arguments."""
    if args == proposal["args"]:
        return f"confirm:{proposal['proposal_fingerprint']}"
    edited = json.dumps(args, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(f"{proposal['proposal_fingerprint']}|{edited}".encode()).hexdigest()
    return f"confirm:{digest}"


def make_proposal(
    tool: Tool,
    args: dict[str, Any],
    *,
    call_id: str,
    message_id: str,
    run_id: str,
    actor: str,
    created_at: float,
    ttl_s: float,
) -> Proposal:
    """Return the proposal for one validated mutating call."""
    return Proposal(
        tool_call_id=call_id,
        tool=tool.name,
        args=args,
        description=describe(tool, args),
        run_id=run_id,
        actor=actor,
        created_at=_iso(created_at),
        expires_at=_iso(created_at + ttl_s),
        proposal_fingerprint=fingerprint(tool.name, args, actor, message_id, call_id),
    )


def describe(tool: Tool, args: dict[str, Any]) -> str:
    """Return a one-line, human description: what the tool does, with which values."""
    values = ", ".join(f"{key}: {_short(value)}" for key, value in args.items() if value)
    line = f"{tool.summary} — {values}" if values else tool.summary
    return f"{line}\n⚠ {tool.caution}" if tool.caution else line


def may_decide(decider: Asker, actor: str, approver_roles: frozenset[str]) -> bool:
    """Whether `decider` may decide on `actor`'s proposal: the actor, or an approver role."""
    return decider.user_id == actor or decider.role in approver_roles


def who_may_decide(actor: str, approver_roles: frozenset[str]) -> str:
    """Return "U0GRACE or an admin": the people a decision on `actor`'s proposal is up to."""
    roles = sorted(approver_roles)
    if not roles:
        return actor
    return f"{actor} or " + " or ".join(f"{_article(role)} {role}" for role in roles)


def check(
    request: ConfirmationRequest,
    raw: Any,
    *,
    decider: Asker,
    approver_roles: frozenset[str],
    tools: dict[str, Tool],
    now: float,
) -> dict[str, Decision] | Refusal:
    """Return the decision for each proposal, or why the resume value is refused.

    Refusals are full sentences the person can act on; the proposal stays pending. Only the
    proposal's actor (the turn's asker) or someone whose role is in `approver_roles` decides.
    """
    try:
        value = ResumeValue.model_validate(raw)
    except ValidationError:
        return Refusal("unreadable", f"I couldn't read that decision. {DECISION_SHAPES}")
    proposals = request.get("proposals", [])
    by_fingerprint = {p["proposal_fingerprint"]: p for p in proposals}
    named = {value.fingerprint} if value.fingerprint is not None else set(value.decisions or {})
    if named - set(by_fingerprint):
        return Refusal(
            "not_pending", "That proposal is no longer waiting for a decision; nothing was changed."
        )
    actor = request.get("actor", "")
    if not may_decide(decider, actor, approver_roles):
        return Refusal(
            "not_allowed",
            f"Only {who_may_decide(actor, approver_roles)} can decide on this proposal; "
            "it is still waiting.",
        )
    decided_at = value.decided_at if value.decided_at is not None else now
    if value.decision == "dismiss":
        if not (value.message or "").strip():
            return Refusal("incomplete", "A dismissal carries the person's new message.")
        return {
            p["tool_call_id"]: Decision(
                decision="dismiss",
                fingerprint=p["proposal_fingerprint"],
                args=p["args"],
                decided_by=decider.user_id,
                reason=value.reason,
            )
            for p in proposals
        }
    expired = [p for p in proposals if _epoch(p["expires_at"]) <= decided_at]
    if expired:
        return Refusal(
            "expired",
            f"This proposal expired at {expired[0]['expires_at']} and was not run. "
            "Ask me again if you still want it.",
        )
    chosen = _per_proposal(value, proposals)
    if isinstance(chosen, Refusal):
        return chosen
    decisions: dict[str, Decision] = {}
    for proposal in proposals:
        choice = chosen.get(proposal["proposal_fingerprint"])
        if choice is None:
            return Refusal(
                "incomplete",
                "Decide on every proposal of the request (by fingerprint), or on all at once.",
            )
        args = proposal["args"]
        if choice.decision == "edit":
            edited = _edited(tools[proposal["tool"]], proposal["args"], choice.args)
            if isinstance(edited, Refusal):
                return edited
            args = edited
        decisions[proposal["tool_call_id"]] = Decision(
            decision=choice.decision,
            fingerprint=proposal["proposal_fingerprint"],
            args=args,
            idempotency_key=idempotency_key(proposal, args),
            decided_by=decider.user_id,
            reason=choice.reason,
        )
    return decisions


def _edited(
    tool: Tool, original: dict[str, Any], changes: dict[str, Any] | None
) -> dict[str, Any] | Refusal:
    """Return the edited arguments, strictly checked: an unknown field is named, not ignored."""
    if not changes:
        return Refusal("invalid_edit", "An edit needs the new arguments.")
    fields = set(tool.args_schema.model_fields)
    unknown = sorted(set(changes) - fields)
    if unknown:
        return Refusal(
            "invalid_edit",
            f"The edit names {', '.join(repr(f) for f in unknown)}, which {tool.name} does not "
            f"have (its fields: {', '.join(sorted(fields))}); the proposal is unchanged.",
        )
    args = {**original, **changes}
    try:
        tool.validate(args)
    except ToolArgumentsError as exc:
        return Refusal(
            "invalid_edit",
            f"The edited arguments are not valid ({exc}); the proposal is unchanged.",
        )
    return args


def _per_proposal(
    value: ResumeValue, proposals: list[Proposal]
) -> dict[str, ProposalDecision] | Refusal:
    if value.decisions is not None:
        return value.decisions
    if value.decision is None:
        return Refusal("unreadable", f"That names no decision. {DECISION_SHAPES}")
    if value.decision == "edit" and len(proposals) > 1 and value.fingerprint is None:
        return Refusal("incomplete", "Which proposal should the edit change? Give its fingerprint.")
    if value.fingerprint is not None and len(proposals) > 1:
        # One request is one interrupt: it is resolved as a whole, never partly.
        return Refusal(
            "incomplete",
            "Decide on every proposal of the request (by fingerprint), or on all at once.",
        )
    one = ProposalDecision(decision=value.decision, args=value.args, reason=value.reason)
    return {p["proposal_fingerprint"]: one for p in proposals}


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "…"
