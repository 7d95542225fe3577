"""`LocalChatModel`: the embedded model behind LangChain's chat-model interface.

Each answer is one step (`decide`), at most one call, written under a grammar (`writing`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.model_profile import ModelProfile
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from local_model.conversation import ASKED, no_times, read_turn
from local_model.decide import Decider, Hints
from local_model.writing import OPENING, write_call

MODEL_NAME = "local:SmolLM2-135M-Instruct"
_NONE: Any = dict(examples={}, changing=set(), readers=set(), mentions={}, read_as={}, shows={})
NO_HINTS: Any = SimpleNamespace(**_NONE, abilities=(), stated=(), manuals={}, times=no_times)
"""The hints of a call whose caller gave none."""
_SPELLED: dict[Any, str | None] = {None: None, False: None, True: "required", "any": "required"}


class LocalChatModel(BaseChatModel):
    """A llama.cpp model that classifies, asks when unsure, and writes calls under a grammar."""

    takes_hints: ClassVar[bool] = True
    """`bind_tools` takes `hints`, which the app fills for this model."""
    llama: Any = Field(exclude=True, repr=False)
    """The `llama_cpp.Llama` that writes calls."""
    intents: Any = Field(exclude=True, repr=False)
    """The `Intents` classifier over the embedding context."""
    model_path: str = ""
    model_name: str = MODEL_NAME
    seed: int = 1234
    repeat_penalty: float = 1.1
    """Above 1 keeps a call from copying one name into every argument."""

    # llama.cpp contexts are not thread-safe and one instance serves every run in the process.
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _opening: list[int] | None = PrivateAttr(default=None)  # in the cache alone, when set

    def _resolve_model_profile(self) -> ModelProfile:
        """It calls tools, but writes no structured reply of its own (no plan, no JSON)."""
        return ModelProfile(name="the embedded model", tool_calling=True, structured_output=False)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "seed": self.seed}

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: Any = None,
        hints: Hints | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind `tools` under `tool_choice`, with what the app knows about the call (`hints`).

        `tools`: anything `convert_to_openai_tool` takes; `tool_choice`: None, "auto",
        "required" or "any", "none", or a tool name (one not bound raises ValueError).
        """
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        names = [tool["function"]["name"] for tool in formatted]
        choice = _choice(tool_choice)
        if choice not in (None, "auto", "required", "none") and choice not in names:
            raise ValueError(f"tool_choice {choice!r} is not one of the bound tools {names}")
        return self.bind(tools=formatted, tool_choice=choice, hints=hints or NO_HINTS, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        choice = _choice(kwargs.get("tool_choice"))
        tools = [] if choice == "none" else list(kwargs.get("tools") or [])
        hints: Hints = kwargs.get("hints") or NO_HINTS
        turn = replace(read_turn(messages), stated=tuple(hints.stated), times=hints.times)
        usage = {"input_tokens": 0, "output_tokens": 0}
        with self._lock:
            step = Decider(self.intents).step(turn, tools, choice, hints)
            complete, one = self._completer(usage), ((step.tool, turn),) if step.tool else ()
            written = [write_call(t, p, hints, complete) for t, p in step.wave or one]
        calls = [call for call, _ in written if call]
        text = step.reply if calls or not written else written[0][1]
        asked = step.asked or ((step.tool["function"]["name"],) if step.tool and not calls else ())
        about = {"model_name": self.model_name, "local_step": step.why, ASKED: list(asked)}
        usage["total_tokens"] = sum(usage.values())
        message = AIMessage(text, tool_calls=calls, usage_metadata=usage, response_metadata=about)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _completer(self, usage: dict[str, int]) -> Any:
        def complete(prompt: str, grammar: Any, max_tokens: int) -> str:
            tokens = self.llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
            budget = int(self.llama.n_ctx()) - max_tokens
            if len(tokens) > budget:  # keep the instructions and the latest lines
                tokens = tokens[: budget // 4] + tokens[len(tokens) - (budget - budget // 4) :]
            self._after_opening(tokens)
            run = dict(grammar=grammar, temperature=0.0, seed=self.seed, max_tokens=max_tokens)
            result = self.llama.create_completion(tokens, repeat_penalty=self.repeat_penalty, **run)
            counts = result.get("usage") or {}
            usage["input_tokens"] += int(counts.get("prompt_tokens", 0))
            usage["output_tokens"] += int(counts.get("completion_tokens", 0))
            return str(result["choices"][0].get("text") or "")

        return complete

    def _after_opening(self, tokens: list[int]) -> None:
        """Keep only the opening in the cache (evaluated once, alone): prompts compute alike."""
        if self._opening is None:
            self._opening = self.llama.tokenize(OPENING.encode(), add_bos=False, special=True)
            self.llama.reset()
            self.llama.eval(self._opening)
        if tokens[: len(self._opening)] == self._opening:
            self.llama.n_tokens = len(self._opening)  # the rest of the cache is dropped
        else:  # a prompt without it is evaluated whole, and the opening again next time
            self.llama.reset()
            self._opening = None


def _choice(tool_choice: Any) -> str | None:
    """The tool_choice spellings of LangChain and OpenAI, as one."""
    if isinstance(tool_choice, dict):
        return str(tool_choice.get("function", tool_choice).get("name") or "required")
    return _SPELLED.get(tool_choice, str(tool_choice))
