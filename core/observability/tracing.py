"""One Langfuse trace per run, built by a tracer process from what the run records.

The trace id is derived from the run id the turn started with, so a confirmation resumed
later, in any process, lands in the same trace as the turn that proposed it.
"""

from __future__ import annotations

import asyncio
import itertools
import logging

from langfuse import Langfuse

from core.observability.langfuse_client import LangfuseSettings
from core.observability.run_trace import RunTrace
from core.observability.trace_process import TraceProcess
from core.settings import Settings

logger = logging.getLogger(__name__)


def trace_id_for(root_run_id: str) -> str:
    """Return the trace id of the turn that began as `root_run_id` (32 hex, deterministic)."""
    return Langfuse.create_trace_id(seed=root_run_id)


class Tracing:
    """The process's tracing: a tracer process fed by every run, or off (no keys) at no cost."""

    def __init__(self, settings: LangfuseSettings | None) -> None:
        """Trace where `settings` say; None, or settings without both keys: tracing off."""
        enabled = settings is not None and settings.enabled
        self.process = TraceProcess(settings) if settings is not None and enabled else None
        self._keys = itertools.count()

    @classmethod
    def from_settings(cls, settings: Settings) -> Tracing:
        """Tracing as the `langfuse` section configures it; off without both keys."""
        section = settings.langfuse
        return cls(
            LangfuseSettings(
                public_key=section.public_key,
                secret_key=section.secret_key,
                base_url=section.base_url,
                timeout_s=section.timeout,
                mask_fields=settings.trace_mask_fields,
                tracing_enabled=section.tracing_enabled,
            )
        )

    @property
    def enabled(self) -> bool:
        """Whether runs are traced."""
        return self.process is not None

    def start_run(self, trace_id: str) -> RunTrace | None:
        """Return the recorder of one run into `trace_id`, or None when tracing is off."""
        if self.process is None:
            return None
        return RunTrace(self.process, next(self._keys), trace_id)

    async def flush(self) -> None:
        """Wait until what the runs recorded is exported (failures are logged, never raised)."""
        if self.process is None:
            return
        if not await asyncio.to_thread(self.process.flush):
            logger.warning("traces were not all exported in time")

    async def close(self) -> None:
        """Export what the runs recorded and end the tracer process (a new run starts another)."""
        if self.process is None:
            return
        process, self.process = self.process, TraceProcess(self.process.settings)
        await asyncio.to_thread(process.close)
