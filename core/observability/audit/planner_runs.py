"""The planner runs inside one invocation, audited as child runs of it."""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage

from core.messages import result_data
from core.observability.audit.log import AuditLog
from core.observability.audit.run import RunAudit, RunInfo


class PlannerRuns:
    """The planner runs inside one invocation, audited as its child runs.

    The planner's own conversation (its steps, tool calls and results) arrives as the
    nested graph's updates; each planner run becomes an `agent_runs` row of kind `planner`
    whose parent is the invocation that ran it (the turn, or the resume that continued it).
    The planner's opening message carries its run id.
    """

    def __init__(self, log: AuditLog, parent: RunAudit) -> None:
        """Audit the planner runs of `parent` into `log`."""
        self._log = log
        self._parent = parent
        self._runs: dict[str, RunAudit] = {}

    def observe(self, namespace: tuple[str, ...], mode: str, chunk: Any) -> None:
        """Follow one nested chunk of the stream."""
        if not namespace or mode != "updates" or not isinstance(chunk, dict):
            return
        for node, node_update in chunk.items():
            if not isinstance(node_update, dict):
                continue
            run = self._run(namespace[0], node_update)
            if node == "finish":
                self._finish(namespace[0], run, node_update)
            else:
                run.observe(mode, {node: node_update})

    def close(self, status: str) -> None:
        """End the planner runs still open (paused for a confirmation, or failed)."""
        for key in list(self._runs):
            self._log.finish(self._runs.pop(key), status=status)

    def _run(self, key: str, update: dict[str, Any]) -> RunAudit:
        run = self._runs.get(key)
        if run is None:
            parent = self._parent.info
            opening = next(
                (
                    m
                    for m in update.get("messages") or []
                    if isinstance(m, BaseMessage) and m.additional_kwargs.get("planner_run_id")
                ),
                None,
            )
            run = self._log.start_child(
                RunInfo(
                    run_id=str(opening.additional_kwargs["planner_run_id"])
                    if opening is not None
                    else str(uuid.uuid4()),
                    thread_id=parent.thread_id,
                    user_id=parent.user_id,
                    trace_id=parent.trace_id,
                    kind="planner",
                    parent_run_id=parent.run_id,
                    channel=parent.channel,
                    input_text=opening.text if opening is not None else "",
                    model=parent.model,
                )
            )
            self._runs[key] = run
        return run

    def _finish(self, key: str, run: RunAudit, update: dict[str, Any]) -> None:
        report = next((m for m in update.get("messages") or [] if isinstance(m, ToolMessage)), None)
        result = result_data(report.text) if report is not None else {}
        result = result if isinstance(result, dict) else {}
        summary = str((result.get("report") or {}).get("summary", ""))
        self._log.finish(run, status=str(result.get("status", "completed")), output_text=summary)
        self._runs.pop(key, None)
