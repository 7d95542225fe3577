"""act: one model call with the tools bound, under the turn's deadline.

Before the call the history is compacted when it is past its budget (memory flush, then a
summary) and shaped by the history pipeline (limit turns, prune tool results, repair pairing).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables.config import ensure_config, merge_configs
from langgraph.runtime import Runtime

from core import events
from core.asker import asker_of
from core.db.engine import Database, open_database
from core.messages import calls_of, distrust_cut_off_calls, distrust_repaired_calls
from core.models import ModelResolver
from core.models.hints import ToolHints, bind_offered, no_times
from core.models.openai import unavailable_reason
from core.run_context import RunContext
from core.settings import EXTRACTIVE
from core.state import ActUpdate, AgentState, record_name
from core.streamed_text import TextChunks
from history import compaction, pipeline
from history.turn import turn_start
from prompts import replies, system
from tools.choices import choices, with_choices
from tools.declaration import GatherContext, Tool, ToolContext
from tools.manual import manual
from tools.preselection import Offer, ToolRanker
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)


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
        self._manuals: dict[str, str] = {}  # made once per tool: read from its declaration

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
        listers = [lister for pack in self._registry.packs for lister in pack.listers]
        if listers and schemas:  # a kind's few records, for a question that asks which one
            listed = await choices(listers, GatherContext(ctx.run_date(), self._db))
            schemas = with_choices(schemas, listed)
        bound = bind_offered(model, schemas, self._hints(offer, state, ctx)) if schemas else model
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
        # The answer's text reaches every surface as it is written (`chunk` events).
        chunks = TextChunks(runtime.stream_writer)
        # The offer goes into the call's trace; the audit reads the bound tools.
        call_config = merge_configs(
            ensure_config(), {"metadata": {"offered_tools": offer.scores}, "callbacks": [chunks]}
        )
        try:
            try:
                response = await asyncio.wait_for(
                    bound.ainvoke(prompt, call_config),
                    timeout=max(deadline - time.time(), 0.001),
                )
            finally:
                chunks.closed = True
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
        calls = bool(response.tool_calls or response.invalid_tool_calls)
        if chunks.written and calls:
            # Text streamed before tool calls is a preamble: the answer comes after them.
            runtime.stream_writer(events.draft_reset("tool_calls"))
        elif not chunks.written and not calls and response.text:
            # A model that does not stream sends its whole text as one fragment.
            runtime.stream_writer(events.chunk(response.text))
        response = distrust_repaired_calls(distrust_cut_off_calls(response), chunks.arguments())
        update["messages"] = [*removals, response]
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

    def _hints(self, offer: Offer, state: AgentState, ctx: RunContext) -> ToolHints:
        """What the offered tools declare, and the records the message names, for the model."""
        tools = [tool for name in offer.names if (tool := self._registry.get(name))]
        mentions: dict[str, list[str]] = {kind: [] for kind in self._registry.records}
        for source in state.get("sources", []):
            if source["type"] in mentions:
                mentions[source["type"]].append(record_name(source))
        stays = [json.loads(s["excerpt"]) for s in state.get("sources", []) if s["type"] == "dates"]
        stated = tuple({k: str(s[k]) for k in ("check_in", "check_out") if k in s} for s in stays)
        reader = self._registry.providing("date_reader")
        finds, today = (reader.finds if reader else None), ctx.run_date()
        return ToolHints(
            examples={tool.name: tool.examples for tool in tools},
            changing=frozenset(tool.name for tool in tools if tool.mutating),
            readers=frozenset(tool.name for tool in tools if "date_reader" in tool.provides),
            abilities=self._registry.abilities(asker_of(state, ctx).role),
            mentions=mentions,
            read_as=self._registry.read_as,
            stated=stated,
            shows={tool.name: tool.shows for tool in tools if tool.shows},
            manuals={t.name: self._manuals.get(t.name) or self._manual(t) for t in tools},
            times=(lambda text: finds(text, today)) if finds else no_times,
        )

    def _manual(self, tool: Tool) -> str:
        self._manuals[tool.name] = manual(tool)
        return self._manuals[tool.name]

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
