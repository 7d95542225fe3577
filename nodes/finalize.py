"""finalize: settles the answer — the verified draft, a limit notice or a graceful failure."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from graph.context import Context
from graph.state import AgentState, FinalizeUpdate
from prompts import replies

NO_REPLY = "NO_REPLY"


async def finalize(state: AgentState, runtime: Runtime[Context]) -> FinalizeUpdate:
    """Write the final answer into history and `final_text` (empty for a silent NO_REPLY)."""
    cap = state.get("cap")
    if cap:
        return {"messages": [AIMessage(content=cap)], "status": "capped", "final_text": cap}
    if state.get("status") == "failed_verification":
        text = replies.graceful_failure(state.get("attempt", 0), state.get("feedback", []))
        return {"messages": [AIMessage(content=text)], "final_text": text}
    if state.get("final_text"):
        return {"status": "completed"}
    answer = state["messages"][-1]
    text = answer.text.strip()
    if text == NO_REPLY:
        return {"status": "completed", "final_text": ""}
    update: FinalizeUpdate = {"status": "completed", "final_text": text}
    if isinstance(answer, AIMessage) and text != answer.content:
        update["messages"] = [answer.model_copy(update={"content": text})]
    return update
