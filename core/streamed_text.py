"""Turns the text a model call streams into `chunk` run events, fragment by fragment.

Attached to one model call (act's answer), a LangChain callback handler: every model that
streams (ChatOpenAI with streaming on, the scripted model) reports its new tokens through
`on_llm_new_token`; LangGraph's `messages` stream mode reads the same callbacks for Studio.
It also keeps each streamed tool call's arguments as they were sent: LangChain merges them
by completing partial JSON, so a call whose arguments were malformed would look whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk

from core import events


class TextChunks(BaseCallbackHandler):
    """Writes each new text fragment of the call as a `chunk` event; counts what it wrote."""

    # Inline, so fragments keep their order even when the model streams on the event loop.
    run_inline = True

    def __init__(self, write: Callable[[Any], None]) -> None:
        self._write = write
        self.written = 0
        """How many fragments went out (none: the model did not stream)."""
        self.closed = False
        self._arguments: dict[int, list[str]] = {}
        self._ids: dict[int, str] = {}
        """The call is over for the run: a call abandoned at the deadline (still running in
        its thread) must not write into a stream that has ended."""

    def on_llm_new_token(
        self,
        token: str | list[str | dict[str, Any]],
        *,
        chunk: GenerationChunk | ChatGenerationChunk | None = None,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Write a fragment (tool-call argument fragments arrive with an empty token)."""
        text = token if isinstance(token, str) else "".join(_text_of(part) for part in token)
        if text and not self.closed:
            self.written += 1
            self._write(events.chunk(text))
        message = getattr(chunk, "message", None)
        for part in getattr(message, "tool_call_chunks", None) or []:
            index = part.get("index") or 0
            if part.get("id"):
                self._ids[index] = str(part["id"])
            self._arguments.setdefault(index, []).append(part.get("args") or "")

    def arguments(self) -> dict[str, str]:
        """Each streamed tool call's arguments exactly as sent, by call id."""
        return {
            self._ids[i]: "".join(parts) for i, parts in self._arguments.items() if i in self._ids
        }


def _text_of(part: str | dict[str, Any]) -> str:
    """The text of one content block (a model that streams blocks instead of a string)."""
    if isinstance(part, str):
        return part
    return str(part.get("text", "")) if part.get("type") == "text" else ""
