"""A chat model that replays a JSON script of assistant turns: tests, demos, scenario checks.

The file holds a list; each entry is one model call's answer:
`{"content": "..."}` or `{"tool_calls": [{"name": ..., "args": {...}}]}` (or both). `args`
may also be a raw JSON string, as a server sends it; if it does not parse, the call arrives
as an invalid tool call, exactly like a malformed call from a real model.
It fails loudly when called more often than the script has turns, and `unused()` tells
what was never consumed. Every request it receives can be appended to a JSONL transcript.
Its text streams in pieces (one `on_llm_new_token` per word), optionally at a set pace.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, messages_to_dict
from langchain_core.messages.tool import (
    InvalidToolCall,
    ToolCall,
    invalid_tool_call,
    tool_call,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from core.models.errors import ModelConfigError

_PIECES = re.compile(r"\s*\S+\s*|\s+")
"""A streamed piece: a word with the spacing around it."""


class ScriptedToolCall(BaseModel):
    """One tool call in a scripted turn."""

    model_config = ConfigDict(extra="forbid")
    name: str
    args: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = None


class ScriptedTurn(BaseModel):
    """One assistant turn: text, tool calls, or both."""

    model_config = ConfigDict(extra="forbid")
    content: str = ""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    delay_s: float = Field(default=0.0, ge=0, le=600)
    """Seconds to wait before answering: a slow model, for demos and crash tests."""
    token_delay_s: float = Field(default=0.0, ge=0, le=60)
    """Seconds between the streamed pieces of the text: a model writing at a set pace."""


class ScriptExhaustedError(RuntimeError):
    """The model was called more often than its script has turns."""


def load_script(path: Path) -> list[ScriptedTurn]:
    """Read and validate a script file, raising `ModelConfigError` with the reason."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ModelConfigError(f"scripted model: no such file {path}") from exc
    except json.JSONDecodeError as exc:
        raise ModelConfigError(f"scripted model: {path} is not valid JSON ({exc})") from exc
    if not isinstance(raw, list):
        raise ModelConfigError(f"scripted model: {path} must hold a JSON list of turns")
    try:
        return [ScriptedTurn.model_validate(entry) for entry in raw]
    except ValidationError as exc:
        raise ModelConfigError(f"scripted model: {path} has an invalid turn: {exc}") from exc


class ScriptedChatModel(BaseChatModel):
    """Replays scripted turns in order, one per call."""

    turns: list[ScriptedTurn]
    source: str = "<inline>"
    transcript: Path | None = None
    """When set, each request (messages and bound tool names) is appended here as JSONL."""

    _cursor: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _requests: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    @classmethod
    def from_file(cls, path: Path, transcript: Path | None = None) -> ScriptedChatModel:
        """Build the model from a script file."""
        return cls(turns=load_script(path), source=str(path), transcript=transcript)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        # Callbacks (Langfuse's generations among them) read the model's name from here.
        return {"model_name": f"scripted:{self.source}"}

    @property
    def requests(self) -> list[list[BaseMessage]]:
        """The message lists this model was called with, in order."""
        return list(self._requests)

    def unused(self) -> int:
        """Return how many scripted turns were never consumed."""
        return len(self.turns) - self._cursor

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Accept tool definitions (the script decides which tools are called)."""
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            call_number = self._cursor + 1
            self._requests.append(list(messages))
            self._record(messages, [_tool_name(tool) for tool in kwargs.get("tools", [])])
            if self._cursor >= len(self.turns):
                raise ScriptExhaustedError(
                    f"scripted model {self.source} has {len(self.turns)} turn(s) "
                    f"but was called a {_ordinal(call_number)} time"
                )
            turn = self.turns[self._cursor]
            self._cursor += 1
        if turn.delay_s:
            time.sleep(turn.delay_s)
        _stream_text(turn, run_manager)
        tool_calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] = []
        for call in turn.tool_calls:
            call_id = call.id or f"call_{uuid.uuid4().hex[:12]}"
            args, error = _parse_args(call.args)
            if error is None:
                tool_calls.append(tool_call(name=call.name, args=args, id=call_id))
            else:
                raw = call.args if isinstance(call.args, str) else None
                invalid.append(invalid_tool_call(name=call.name, args=raw, id=call_id, error=error))
        message = AIMessage(
            content=turn.content,
            tool_calls=tool_calls,
            invalid_tool_calls=invalid,
            response_metadata={"model_name": f"scripted:{self.source}"},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _record(self, messages: list[BaseMessage], tool_names: list[str]) -> None:
        if self.transcript is None:
            return
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        entry = {"messages": messages_to_dict(messages), "tools": tool_names}
        with self.transcript.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry, default=str) + "\n")


def _stream_text(turn: ScriptedTurn, run_manager: CallbackManagerForLLMRun | None) -> None:
    """Report the turn's text in pieces (a word and its spacing each), as a streaming model does.

    The answer itself is still the whole turn, so tool calls arrive exactly as scripted.
    """
    if run_manager is None:
        return
    for number, piece in enumerate(_PIECES.findall(turn.content)):
        if number and turn.token_delay_s:
            time.sleep(turn.token_delay_s)
        run_manager.on_llm_new_token(
            piece, chunk=ChatGenerationChunk(message=AIMessageChunk(content=piece))
        )


def _parse_args(args: dict[str, Any] | str) -> tuple[dict[str, Any], str | None]:
    if isinstance(args, dict):
        return args, None
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as exc:
        return {}, f"malformed JSON: {exc}"
    if not isinstance(parsed, dict):
        return {}, "arguments must be a JSON object"
    return parsed, None


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):
        return str(tool.get("function", tool).get("name", "?"))
    return str(getattr(tool, "name", "?"))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
