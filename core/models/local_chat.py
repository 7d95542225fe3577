"""`LocalChatModel`: the embedded llama.cpp model behind LangChain's chat-model interface.

Each answer takes two stages: decide (reply, or which of the first two offered tools; see
`local_decide`), then write either that tool's arguments under a grammar of its schema alone
or a short plain-text reply (see `local_answer`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from core.models.local_answer import (
    abilities_reply,
    args_prompt,
    asking_for,
    asks_abilities,
    grounded,
    reply_prompt,
)
from core.models.local_args import Pools, call_grammar, pools
from core.models.local_call import corrected
from core.models.local_decide import Decider
from core.models.local_grammar import parse_tool_output, tool_call
from core.models.local_scoring import ContinuationScorer
from core.models.local_turn import ASKED_DATES_OF, Turn, read_turn

MODEL_NAME = "local:SmolLM2-135M-Instruct"
DEFAULT_SEED = 1234
DEFAULT_MAX_TOKENS = 80
"""A reply's cap: about a second of generation, and a short answer is what this model does
best."""
ARGS_MAX_TOKENS = 160
"""A call's cap; a call cut off here does not parse, and the answer becomes a reply."""


class LocalChatModel(BaseChatModel):
    """A llama.cpp model that decides by likelihood and writes calls under a grammar.

    It answers greedily (temperature 0), so the same conversation gives the same answer,
    and returns at most one tool call per answer.
    """

    llama: Any = Field(exclude=True, repr=False)
    """The loaded `llama_cpp.Llama`."""
    model_path: str = ""
    model_name: str = MODEL_NAME
    max_tokens: int = DEFAULT_MAX_TOKENS
    seed: int = DEFAULT_SEED
    repeat_penalty: float = 1.1
    """Above 1 keeps replies from looping and a call from copying one name into every
    argument; higher makes replies mangle the dates they copy."""

    # llama.cpp contexts are not thread-safe and one instance serves every run in the process.
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _scorer: ContinuationScorer | None = PrivateAttr(default=None)

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
        """Bind tools the model may call, best first (stage one weighs only the first two).

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
        choice = _normalize_tool_choice(kwargs.get("tool_choice"))
        tools = _callable_tools(list(kwargs.get("tools") or []), choice)
        turn = read_turn(messages)
        usage = _Usage()
        # The ranking's scores, the tools that change data and what the asker may ask for,
        # where the agent's act node offered the tools.
        metadata = run_manager.metadata if run_manager else {}
        abilities = tuple(metadata.get("abilities") or ())
        if abilities and choice in (None, "auto") and not turn.results and asks_abilities(turn.ask):
            # Offered a few tools, this model answers "what can you do?" with its own
            # guesses ("You can find me on my website.").
            return self._answer(
                abilities_reply(abilities), None, usage, "stop", {"local_reply": "what I can do"}
            )
        with self._lock:
            if self._scorer is None:
                self._scorer = ContinuationScorer(self.llama)
            offered = metadata.get("offered_tools")
            scores = offered if isinstance(offered, dict) else None
            changing = frozenset(metadata.get("changing_tools") or ())
            values = pools(turn)
            decision = Decider(self._scorer).decide(turn, tools, choice, scores, values, changing)
            usage.input_tokens += decision.input_tokens
            call, finish, overruled = None, None, ""
            if decision.tool is not None:
                call, finish = self._call(decision.tool, turn, values, usage)
                overruled = "" if call else "the call did not parse"
            this_turn = messages[turn.start :]
            if call is not None and choice in (None, "auto") and _already_answered(call, this_turn):
                # The same call would return the result this turn already has.
                call, overruled = None, "the same call was already answered"
            content, own = "", True
            if decision.lacking:
                content, own = asking_for(decision.lacking), False
            elif call is None:
                prompt = reply_prompt(messages, turn)
                raw, finish = self._complete(prompt, None, stop, usage)
                content, own = grounded(raw.strip(), turn, prompt, changing)
        notes = {"local_overruled": overruled} if overruled else {}
        if decision.lacking:
            notes["local_reply"] = "asked for the dates"
            # The next message may give them: `read_turn` counts the tool as this exchange's.
            notes[ASKED_DATES_OF] = decision.lacking_for
        elif not own:
            notes["local_reply"] = "tool result shown" if turn.results else "no lookup made"
        return self._answer(
            content, call, usage, finish, {"local_decision": decision.trace(), **notes}
        )

    def _answer(
        self,
        content: str,
        call: dict[str, Any] | None,
        usage: _Usage,
        finish: str | None,
        notes: dict[str, Any],
    ) -> ChatResult:
        """The answer as LangChain returns it: the message, its usage and how it was made."""
        message = AIMessage(
            content=content,
            tool_calls=[call] if call else [],
            usage_metadata={
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "total_tokens": usage.input_tokens + usage.output_tokens,
            },
            response_metadata={"model_name": self.model_name, "finish_reason": finish, **notes},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _call(
        self, tool: dict[str, Any], turn: Turn, values: Pools, usage: _Usage
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Write the chosen tool's call; None when the output is not a whole call."""
        name = tool["function"]["name"]
        if not (tool["function"].get("parameters") or {}).get("properties"):
            return tool_call(name, {}), "stop"
        text, finish = self._complete(
            args_prompt(tool, turn), call_grammar(tool, values), None, usage, ARGS_MAX_TOKENS
        )
        _, call = parse_tool_output(text, {name})
        if call is not None:
            call["args"] = corrected(call["args"], tool, values, turn.ask)
        return call, finish

    def _complete(
        self,
        prompt: str,
        grammar: Any,
        stop: list[str] | None,
        usage: _Usage,
        max_tokens: int | None = None,
    ) -> tuple[str, str | None]:
        """Run one completion (the caller holds the lock); add its tokens to `usage`."""
        cap = max_tokens or self.max_tokens
        result: dict[str, Any] = self.llama.create_completion(
            prompt=_fit(self.llama, prompt, cap),
            grammar=grammar,
            temperature=0.0,
            repeat_penalty=self.repeat_penalty,
            max_tokens=cap,
            seed=self.seed,
            # The model imitates how results are shown to it; such an echo is no reply.
            stop=["<|im_end|>", "Tool result (", *(stop or [])],
        )
        counts = result.get("usage") or {}
        usage.input_tokens += int(counts.get("prompt_tokens", 0))
        usage.output_tokens += int(counts.get("completion_tokens", 0))
        choice = result["choices"][0]
        return str(choice.get("text") or ""), choice.get("finish_reason")


@dataclass
class _Usage:
    """Tokens read and written by every llama.cpp call of one answer."""

    input_tokens: int = 0
    output_tokens: int = 0


def _fit(llama: Any, prompt: str, max_tokens: int) -> list[int]:
    """Tokenize `prompt`, cutting its middle when it and the answer exceed the context.

    The prompts are short by construction; this only guards a small context window against
    a long message: the start (instructions) and the end (the latest messages) are kept.
    """
    tokens = list(llama.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
    budget = int(llama.n_ctx()) - max_tokens
    if len(tokens) <= budget:
        return tokens
    head = budget // 4
    return tokens[:head] + tokens[len(tokens) - (budget - head) :]


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
    """Return the tools the model may call on this turn under `choice`, in bound order."""
    if choice == "none":
        return []
    if choice in (None, "auto", "required"):
        return tools
    return [tool for tool in tools if tool["function"]["name"] == choice]


def _already_answered(call: dict[str, Any], messages: Sequence[BaseMessage]) -> bool:
    """Tell whether an identical tool call already got its result in `messages`.

    Only this turn's count: an earlier turn's result may be stale, and a new ask may need
    it again to chain from ("one night in Hanukkah" after "When is Hanukkah?").
    """
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return any(
        earlier["name"] == call["name"]
        and earlier.get("args", {}) == call["args"]
        and earlier.get("id") in answered
        for m in messages
        if isinstance(m, AIMessage)
        for earlier in m.tool_calls
    )
