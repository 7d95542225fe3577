"""finalize: settles the answer — the verified draft, a limit notice or a graceful failure.

A turn that ends without a verified draft (a limit, an outage, every draft rejected) still
answers with what its tools found, when they found something; what the answer checks found
wrong is told in the person's words (the checks' own feedback, meant for the model, stays
in the audit and the trace).

The draft goes through the output sanitizer first; `NO_REPLY` means nothing is posted. A
turn that answered someone beside a waiting change ends by putting that change back: the
thread waits for its decision again (confirm).
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from langgraph.types import Command

from core.run_context import RunContext
from core.state import AgentState, FinalizeUpdate, TurnStatus
from history.turn import turn_messages
from nodes import waiting_change
from prompts import replies
from prompts.findings import tool_findings, with_findings
from prompts.replies import NO_REPLY
from screening.answer_checks import for_person
from screening.sanitizer import sanitize


async def finalize(
    state: AgentState, runtime: Runtime[RunContext]
) -> Command[Literal["confirm", "__end__"]] | FinalizeUpdate:
    """Write the final answer into history and `final_text` (empty for a silent NO_REPLY)."""
    update = _settled(state)
    waiting = waiting_change.put_back(state)
    if waiting is None:
        return update
    # The answer goes first, then the change set aside for it, which waits again.
    messages = [*update.get("messages", []), *waiting.pop("messages")]
    return Command(goto="confirm", update={**update, **waiting, "messages": messages})


def _settled(state: AgentState) -> FinalizeUpdate:
    cap = state.get("cap")
    if cap:
        # A limit caps the turn; a model outage ends it with a reply that says so. Either
        # way, what the tools found is the best grounded answer the turn has.
        status: TurnStatus = "unavailable" if state.get("status") == "unavailable" else "capped"
        found = tool_findings(turn_messages(state))
        text = with_findings(_first_sentence(cap) if found else cap, found)
        return {"messages": [AIMessage(content=text)], "status": status, "final_text": text}
    if state.get("status") == "failed_verification":
        text = replies.graceful_failure(
            state.get("attempt", 0),
            for_person(state.get("issues") or state.get("feedback", [])),
            tried=_tried(state),
        )
        text = with_findings(text, tool_findings(turn_messages(state)))
        return {"messages": [AIMessage(content=text)], "final_text": text}
    if state.get("final_text"):
        # guard answered by itself (a blank or a blocked message).
        return {"status": "blocked" if state.get("status") == "blocked" else "completed"}
    answer = state["messages"][-1]
    text = sanitize(answer.text)
    if text == NO_REPLY:
        return {"status": "completed", "final_text": ""}
    update: FinalizeUpdate = {"status": "completed", "final_text": text}
    if isinstance(answer, AIMessage) and text != answer.content:
        update["messages"] = [answer.model_copy(update={"content": text})]
    return update


def _first_sentence(text: str) -> str:
    head, dot, _rest = text.partition(". ")
    return head + "." if dot else text


def _tried(state: AgentState) -> list[str]:
    """What the turn looked at: its tool calls and the gathered sources."""
    calls = [
        call["name"]
        for message in turn_messages(state)
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    ]
    sources = [source["reference"] for source in state.get("sources", [])]
    return [*calls, *sources]
