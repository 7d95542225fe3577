"""What a phase span shows as its input and output: the few values that explain the phase.

Node inputs are the whole state (every message of the thread); a trace carries only what a
person needs to see why the phase did what it did, so a long thread costs no more to trace.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.types import Command

TEXT_CHARS = 2_000


def message_view(message: BaseMessage) -> dict[str, Any]:
    """A message as a trace shows it: role, (cut) text, tool calls or the call it answers."""
    view: dict[str, Any] = {"role": message.type, "content": cut(message.text)}
    if isinstance(message, AIMessage):
        if message.tool_calls:
            view["tool_calls"] = [
                {"name": c["name"], "args": c["args"]} for c in message.tool_calls
            ]
        if message.invalid_tool_calls:
            view["invalid_tool_calls"] = [c.get("name") for c in message.invalid_tool_calls]
    if isinstance(message, ToolMessage):
        view["tool_call_id"] = message.tool_call_id
        view["outcome"] = message.additional_kwargs.get("outcome")
    return view


def turn_input(inputs: Any) -> Any:
    """The input of a whole run: the new message, or the decision it resumes with."""
    if isinstance(inputs, Command):
        if inputs.resume is not None:
            return {"resume": inputs.resume}
        inputs = inputs.update  # a new turn's message, written with its first nodes
    if isinstance(inputs, dict):
        messages = inputs.get("messages") or []
        return {"messages": [message_view(m) for m in messages if isinstance(m, BaseMessage)]}
    return inputs


def turn_output(outputs: Any) -> Any:
    """The output of a whole run: the answer and how the turn ended."""
    if isinstance(outputs, dict):
        return {
            "status": outputs.get("status"),
            "final_text": cut(str(outputs.get("final_text", ""))),
            "issues": outputs.get("issues", []),
        }
    return outputs


def phase_input(node: str, state: Any) -> dict[str, Any]:
    """A phase's input: the message it works on and the counters that steer it."""
    if not isinstance(state, dict):
        return {}
    messages: list[BaseMessage] = list(state.get("messages") or [])
    view: dict[str, Any] = {
        "messages": len(messages),
        "attempt": state.get("attempt", 0),
        "rounds": state.get("rounds", 0),
    }
    last = messages[-1] if messages else None
    if node in ("guard", "gather"):
        asked = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        view["user_input"] = cut(asked.text) if asked else ""
    elif node == "act":
        view["feedback"] = state.get("feedback", [])
        view["context_chars"] = len(str(state.get("context_block", "")))
        if last is not None:
            view["last_message"] = message_view(last)
    elif node in ("tools", "confirm") and isinstance(last, AIMessage):
        view["tool_calls"] = [
            {"id": c["id"], "name": c["name"], "args": c["args"]} for c in last.tool_calls
        ]
    elif node == "verify" and last is not None:
        view["draft_chars"] = len(last.text)
    elif node == "finalize":
        view["status"] = state.get("status")
        view["cap"] = state.get("cap")
    return view


def phase_output(update: Any) -> Any:
    """A phase's output: the state keys it wrote, messages shown as messages."""
    if isinstance(update, Command):
        return {"goto": update.goto, **(phase_output(update.update) or {})}
    if not isinstance(update, dict):
        return update
    view: dict[str, Any] = {}
    for key, value in update.items():
        if key == "messages" and isinstance(value, list):
            view[key] = [message_view(m) for m in value if isinstance(m, BaseMessage)]
        elif key in ("context_block", "final_text") and isinstance(value, str):
            view[key] = cut(value)
        else:
            view[key] = value
    return view


def cut(text: str) -> str:
    """`text`, cut to what a trace shows of it."""
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + f"… ({len(text)} chars)"
