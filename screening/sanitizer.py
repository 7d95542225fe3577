"""The output sanitizer: seven steps that clean a model's raw answer before it is posted.

The steps, in order: garbled tool-call XML, tool calls downgraded to text, thinking tags,
final-tag wrappers, echoed system messages, stuttered (repeated) paragraphs, leading blank
lines; then surrounding whitespace.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOOL_TAGS = r"(?:minimax:tool_call|tool_calls?|function_calls?|tool_use|invoke|antml:invoke)"
_TOOL_BLOCK = re.compile(rf"<({_TOOL_TAGS})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_PARAMETER = re.compile(r"<parameter\b[^>]*>.*?</parameter\s*>", re.IGNORECASE | re.DOTALL)
_TOOL_TAG = re.compile(rf"</?(?:{_TOOL_TAGS}|parameter)\b[^>]*>", re.IGNORECASE)
# DeepSeek-style special tokens around text-format calls.
_TOOL_TOKENS = re.compile(r"<｜tool[▁_][^｜]*｜>|<\|tool_calls?_(?:begin|end)\|>", re.IGNORECASE)

_DOWNGRADED = re.compile(r"^\s*\[(Tool Call:|Tool Result\b|Historical context:)", re.IGNORECASE)

_THINKING_NAMES = r"(?:think|thinking|thought|antThinking)"
_THINKING_BLOCK = re.compile(rf"<({_THINKING_NAMES})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_THINKING_UNCLOSED = re.compile(rf"<{_THINKING_NAMES}\b[^>]*>.*\Z", re.IGNORECASE | re.DOTALL)
_THINKING_ORPHAN_CLOSE = re.compile(rf"\A.*?</{_THINKING_NAMES}\s*>", re.IGNORECASE | re.DOTALL)

_FINAL_TAG = re.compile(r"</?final\s*>", re.IGNORECASE)
_SYSTEM_MESSAGE = re.compile(r"^\s*\[System Message\]", re.IGNORECASE)


def strip_garbled_tool_xml(text: str) -> str:
    """Step 1: remove tool-call XML some models write as text; all-XML answers become empty."""
    cleaned = _TOOL_BLOCK.sub("", text)
    cleaned = _PARAMETER.sub("", cleaned)
    cleaned = _TOOL_TAG.sub("", cleaned)
    cleaned = _TOOL_TOKENS.sub("", cleaned)
    return cleaned if cleaned.strip() else ""


def strip_downgraded_tool_call_text(text: str) -> str:
    """Step 2: remove `[Tool Call: …]` / `[Tool Result …]` lines and their JSON, to a blank line."""
    return _drop_marked_blocks(text, _DOWNGRADED)


def strip_thinking_tags(text: str) -> str:
    """Step 3: remove reasoning blocks (think, thinking, thought, antThinking)."""
    cleaned = _THINKING_BLOCK.sub("", text)
    # A reply cut off mid-thought, or one whose opening tag the server swallowed.
    cleaned = _THINKING_UNCLOSED.sub("", cleaned)
    return _THINKING_ORPHAN_CLOSE.sub("", cleaned)


def strip_final_tags(text: str) -> str:
    """Step 4: remove `<final>` wrappers, keeping what they wrap."""
    return _FINAL_TAG.sub("", text)


def strip_echoed_system_messages(text: str) -> str:
    """Step 5: remove `[System Message]` blocks the model echoed, up to the next blank line."""
    return _drop_marked_blocks(text, _SYSTEM_MESSAGE)


def collapse_consecutive_duplicate_blocks(text: str) -> str:
    """Step 6: drop a paragraph that repeats the one before it (model stutter)."""
    kept: list[str] = []
    for block in re.split(r"\n(?:[ \t]*\n)+", text):
        if kept and block.strip() and block.strip() == kept[-1].strip():
            continue
        kept.append(block)
    return "\n\n".join(kept)


def strip_leading_blank_lines(text: str) -> str:
    """Step 7: remove whitespace-only lines at the start, keeping the indentation after them."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


STEPS: tuple[Callable[[str], str], ...] = (
    strip_garbled_tool_xml,
    strip_downgraded_tool_call_text,
    strip_thinking_tags,
    strip_final_tags,
    strip_echoed_system_messages,
    collapse_consecutive_duplicate_blocks,
    strip_leading_blank_lines,
)


def sanitize(text: str) -> str:
    """Run the seven steps in order and trim the result."""
    for step in STEPS:
        text = step(text)
    return text.strip()


def _drop_marked_blocks(text: str, marker: re.Pattern[str]) -> str:
    """Remove each line `marker` matches and the lines after it, up to a blank line."""
    kept: list[str] = []
    skipping = False
    for line in text.split("\n"):
        if marker.match(line):
            skipping = True
            continue
        if skipping:
            if line.strip():
                continue
            skipping = False
        kept.append(line)
    return "\n".join(kept)
