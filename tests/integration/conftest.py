"""Fixtures of the integration tests: an OTLP receiver standing in for Langfuse, runners
checkpointing on the workspace's own database."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from checkpoints.savers import setup_checkpointer
from core.models import ModelResolver
from core.settings import Settings
from graph.runner import Runner
from tests.support.otlp_receiver import OtlpReceiver
from tools.registry import default_registry


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    """An OTLP/HTTP receiver on loopback, for the spans a test's runs export."""
    with OtlpReceiver() as server:
        yield server


@pytest.fixture
async def durable(workspace_url: str, make_settings: Callable[..., Settings]) -> Callable[..., Any]:
    """Open runners whose checkpoints live on the workspace database (SQLite or PostgreSQL)."""
    kind = "postgres" if workspace_url.startswith("postgresql") else "sqlite"
    await setup_checkpointer(make_settings(database_url=workspace_url, checkpointer=kind))

    @asynccontextmanager
    async def opener(model: str, **overrides: Any) -> AsyncIterator[Runner]:
        settings = make_settings(
            database_url=workspace_url, checkpointer=kind, model=model, **overrides
        )
        async with Runner.open(settings, default_registry(), ModelResolver(settings)) as runner:
            yield runner

    return opener
