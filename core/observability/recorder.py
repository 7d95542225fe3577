"""One observer of a run's stream: it feeds the audit, the planner runs, the trace and usage.

Every record of a run is built from the same stream of node updates and custom events, so
they agree with each other; none of them may ever take the run down.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

from core.observability.audit import AuditLog, PlannerRuns, RunAudit, RunInfo
from core.observability.run_trace import RunTrace
from core.observability.tracing import Tracing
from core.observability.usage import UsageCollector

logger = logging.getLogger(__name__)


class RunRecorder:
    """What one run leaves behind: its audit rows, planner runs, trace spans and token usage."""

    def __init__(
        self, info: RunInfo, audit: RunAudit | None, log: AuditLog | None, trace: RunTrace | None
    ) -> None:
        self.info = info
        self.usage = UsageCollector()
        self._audit = audit
        self._log = log
        self._trace = trace
        self._planner_runs = (
            PlannerRuns(log, audit) if log is not None and audit is not None else None
        )

    @classmethod
    async def start(
        cls, info: RunInfo, log: AuditLog | None, tracing: Tracing, graph_input: Any
    ) -> RunRecorder:
        """Begin recording the run (a decision's audit row is written before it starts)."""
        audit = await log.start(info) if log is not None else None
        if audit is not None:
            audit.add_input(graph_input)
        return cls(info, audit, log, tracing.start_run(info.trace_id))

    @property
    def callbacks(self) -> list[BaseCallbackHandler]:
        """The LangChain callbacks the run is invoked with: the trace's, when it is traced.

        Token usage reaches `usage` from the models themselves (`collecting`), so an
        untraced run is invoked with no callbacks at all.
        """
        return [self._trace] if self._trace else []

    def observe(self, namespace: tuple[str, ...], mode: str, chunk: Any) -> None:
        """Follow one chunk of the run's stream (a nested graph's updates are the planner's)."""
        if self._planner_runs is not None:
            self._planner_runs.observe(namespace, mode, chunk)
        if self._trace is not None:
            self._trace.observe(mode, chunk)
        if namespace and mode == "updates":
            return  # the planner's own state, not this run's messages
        if self._audit is not None:
            try:
                self._audit.observe(mode, chunk)
            except Exception:
                # The audit must never break a run; the traceback says what it could not read.
                logger.exception("audit: could not read a %s chunk", mode)

    def finish(self, status: str, text: str = "", error: str | None = None) -> None:
        """Close the run's records with its outcome (written in the background)."""
        if self._planner_runs is not None:
            self._planner_runs.close(status)
        if self._log is not None and self._audit is not None:
            self._log.finish(
                self._audit, status=status, output_text=text, error=error, usage=self.usage.calls
            )
