"""One Langfuse trace per run, built in the agent's process by Langfuse's SDK.

The trace id is derived from the run id the turn started with, so a confirmation resumed
later, in any process, lands in the same trace as the turn that proposed it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from langfuse import Langfuse, propagate_attributes

from core.observability.langfuse_client import Exporter, exporter_for
from core.observability.run_trace import RunTrace
from core.settings import Settings
from core.settings_sections import LangfuseSection


def trace_id_for(root_run_id: str) -> str:
    """Return the trace id of the turn that began as `root_run_id` (32 hex, deterministic)."""
    return Langfuse.create_trace_id(seed=root_run_id)


class Tracing:
    """The process's tracing: Langfuse's SDK exporting in the background, or off (no keys)."""

    def __init__(self, section: LangfuseSection | None, mask_fields: str = "") -> None:
        """Trace where `section` says, masking `mask_fields` (comma-separated) too.

        None, or a section without both keys: tracing off, at no cost.
        """
        self.exporter: Exporter | None = (
            exporter_for(section, mask_fields) if section is not None else None
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Tracing:
        """Tracing as the `langfuse` section configures it; off without both keys."""
        return cls(settings.langfuse, settings.trace_mask_fields)

    @property
    def enabled(self) -> bool:
        """Whether runs are traced."""
        return self.exporter is not None

    def start_run(self, trace_id: str) -> RunTrace | None:
        """Return the tracer of one run into `trace_id`, or None when tracing is off."""
        return RunTrace(self.exporter, trace_id) if self.exporter is not None else None

    @contextlib.contextmanager
    def scope(self, *, user_id: str, session_id: str) -> Iterator[None]:
        """Name the asker and the thread on every span the run makes inside this block."""
        if self.exporter is None:
            yield
            return
        with propagate_attributes(user_id=user_id, session_id=session_id):
            yield

    async def flush(self) -> None:
        """Wait until what the runs traced is exported (failures are logged by the SDK)."""
        if self.exporter is not None:
            await asyncio.to_thread(self.exporter.client.flush)
