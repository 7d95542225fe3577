"""Proposed mutations and decisions on them: the confirmation contract every surface shares.

A wave's mutating calls become one confirmation request (the `interrupt()` payload). A
decision (the resume value) is checked here, by the runner before it resumes anything and
again by the confirm node, so a bad decision is refused the same way from the CLI, Slack,
a thread reply or Studio.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph.state import Decision
from tools.declaration import Tool, ToolArgumentsError


class Proposal(TypedDict):
    """One mutating call waiting for a person's decision."""

    tool_call_id: str
    tool: str
    args: dict[str, Any]
    description: str
    run_id: str
    actor: str
    created_at: str
    expires_at: str
    proposal_fingerprint: str


class ConfirmationRequest(TypedDict, total=False):
    """The interrupt payload: the proposals of one wave, and why a decision was refused."""

    type: Literal["confirmation"]
    run_id: str
    """The run that proposed (a planner run, for a change inside the planner)."""
    turn_run_id: str
    """The main run of the turn: resumes join its trace and are audited as its children."""
    actor: str
    expires_at: str
    proposals: list[Proposal]
    error: str
    """Set when the previous decision was refused: what to do instead."""


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


def fingerprint(tool: str, args: dict[str, Any], actor: str, created_at: str, call_id: str) -> str:
    """Return sha256 of the tool, its normalized arguments, the actor and the creation time.

    The call id is part of it, so two identical calls in one wave are two proposals.
    """
    payload = json.dumps(
        [tool, args, actor, created_at, call_id], sort_keys=True, separators=(",", ":"), default=str
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
    run_id: str,
    actor: str,
    created_at: float,
    ttl_s: float,
) -> Proposal:
    """Return the proposal for one validated mutating call."""
    created = _iso(created_at)
    return Proposal(
        tool_call_id=call_id,
        tool=tool.name,
        args=args,
        description=describe(tool, args),
        run_id=run_id,
        actor=actor,
        created_at=created,
        expires_at=_iso(created_at + ttl_s),
        proposal_fingerprint=fingerprint(tool.name, args, actor, created, call_id),
    )


def describe(tool: Tool, args: dict[str, Any]) -> str:
    """Return a one-line, human description: what the tool does, with which values."""
    what = tool.description.strip().splitlines()[0].rstrip(".") if tool.description else tool.name
    values = ", ".join(f"{key}: {_short(value)}" for key, value in args.items() if value)
    return f"{what} — {values}" if values else what


def check(
    request: ConfirmationRequest,
    raw: Any,
    *,
    decider: str,
    decider_role: str,
    approver_roles: frozenset[str],
    tools: dict[str, Tool],
    now: float,
) -> dict[str, Decision] | str:
    """Return the decision for each proposal, or why the resume value is refused.

    Refusals are full sentences the person can act on; the proposal stays pending.
    """
    try:
        value = ResumeValue.model_validate(raw)
    except ValidationError:
        return (
            "I couldn't read that decision. Answer approve, reject (with a reason) or edit "
            "(with the new arguments)."
        )
    proposals = request.get("proposals", [])
    by_fingerprint = {p["proposal_fingerprint"]: p for p in proposals}
    if value.fingerprint is not None and value.fingerprint not in by_fingerprint:
        return "That proposal is no longer waiting for a decision; nothing was changed."
    if value.decisions is not None and set(value.decisions) - set(by_fingerprint):
        return "That proposal is no longer waiting for a decision; nothing was changed."
    actor = request.get("actor", "")
    if decider != actor and decider_role not in approver_roles:
        roles = " or ".join(sorted(approver_roles)) or "nobody else"
        return f"Only {actor} (or a {roles}) can decide on this proposal; it is still waiting."
    decided_at = value.decided_at if value.decided_at is not None else now
    if value.decision == "dismiss":
        if not (value.message or "").strip():
            return "A dismissal carries the person's new message."
        return {
            p["tool_call_id"]: Decision(
                decision="dismiss", args=p["args"], decided_by=decider, reason=value.reason
            )
            for p in proposals
        }
    expired = [p for p in proposals if _epoch(p["expires_at"]) <= decided_at]
    if expired:
        return (
            f"This proposal expired at {expired[0]['expires_at']} and was not run. "
            "Ask me again if you still want it."
        )
    chosen = _per_proposal(value, proposals)
    if isinstance(chosen, str):
        return chosen
    decisions: dict[str, Decision] = {}
    for proposal in proposals:
        choice = chosen.get(proposal["proposal_fingerprint"])
        if choice is None:
            return "Decide on every proposal of the request (by fingerprint), or on all at once."
        args = proposal["args"]
        if choice.decision == "edit":
            if choice.args is None:
                return "An edit needs the new arguments."
            args = {**proposal["args"], **choice.args}
            try:
                tools[proposal["tool"]].validate(args)
            except ToolArgumentsError as exc:
                return f"The edited arguments are not valid ({exc}); the proposal is unchanged."
        decisions[proposal["tool_call_id"]] = Decision(
            decision=choice.decision,
            args=args,
            idempotency_key=idempotency_key(proposal, args),
            decided_by=decider,
            reason=choice.reason,
        )
    return decisions


def _per_proposal(
    value: ResumeValue, proposals: list[Proposal]
) -> dict[str, ProposalDecision] | str:
    if value.decisions is not None:
        return value.decisions
    if value.decision is None:
        return "Say approve, reject or edit."
    if value.decision == "edit" and len(proposals) > 1:
        return "Which proposal should the edit change? Give its fingerprint."
    one = ProposalDecision(decision=value.decision, args=value.args, reason=value.reason)
    if value.fingerprint is not None and len(proposals) > 1:
        # One request is one interrupt: it is resolved as a whole, never partly.
        return "Decide on every proposal of the request (by fingerprint), or on all at once."
    return {p["proposal_fingerprint"]: one for p in proposals}


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "…"
