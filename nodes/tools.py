"""tools: runs one wave — every call of the last AI message, concurrently, each with a timeout.

Every tool call gets exactly one ToolMessage: run, failed, timed out, refused, rejected or
capped. A mutating call runs only with the person's decision from confirm, as recorded in
the workspace: for the asker the proposal's record names, under the idempotency key derived
from that record (whatever the thread's state says about either).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langgraph.runtime import Runtime
from sqlalchemy.exc import SQLAlchemyError

from core import events
from core.asker import asker_of
from core.db.engine import Database
from core.db.schema_errors import is_unmigrated
from core.messages import Call, calls_of
from core.run_context import RunContext
from core.state import AgentState, Decision, ToolsUpdate
from history.pipeline import is_decision
from prompts import confirmation, replies
from tools import decision_records, proposal_records, proposals, retention
from tools.declaration import Tool, ToolArgumentsError, ToolContext, ToolFailure
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)

Outcome = Literal["ok", "error", "timeout", "refused", "rejected", "capped"]
T = TypeVar("T")


@dataclass(frozen=True)
class _Result:
    content: str
    outcome: Outcome


class Tools:
    """The tools node, bound to a registry."""

    def __init__(self, registry: ToolRegistry, db: Database) -> None:
        self._registry = registry
        self._db = db

    async def __call__(self, state: AgentState, runtime: Runtime[RunContext]) -> ToolsUpdate:
        """Execute the wave; calls past a cap are answered without running."""
        ctx = runtime.context
        # The wave's AI message is the last, but for a decision typed in the thread after it.
        message = next(m for m in reversed(state["messages"]) if not is_decision(m))
        assert isinstance(message, AIMessage), "tools runs only after an AI message with calls"
        calls = calls_of(message)
        rounds = state.get("rounds", 0) + 1
        used = state.get("tool_calls_used", 0)
        cap: str | None = None
        if rounds > ctx.max_rounds:
            cap = replies.round_cap(ctx.max_rounds)
            allowed: list[Call] = []
        else:
            budget = max(ctx.max_tool_calls - used, 0)
            allowed = calls[:budget]
            if len(calls) > budget:
                cap = replies.tool_call_cap(ctx.max_tool_calls)
        runtime.stream_writer(events.agent_state("executing_tools", f"{len(allowed)} call(s)"))
        asker = asker_of(state, ctx)
        tool_ctx = ToolContext.for_run(
            ctx,
            asker,
            run_id=state.get("run_id", ""),
            thread_id=(runtime.execution_info.thread_id if runtime.execution_info else None) or "",
            db=self._db,
        )
        deadline = ctx.deadline_for(state.get("deadline"))
        decisions = state.get("decisions", {})
        # Set by propose when nothing could be proposed (a workspace never migrated).
        pending_error = (state.get("pending") or {}).get("error", "")
        results = await asyncio.gather(
            *(
                self._run_one(
                    call, decisions.get(call.id), pending_error, tool_ctx, ctx, deadline, runtime
                )
                for call in allowed
            )
        )
        skipped_reason = "this turn reached its limit" if cap else ""
        messages: list[AnyMessage] = [
            _tool_message(call, result) for call, result in zip(allowed, results, strict=True)
        ]
        for call in calls[len(allowed) :]:
            result = _Result(replies.tool_not_run(skipped_reason), "capped")
            runtime.stream_writer(events.tool_result(call.name, call.id, "capped", 0.0, 0.0, 0.0))
            messages.append(_tool_message(call, result))
        if cap is None and time.time() >= deadline:
            cap = replies.turn_timeout(ctx.turn_timeout_s)
        return {
            "messages": messages,
            "rounds": rounds,
            "tool_calls_used": used + len(allowed),
            "cap": cap,
        }

    async def _run_one(
        self,
        call: Call,
        decision: Decision | None,
        pending_error: str,
        tool_ctx: ToolContext,
        ctx: RunContext,
        deadline: float,
        runtime: Runtime[RunContext],
    ) -> _Result:
        runtime.stream_writer(events.tool_call(call.name, call.id, call.args))
        started = time.monotonic()
        result = await self._execute(call, decision, pending_error, tool_ctx, ctx, deadline)
        finished = time.monotonic()
        runtime.stream_writer(
            events.tool_result(
                call.name, call.id, result.outcome, (finished - started) * 1000, started, finished
            )
        )
        return result

    async def _execute(
        self,
        call: Call,
        decision: Decision | None,
        pending_error: str,
        tool_ctx: ToolContext,
        ctx: RunContext,
        deadline: float,
    ) -> _Result:
        if call.error is not None:
            return _error(f"the arguments were not valid JSON ({call.error}); resend them")
        tool = self._registry.get(call.name)
        if tool is None:
            available = ", ".join(self._registry.names()) or "none"
            return _error(f"unknown tool {call.name!r}; available tools: {available}")
        refusal = _refusal(tool, tool_ctx)
        if refusal:
            return _Result(replies.tool_not_run(refusal), "refused")
        if tool.kind == "delegate":
            return _error(f"{tool.name} must be the only call of its step; call it again alone")
        raw_args = call.args
        if tool.mutating:
            try:
                # A malformed change is never proposed: say which field is wrong, not that
                # it needs an approval it could never get.
                tool.validate(raw_args)
            except ToolArgumentsError as exc:
                return _error(f"invalid arguments for {tool.name}: {exc}")
            if decision is None:
                return await _undecided(tool, raw_args, tool_ctx, pending_error)
            if decision["decision"] == "reject":
                text = confirmation.rejected(decision["decided_by"], decision.get("reason", ""))
                return _Result(text, "rejected")
            try:
                approved = await self._approved(call, decision, tool_ctx)
            except SQLAlchemyError as exc:
                if not is_unmigrated(exc):
                    raise
                return _error(replies.workspace_not_migrated())
            if approved is None:
                return _Result(confirmation.not_recorded(), "refused")
            raw_args = decision["args"]
            tool_ctx = approved
            refusal = _refusal(tool, tool_ctx)
            if refusal:
                return _Result(replies.tool_not_run(refusal), "refused")
        try:
            args = tool.validate(raw_args)
        except ToolArgumentsError as exc:
            return _error(f"invalid arguments for {tool.name}: {exc}")
        timeout = min(tool.timeout_s or ctx.tool_timeout_s, max(deadline - time.time(), 0.0))
        try:
            data = await _within(tool.run(args, tool_ctx), timeout)
        except TimeoutError:
            if tool.mutating:
                return _Result(replies.change_timed_out(tool.name, timeout), "timeout")
            return _Result(f"error: {tool.name} timed out after {timeout:.1f} s", "timeout")
        except ToolFailure as exc:
            return _error(str(exc))
        except Exception as exc:
            # The model can adapt to a failed call (other arguments, another tool), so the
            # failure becomes its ToolMessage; the traceback goes to the log.
            logger.warning("tool %s failed", tool.name, exc_info=True)
            if is_unmigrated(exc):
                return _error(replies.workspace_not_migrated())
            return _error(f"{tool.name} failed: {type(exc).__name__}: {exc}")
        content = json.dumps(data, default=str, ensure_ascii=False)
        large = len(content) > retention.RETAIN_OVER_CHARS
        if large and tool.summarize_large_results and tool_ctx.db is not None:
            try:
                kept = await retention.retain(
                    tool_ctx.db,
                    data=data,
                    tool=tool.name,
                    run_id=tool_ctx.run_id,
                    thread_id=tool_ctx.thread_id,
                    tool_call_id=call.id,
                )
            except SQLAlchemyError:
                # Storing is an optimization: without it the model still gets the result.
                logger.warning("could not store the result of %s", tool.name, exc_info=True)
            else:
                content = json.dumps(kept, default=str, ensure_ascii=False)
        return _Result(content, "ok")

    async def _approved(
        self, call: Call, decision: Decision, tool_ctx: ToolContext
    ) -> ToolContext | None:
        """The context an approved change runs in: the recorded asker and the recorded key.

        None when the workspace holds no such proposal, or no such decision on it (one
        written into the thread's state, e.g. by a raw Command, was never checked by confirm).
        """
        db = tool_ctx.database()
        found = await proposal_records.by_fingerprint(
            db, tool_ctx.thread_id, decision.get("fingerprint", "")
        )
        if found is None or found.proposal["tool_call_id"] != call.id:
            return None
        key = proposals.idempotency_key(found.proposal, decision.get("args", {}))
        if not await decision_records.is_recorded(db, tool_ctx.thread_id, call.id, key, decision):
            return None
        asker = found.proposal["actor"]
        return replace(tool_ctx, user_id=asker, user_role=found.role, idempotency_key=key)


async def _within(work: Coroutine[Any, Any, T], seconds: float) -> T:
    """Await `work` for at most `seconds`; past that, cancel it and walk away.

    `asyncio.wait_for` waits for the cancelled call to unwind, which a call stuck in its
    clean-up (a driver waiting on a lock) may take long to do: the turn's deadline does
    not wait with it. What the abandoned call returns later goes nowhere (its ToolMessage
    is the timeout); a change it still makes is made under its key, so the same decision
    carried out again replays it instead of making it twice.
    """
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if task in done:
        return task.result()
    task.cancel()
    task.add_done_callback(_abandoned)
    raise TimeoutError


def _abandoned(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.warning("an abandoned tool call failed", exc_info=task.exception())


async def _undecided(
    tool: Tool, raw_args: dict[str, Any], tool_ctx: ToolContext, pending_error: str
) -> _Result:
    """A change that reached the tools node without a decision: why it was not proposed."""
    if pending_error:
        return _error(pending_error)
    try:
        if tool.previews is not None:  # propose left out a change its preview refused
            await tool.previews(tool.validate(raw_args), tool_ctx)
    except ToolFailure as exc:
        return _error(str(exc))
    return _Result(confirmation.not_decided(), "refused")


def _refusal(tool: Tool, tool_ctx: ToolContext) -> str | None:
    # Approval is not authorization: the asker's role is checked first, whoever approved.
    if tool_ctx.user_role not in tool.roles:
        allowed = " or ".join(tool.roles)
        return f"role {tool_ctx.user_role!r} may not use {tool.name}; it takes {allowed}"
    return None


def _tool_message(call: Call, result: _Result) -> ToolMessage:
    return ToolMessage(
        content=result.content,
        tool_call_id=call.id,
        name=call.name,
        status="success" if result.outcome == "ok" else "error",
        additional_kwargs={"outcome": result.outcome},
    )


def _error(text: str) -> _Result:
    return _Result(f"error: {text}", "error")
