"""How the local model sees a conversation: chat-template text, tool lines, tool results.

A 135M model follows little of a long system prompt, so each stage gets a short prompt of
its own (see `local_stages`); these are the pieces they share.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from core.models.local_grammar import inline_refs
from core.models.local_turn import message_text

TOOL_RESULT_CHARS = 1200
"""Longer tool results are cut: the context window is small and so is the model's attention."""
DEFAULT_SYSTEM = "You are a helpful assistant."
_TODAY = re.compile(r"Today is [^\n]*?\d{4}-\d{2}-\d{2}[^.\n]*\.")
_CONTEXT_HEADER = "Context gathered for this message:"


def render_messages(
    messages: Sequence[BaseMessage], *, system_suffix: str = "", json_mode: bool = True
) -> list[dict[str, str]]:
    """Render LangChain messages as chat-template messages the model understands.

    Args:
        messages: The conversation.
        system_suffix: Text appended to the leading system message.
        json_mode: Show tool calls and earlier replies as JSON (`{"tool": ..., "args": ...}`,
            `{"reply": ...}`); otherwise tool calls are left out (their results name the
            tool) and replies are plain text, so a plain-text answer does not imitate JSON.

    Returns:
        `{"role", "content"}` dicts: one leading system message, tool results as user
        messages `Tool result (<name>): ...`.
    """
    leading: list[str] = []
    body: list[dict[str, str]] = []
    tool_names: dict[str, str] = {}
    for message in messages:
        text = message_text(message)
        if isinstance(message, SystemMessage):
            if body:
                body.append({"role": "system", "content": text})
            else:
                leading.append(text)
        elif isinstance(message, AIMessage):
            lines = []
            for call in message.tool_calls:
                if call.get("id"):
                    tool_names[str(call["id"])] = call["name"]
                if json_mode:
                    lines.append(_dumps({"tool": call["name"], "args": call.get("args", {})}))
            if text and not message.tool_calls:
                lines.append(_dumps({"reply": text}) if json_mode else text)
            if lines:
                body.append({"role": "assistant", "content": "\n".join(lines)})
        elif isinstance(message, ToolMessage):
            name = message.name or tool_names.get(message.tool_call_id, "tool")
            body.append({"role": "user", "content": f"Tool result ({name}): {result_text(text)}"})
        elif isinstance(message, HumanMessage):
            body.append({"role": "user", "content": text})
        else:
            body.append({"role": "user", "content": text})
    # Without a system message the chat template injects its own persona prompt, which
    # makes this small model ramble; a neutral one keeps it on task.
    system = "\n\n".join(part for part in [*leading, system_suffix] if part.strip())
    return [{"role": "system", "content": system or DEFAULT_SYSTEM}, *body]


def chatml(chat: Sequence[dict[str, str]], *, answer_prefix: str = "") -> str:
    """Apply SmolLM2's chat template and open the assistant's answer.

    Args:
        chat: `{"role", "content"}` messages.
        answer_prefix: Text the answer starts with (part of the prompt, not generated).
    """
    turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in chat)
    return f"{turns}<|im_start|>assistant\n{answer_prefix}"


def result_text(content: str) -> str:
    """Show a tool result to the model: JSON as indented `key: value` lines, cut to size.

    The 135M model copies values out of `key: value` lines far more often than out of JSON.
    """
    try:
        data = json.loads(content)
    except ValueError:
        return _cut(content)
    if not isinstance(data, dict | list):
        return _cut(content)
    return _cut("\n" + "\n".join(_lines(data, "")))


def argument_lines(tool: dict[str, Any]) -> list[str]:
    """One line per argument: `- name (optional): its description`."""
    schema = inline_refs(tool["function"].get("parameters") or {})
    required = set(schema.get("required") or [])
    lines = []
    for name, prop in (schema.get("properties") or {}).items():
        description = str(prop.get("description") or "") if isinstance(prop, dict) else ""
        mark = "" if name in required else " (optional)"
        lines.append(f"- {name}{mark}" + (f": {description}" if description else ""))
    return lines


def summary_line(tool: dict[str, Any]) -> str:
    """The first line of a tool's description (its name when it has none)."""
    fn = tool["function"]
    text = str(fn.get("description") or "").strip().split("\n", 1)[0]
    return text or str(fn["name"]).replace("_", " ")


def today_line(system: str) -> str:
    """The "Today is ..." sentence of the graph's system prompt, or ""."""
    match = _TODAY.search(system)
    return match.group(0) if match else ""


def context_lines(system: str) -> list[str]:
    """The entries of the system prompt's context block (`- [kind] reference: excerpt`)."""
    _, found, block = system.partition(_CONTEXT_HEADER)
    if not found:
        return []
    return [line for line in block.splitlines() if line.startswith("- [")]


def identity(system: str) -> str:
    """The first paragraph of the system prompt (who the assistant is), or a neutral one."""
    first = system.strip().split("\n\n", 1)[0].strip()
    return first or DEFAULT_SYSTEM


def _lines(node: Any, indent: str) -> list[str]:
    """YAML-like lines: `key: value`, nested blocks indented, list items after `- `."""
    out: list[str] = []
    items = node.items() if isinstance(node, dict) else ((None, item) for item in node)
    for key, value in items:
        if key is None and isinstance(value, dict) and value:
            # A list of objects: the item's first field goes on its dash line.
            inner = _lines(value, indent + "  ")
            out.append(f"{indent}- {inner[0].lstrip()}")
            out.extend(inner[1:])
            continue
        label = f"{indent}{key}:" if key is not None else f"{indent}-"
        if isinstance(value, dict | list) and value:
            out.append(label)
            out.extend(_lines(value, indent + "  "))
        else:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            out.append(f"{label} {shown}")
    return out


def _cut(text: str, limit: int = TOOL_RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f" …[{len(text) - limit} more characters cut]"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
