"""Graph state: plain JSON-like data plus the message list (it must load after a deploy).

No field has a default: LangGraph ignores TypedDict defaults, so every node that needs
a value either writes it first (guard starts each turn) or reads it with `.get`.
Every TypedDict here is `typing_extensions.TypedDict`: on Python 3.11 pydantic (which
LangGraph Server uses for the input and output schemas Studio draws) refuses `typing`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, TypeVar, cast

from langchain_core.messages import AnyMessage, RemoveMessage
from langgraph.graph.message import add_messages
from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

OPENING_NODES = ("guard", "gather")
"""The nodes that open a turn, side by side in one step: guard screens the message while
gather collects the sources for it; act starts once both are done (unless guard answered)."""

_Update = TypeVar("_Update", bound=Mapping[str, Any])


def changes(update: _Update, state: Mapping[str, Any]) -> _Update:
    """`update` without the values `state` already holds.

    Each value a node writes is stored again with the step's checkpoint, the same or not:
    most of a fresh turn's (its empty lists, its zero counters) are what the thread holds.
    """
    return cast(_Update, {k: v for k, v in update.items() if k not in state or state[k] != v})


TurnStatus = Literal[
    "running", "completed", "capped", "unavailable", "failed_verification", "blocked"
]
"""`capped`: a limit ended the turn; `unavailable`: the model could not be reached (the turn
ends with a reply saying so)."""


class Source(TypedDict):
    """Something the answer may rest on: thread history, a file, a record a pack found."""

    type: str
    reference: str
    excerpt: str
    label: NotRequired[str]
    """How the prompt names its kind ("knowledge base"); its `type` when not given."""
    cite: NotRequired[bool]
    """A document an answer that uses it must cite by its reference."""


def record_name(source: Source) -> str:
    """The name of the record a source is about ("Garlic Press (Thorinox)" → "Garlic Press")."""
    reference = source["reference"]
    return reference.split(" (", 1)[0] if reference.endswith(")") else reference


class AskerRecord(TypedDict):
    """Who a turn acts for, fixed when the turn opens."""

    user_id: str
    role: str


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


class SetAside(TypedDict):
    """A change left waiting while a message from someone who may not decide it is answered.

    The wave's AI message leaves the transcript meanwhile (its calls have no results yet);
    finalize puts it back last, with the bookkeeping of the turn it belongs to, and the
    change waits again.
    """

    message: dict[str, Any]
    """The AI message with the calls (`message_to_dict`)."""
    pending: ConfirmationRequest
    turn: dict[str, Any]
    """The waiting turn's own keys (its asker, run id, counters, sources), as they were."""


ExecutionMode = Literal["auto_execute", "draft_only", "agent_review"]
PlanStatus = Literal["drafted", "pending_review", "rejected", "needs_changes", "executed"]


class PlanRecord(TypedDict):
    """A plan the thread keeps: a draft waits here for "run it" or a revision."""

    plan_id: str
    objective: str
    steps: list[str]
    execution_mode: ExecutionMode
    status: PlanStatus
    version: int
    requested_outputs: list[str]
    priority_entities: list[str]


def merge_plans(
    current: dict[str, PlanRecord] | None, update: dict[str, PlanRecord] | None
) -> dict[str, PlanRecord]:
    """Reducer: plans are added or replaced by id, never dropped by a partial update."""
    return {**(current or {}), **(update or {})}


class AgentState(TypedDict, total=False):
    """The state of one conversation (a thread), carried across turns by the checkpointer."""

    messages: Annotated[list[AnyMessage], add_messages]
    run_id: str
    turn_start_id: str
    """Id of the human message that opened the current turn."""
    asker: AskerRecord
    """Who the turn acts for (its opening message's author), whoever decides later."""
    pending: ConfirmationRequest | None
    """The wave's proposals, recorded once by propose: a re-run or a fork of confirm shows
    (and keys) the same proposals; None when nothing waits."""
    deadline: float
    """Epoch seconds after which the turn stops (the per-turn watchdog)."""
    rounds: int
    tool_calls_used: int
    attempt: int
    feedback: list[str]
    sources: list[Source]
    context_block: str
    cap: str | None
    """Why the turn was stopped early (a limit), or None."""
    status: TurnStatus
    final_text: str
    decisions: dict[str, Decision]
    """The person's decisions on this turn's proposed mutations, by tool call id."""
    issues: list[str]
    """Every problem verify found in this turn's drafts (for the graceful failure)."""
    summary: str
    """Compaction summary of the messages no longer in `messages` (injected at the top)."""
    compactions: int
    """How many times this thread's history was compacted."""
    plans: Annotated[dict[str, PlanRecord], merge_plans]
    """Plans the planner drafted in this thread, by plan id (a draft waits here for review)."""
    set_aside: SetAside | None
    """A change left waiting while someone else's message is answered (None: none)."""


@with_config(ConfigDict(use_attribute_docstrings=True))
class AgentInput(TypedDict):
    """What a caller sends to start a turn: the message (Studio's input form)."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The person's message; a turn reads the last one."""


@with_config(ConfigDict(use_attribute_docstrings=True))
class AgentOutput(TypedDict, total=False):
    """What a caller reads after a turn: the conversation, the answer and how the turn ended."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The thread's conversation, ending with the answer (or the pending proposal)."""
    final_text: str
    """The answer as sent to the person (empty while a change waits for approval)."""
    status: TurnStatus
    """How the turn ended: completed, capped, failed_verification or blocked; running while
    a change waits for approval."""
    run_id: str
    """The turn's run id (its row in the audit, its trace)."""
    turn_start_id: str
    """The id of the message that opened the turn: the turn is the messages from it on."""


class Decision(TypedDict, total=False):
    """What a person decided about one proposed mutation (written by confirm, read by tools)."""

    decision: Literal["approve", "edit", "reject", "dismiss"]
    fingerprint: str
    """The proposal decided on (the confirmation record in the workspace is keyed by it)."""
    args: dict[str, Any]
    """The arguments to run with: the proposal's, or the edited ones."""
    idempotency_key: str
    decided_by: str
    reason: str


class GuardUpdate(TypedDict, total=False):
    """What guard writes: a fresh turn."""

    messages: list[AnyMessage | RemoveMessage]
    run_id: str
    turn_start_id: str
    asker: AskerRecord
    pending: ConfirmationRequest | None
    deadline: float
    rounds: int
    tool_calls_used: int
    attempt: int
    feedback: list[str]
    cap: str | None
    status: TurnStatus
    final_text: str
    decisions: dict[str, Decision]
    issues: list[str]


class GatherUpdate(TypedDict):
    """What gather writes."""

    sources: list[Source]
    context_block: str


class ActUpdate(TypedDict, total=False):
    """What act writes: the model's answer and, after a compaction, the removals and summary."""

    messages: list[AnyMessage | RemoveMessage]
    cap: str | None
    status: TurnStatus
    summary: str
    compactions: int


class ProposeUpdate(TypedDict, total=False):
    """What propose writes: the wave's proposals."""

    pending: ConfirmationRequest | None


class ToolsUpdate(TypedDict, total=False):
    """What the tools node writes."""

    messages: list[AnyMessage]
    rounds: int
    tool_calls_used: int
    cap: str | None


class ConfirmUpdate(TypedDict, total=False):
    """What confirm writes: the decisions, or (dismissed) the calls' results and a new message."""

    messages: list[AnyMessage | RemoveMessage]
    decisions: dict[str, Decision]
    pending: ConfirmationRequest | None
    deadline: float
    set_aside: SetAside | None
    status: TurnStatus
    final_text: str


class VerifyUpdate(TypedDict, total=False):
    """What verify writes."""

    messages: list[Any]
    attempt: int
    feedback: list[str]
    issues: list[str]
    status: TurnStatus


class FinalizeUpdate(TypedDict, total=False):
    """What finalize writes (and, putting a change set aside back, `SetAside.turn`'s keys)."""

    messages: list[AnyMessage]
    status: TurnStatus
    final_text: str
    pending: ConfirmationRequest | None
    set_aside: SetAside | None
