"""How the local model sees a conversation: chat-template messages and a compact tool manual."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from core.models.local_grammar import inline_refs

TOOL_RESULT_CHARS = 1200
"""Longer tool results are cut: the context window is small and so is the model's attention."""
DEFAULT_SYSTEM = "You are a helpful assistant."
BREVITY = "Keep your answers short."
_DESCRIPTION_CHARS = 240


def render_messages(
    messages: Sequence[BaseMessage], *, system_suffix: str = "", json_mode: bool = True
) -> list[dict[str, str]]:
    """Render LangChain messages as chat-template messages the model understands.

    Args:
        messages: The conversation.
        system_suffix: Text appended to the leading system message (the tool manual).
        json_mode: Render earlier assistant replies as `{"reply": ...}` so the history shows
            the model the same format it must answer in.

    Returns:
        `{"role", "content"}` dicts: one leading system message when there is any system
        text, tool calls as assistant JSON and tool results as user messages.
    """
    leading: list[str] = []
    body: list[dict[str, str]] = []
    tool_names: dict[str, str] = {}
    for message in messages:
        text = _text(message)
        if isinstance(message, SystemMessage):
            if body:
                body.append({"role": "system", "content": text})
            else:
                leading.append(text)
        elif isinstance(message, AIMessage):
            lines = []
            if message.tool_calls:
                for call in message.tool_calls:
                    if call.get("id"):
                        tool_names[str(call["id"])] = call["name"]
                    lines.append(_dumps({"tool": call["name"], "args": call.get("args", {})}))
            elif text:
                lines.append(_dumps({"reply": text}) if json_mode else text)
            if lines:
                body.append({"role": "assistant", "content": "\n".join(lines)})
        elif isinstance(message, ToolMessage):
            name = message.name or tool_names.get(message.tool_call_id, "tool")
            body.append({"role": "user", "content": f"Tool result ({name}): {_cut(text)}"})
        elif isinstance(message, HumanMessage):
            body.append({"role": "user", "content": text})
        else:
            body.append({"role": "user", "content": text})
    # Without a system message the chat template injects its own persona prompt, which
    # makes this small model ramble; a neutral one keeps it on task.
    system = "\n\n".join(part for part in [*leading, system_suffix] if part.strip())
    return [{"role": "system", "content": system or DEFAULT_SYSTEM}, *body]


def _text(message: BaseMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    parts = []
    for block in message.content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def _cut(text: str, limit: int = TOOL_RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f" …[{len(text) - limit} more characters cut]"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def tool_manual(tools: list[dict[str, Any]], choice: str | None, reply_allowed: bool) -> str:
    """Describe the answer format and the callable tools in a few compact lines."""
    lines = [BREVITY, "Answer with exactly one JSON object."]
    if reply_allowed:
        # A placeholder such as "<your answer>" gets copied verbatim by a 135M model.
        lines.append('To answer the user directly, write {"reply": ...} in your own words.')
    if not tools:
        return "\n".join(lines)
    lines.append(
        'To call a tool: {"tool": "<tool name>", "args": {<arguments>}} '
        "(the tool result comes back in the next message)"
    )
    if reply_allowed:
        lines.append("When a tool result answers the question, reply with it.")
    if not reply_allowed:
        if choice not in (None, "auto", "required", "none"):
            lines.append(f"Call the tool {choice} now.")
        else:
            lines.append("Call one of the tools now.")
    lines.append("Tools:")
    for tool in tools:
        fn = tool["function"]
        description = " ".join(str(fn.get("description") or "").split())
        if len(description) > _DESCRIPTION_CHARS:
            description = description[: _DESCRIPTION_CHARS - 1] + "…"
        signature = _signature(fn.get("parameters") or {})
        lines.append(f"- {fn['name']}({signature})" + (f": {description}" if description else ""))
    return "\n".join(lines)


def _signature(parameters: dict[str, Any]) -> str:
    """Render a parameters schema as `name: type, other?: type`."""
    schema = inline_refs(parameters)
    required = set(schema.get("required", []))
    parts = []
    for name, prop in (schema.get("properties") or {}).items():
        mark = "" if name in required else "?"
        parts.append(f"{name}{mark}: {_type_name(prop)}")
    return ", ".join(parts)


def _type_name(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return "|".join(json.dumps(value) for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return "|".join(_type_name(alt) for alt in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind == "array":
        return f"{_type_name(schema.get('items', {}))}[]"
    if kind == "string" and schema.get("format"):
        return f"string ({schema['format']})"
    return str(kind or "any")


# --- grammar -------------------------------------------------------------------------------
