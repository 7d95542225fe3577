"""act: one model call with the tools bound, under the turn's deadline.

Before the call the history is compacted when it is past its budget (memory flush, then a
summary) and shaped by the history pipeline (limit turns, prune tool results, repair pairing).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.tool import invalid_tool_call
from langgraph.runtime import Runtime

from core import events
from core.asker import asker_of
from core.db.engine import Database, open_database
from core.messages import calls_of
from core.models import ModelResolver
from core.models.openai import unavailable_reason
from core.run_context import RunContext
from core.settings import EXTRACTIVE
from core.state import ActUpdate, AgentState
from core.time_phrases import changes_only_when
from history import compaction, pipeline
from history.turn import turn_start
from prompts import replies, system
from tools.declaration import ToolContext
from tools.preselection import Offer, ToolRanker
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)
_WORD = re.compile(r"[^\W_]+")


class Act:
    """The act node: builds the prompt, calls the model, appends its answer."""

    def __init__(
        self,
        registry: ToolRegistry,
        models: ModelResolver | None = None,
        db: Database | None = None,
    ) -> None:
        self._registry = registry
        self._ranker = ToolRanker(registry.tools())
        self._models = models
        self._db = db

    async def __call__(self, state: AgentState, runtime: Runtime[RunContext]) -> ActUpdate:
        """Call the model once; a passed deadline ends the turn instead."""
        ctx = runtime.context
        deadline = ctx.deadline_for(state.get("deadline"))
        if deadline - time.time() <= 0:
            return {"cap": replies.turn_timeout(ctx.turn_timeout_s)}
        offer = self._offer(state, ctx)
        runtime.stream_writer(events.agent_state("thinking", _offered(offer)))
        model = self._resolver().resolve(ctx.model)
        schemas = self._registry.openai_schemas(offer.names)
        bound = model.bind_tools(schemas) if schemas else model
        update: ActUpdate = {}
        removals: list[RemoveMessage] = []
        messages: list[BaseMessage] = list(state["messages"])
        summary = state.get("summary", "")
        if self._past_budget(messages, summary, ctx):
            compacted = await self._compact(state, runtime, deadline)
            if compacted is not None:
                removals = [RemoveMessage(id=m.id or "") for m in messages[: compacted.cut]]
                messages = messages[compacted.cut :]
                summary = compacted.summary
                update["summary"] = summary
                update["compactions"] = state.get("compactions", 0) + 1
        prompt = pipeline.prepare(
            SystemMessage(content=self._system_prompt(state, ctx)),
            messages,
            summary=summary,
            policy=pipeline.HistoryPolicy(ctx.history_turns, ctx.context_window),
            tools=schemas,
        )
        try:
            response = await asyncio.wait_for(
                # The offer goes into the call's trace; the audit reads the bound tools.
                bound.ainvoke(prompt, {"metadata": self._call_metadata(offer, state, ctx)}),
                timeout=max(deadline - time.time(), 0.001),
            )
        except TimeoutError:
            update["cap"] = replies.turn_timeout(ctx.turn_timeout_s)
            if removals:
                update["messages"] = list(removals)
            return update
        except Exception as exc:
            reason = unavailable_reason(exc)
            if reason is None:
                raise
            # The client's own retries with backoff are spent: the turn ends with a reply
            # that says so, the person's message stays in the thread and the next one works.
            logger.exception("run %s: the model is unavailable (%s)", ctx.run_id, reason)
            update["cap"] = replies.model_unavailable(reason)
            update["status"] = "unavailable"  # not a limit: the turn is answered, not capped
            if removals:
                update["messages"] = list(removals)
            return update
        if not isinstance(response, AIMessage):
            response = AIMessage(content=response.text)
        update["messages"] = [*removals, _distrust_cut_off_calls(response)]
        return update

    def _offer(self, state: AgentState, ctx: RunContext) -> Offer:
        """Rank the tools against the turn; the ones the turn already uses stay offered."""
        messages = state["messages"]
        start = turn_start(messages, state.get("turn_start_id", ""))
        opening = messages[start].text if messages else ""
        keep = [
            call.name
            for message in messages[start:]
            if isinstance(message, AIMessage)
            for call in calls_of(message)
        ]
        asked = _asked_which(messages[:start], opening)
        if asked:
            keep.insert(0, asked)
        keep += _time_follow_up(messages[:start], opening, self._registry, self._ranker)
        pending = state.get("pending")
        if pending:
            keep += [proposal["tool"] for proposal in pending["proposals"]]
        offer = self._ranker.offer(
            opening, sources=state.get("sources", []), keep=keep, budget=ctx.tool_budget
        )
        loader = self._registry.providing("result_loader")
        if loader is None or loader.name in offer.names or not _results_stored(state):
            return offer
        # Last: a fallback for details a stored result's summary leaves out. Bound first,
        # a small model took it for the answer to every later ask.
        return Offer((*offer.names, loader.name), {**offer.scores, loader.name: 0.0})

    def _call_metadata(self, offer: Offer, state: AgentState, ctx: RunContext) -> dict[str, Any]:
        """The offer's ranking scores, which offered tools change data, what the asker may ask.

        A model that reads only the offered tools says the last to "what can you do?".
        """
        changing = [
            name for name in offer.names if (tool := self._registry.get(name)) and tool.mutating
        ]
        abilities = self._registry.abilities(asker_of(state, ctx).role)
        return {"offered_tools": offer.scores, "changing_tools": changing, "abilities": abilities}

    @staticmethod
    def _past_budget(messages: list[BaseMessage], summary: str, ctx: RunContext) -> bool:
        tokens = compaction.estimated_tokens([*pipeline.summary_messages(summary), *messages])
        return compaction.needs_compaction(tokens, len(messages), ctx.context_window)

    async def _compact(
        self, state: AgentState, runtime: Runtime[RunContext], deadline: float
    ) -> compaction.Compaction | None:
        """Flush memories and summarize; a failure leaves the history to the pipeline."""
        ctx = runtime.context
        messages = state["messages"]
        spec = ctx.compaction_model or ctx.model
        model = None if spec == EXTRACTIVE else self._resolver().resolve(spec)
        memory_tool = self._registry.providing("memory_writer") if model else None
        asker = asker_of(state, ctx)  # an approver's resume still writes as the asker
        if memory_tool is not None and asker.role not in memory_tool.roles:
            memory_tool = None  # the actor may not store notes; the flush has nothing to do
        thread_id = (runtime.execution_info.thread_id if runtime.execution_info else None) or ""
        number = state.get("compactions", 0) + 1
        # The flush writes through the memory tool; a graph built without the runner's
        # database opens one for the flush alone.
        db = self._db or (open_database(self._resolver().settings) if memory_tool else None)
        tool_ctx = ToolContext.for_run(
            ctx, asker, run_id=state.get("run_id", ""), thread_id=thread_id, db=db
        )
        try:
            return await compaction.compact(
                messages,
                turn_start=turn_start(messages, state.get("turn_start_id", "")),
                previous_summary=state.get("summary", ""),
                model=model,
                memory_tool=memory_tool,
                tool_ctx=tool_ctx,
                key_prefix=f"memory-flush:{thread_id}:{number}",
                context_window=ctx.context_window,
                deadline=deadline,
            )
        except Exception:
            # Compaction saves tokens; without it the pipeline still bounds the request, so
            # the turn goes on and the next call tries again.
            logger.warning("compaction failed; the pipeline bounds this request", exc_info=True)
            return None
        finally:
            if db is not None and db is not self._db:
                await db.dispose()

    def _resolver(self) -> ModelResolver:
        if self._models is None:
            from core.settings import get_settings

            self._models = ModelResolver(get_settings())
        return self._models

    def _system_prompt(self, state: AgentState, ctx: RunContext) -> str:
        return system.render(
            system.SystemPromptInputs(
                today=ctx.run_date(),
                timezone=ctx.timezone,
                user_id=ctx.user_id,
                channel=ctx.channel,
                context_block=state.get("context_block", ""),
                feedback=tuple(state.get("feedback", [])),
                attempt=state.get("attempt", 0),
                max_attempts=ctx.verify_max_attempts,
                has_tools=len(self._registry) > 0,
                context_type=ctx.context_type,
            )
        )


def _offered(offer: Offer) -> str:
    """The status line while the model works: which tools it is weighing."""
    return f"weighing {', '.join(offer.names)}" if offer.names else ""


def _results_stored(state: AgentState) -> bool:
    """Whether the history shows a stored result's result_id, which the loader takes.

    A summary of cut history alone is no reason: it names no result_id to load.
    """
    if "result_id" in state.get("summary", ""):
        return True
    return any(isinstance(m, ToolMessage) and '"result_id"' in m.text for m in state["messages"])


def _distrust_cut_off_calls(message: AIMessage) -> AIMessage:
    """Turn tool calls of an answer cut off by the token limit into invalid calls.

    Streamed tool-call chunks are merged by completing partial JSON, so arguments cut off
    mid-string would otherwise look whole and run with truncated values.
    """
    if message.response_metadata.get("finish_reason") != "length" or not message.tool_calls:
        return message
    cut_off = [
        invalid_tool_call(
            name=call["name"],
            args=json.dumps(call["args"]),
            id=call["id"],
            error="the reply hit the token limit before these arguments were complete",
        )
        for call in message.tool_calls
    ]
    return message.model_copy(
        update={"tool_calls": [], "invalid_tool_calls": [*message.invalid_tool_calls, *cut_off]}
    )


def _asked_which(earlier: Sequence[BaseMessage], opening: str) -> str:
    """The tool whose result ended the previous exchange by asking which one was meant.

    "the Thorinox one" answers resolve_brand's candidates; the message alone ranks
    lookup_client first. A question of its own that names nothing telling the candidates
    apart ("Do we have a room free next weekend?") has moved on.
    """
    for message in reversed(earlier):
        if isinstance(message, HumanMessage):
            return ""
        if isinstance(message, ToolMessage) and message.status != "error":
            try:
                data = json.loads(message.text)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("status") == "ambiguous":
                answers = "?" not in opening or _tells_apart(data.get("candidates"), opening)
                return (message.name or "") if answers else ""
    return ""


def _time_follow_up(
    earlier: Sequence[BaseMessage], opening: str, registry: ToolRegistry, ranker: ToolRanker
) -> list[str]:
    """The tools of a follow-up that changes only when: "and tomorrow?" after a room search.

    In a few words it names nothing the ranking could match but the time. It asks the
    previous exchange's dated lookup again, for the dates the date reader makes of the
    time; a change (a booking) is not repeated on such a hint. When the previous exchange
    called no tool ("Do we have a room free?" answered by asking which dates), the
    follow-up gives the time its question lacked: the lookup that question ranks first.
    """
    reader = registry.providing("date_reader")
    if reader is None or not changes_only_when(opening):
        return []
    called: list[str] = []
    question = ""
    for message in reversed(earlier):
        if isinstance(message, HumanMessage):
            question = message.text
            break
        if isinstance(message, AIMessage):
            called += [call.name for call in calls_of(message)]
    dated = [name for name in dict.fromkeys(reversed(called)) if _dated_lookup(registry, name)]
    if not called and question:
        ranked = ranker.rank(question)
        best = ranked[0] if ranked else ("", 0.0)
        dated = [best[0]] if best[1] > 0 and _dated_lookup(registry, best[0]) else []
    return [reader.name, *dated] if dated else []


def _dated_lookup(registry: ToolRegistry, name: str) -> bool:
    """Whether `name` is a tool that reads and takes dates (a room search, not a booking)."""
    tool = registry.get(name)
    return tool is not None and tool.takes_dates and tool.read_only


def _tells_apart(candidates: object, text: str) -> bool:
    """Whether `text` names a word some candidates' values hold and others do not."""
    if not isinstance(candidates, list):
        return False
    words = [
        {w for value in c.values() if isinstance(value, str) for w in _WORD.findall(value.lower())}
        for c in candidates
        if isinstance(c, dict)
    ]
    if len(words) < 2:
        return False
    telling = set.union(*words) - set.intersection(*words)
    return bool(telling & set(_WORD.findall(text.lower())))
