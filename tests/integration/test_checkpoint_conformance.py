"""LangGraph's own conformance suite for checkpointers, run against the savers this project opens.

`langgraph-checkpoint-conformance` checks the contract LangGraph's runs rely on: checkpoints
and their pending writes stored and loaded whole, listed, isolated by thread and namespace,
deleted and pruned. Each saver is opened as a worker opens it (`open_checkpointer`): the
PostgreSQL one on a scratch database, under each checkpoint retention mode, and SQLite.
A capability a saver does not implement is skipped by the suite; which ones is asserted, so
a saver that stops implementing one is noticed too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import ProgressCallbacks

from checkpoints.savers import open_checkpointer, setup_checkpointer
from core.settings import Settings
from tests.support.scratch_pg import scratch_database

EVERY_CAPABILITY = {
    "put",
    "put_writes",
    "get_tuple",
    "list",
    "delete_thread",
    "delete_for_runs",
    "copy_thread",
    "prune",
}
IMPLEMENTED = {
    # AsyncPostgresSaver (langgraph-checkpoint-postgres 3.2) copies no thread and deletes
    # no run's checkpoints; this project calls neither.
    "postgres": EVERY_CAPABILITY - {"delete_for_runs", "copy_thread"},
    # The SQLite saver prunes nothing itself: checkpoints/retention.py prunes its tables.
    "sqlite": EVERY_CAPABILITY - {"delete_for_runs", "copy_thread", "prune"},
}


@pytest.fixture
def saver_settings(
    request: pytest.FixtureRequest, tmp_path: Path, make_settings: Callable[..., Settings]
) -> Iterator[Settings]:
    """The settings a worker would have: PostgreSQL with a retention mode, or SQLite."""
    kind, _, retention = request.param.partition("-")
    if kind == "sqlite":
        yield make_settings(checkpointer="sqlite", data_dir=tmp_path / "data")
        return
    with scratch_database(request.getfixturevalue("pg_url"), "conformance") as url:
        yield make_settings(
            database_url=url, checkpointer="postgres", checkpoint_retention=retention
        )


@pytest.mark.parametrize(
    "saver_settings",
    [
        pytest.param("postgres-latest", marks=pytest.mark.postgres),
        pytest.param("postgres-all", marks=pytest.mark.postgres),
        "sqlite",
    ],
    indirect=True,
)
async def test_the_saver_passes_langgraphs_conformance_suite(saver_settings: Settings) -> None:
    await setup_checkpointer(saver_settings)

    @checkpointer_test(name=f"agentloop {saver_settings.checkpointer_kind()}")
    async def saver() -> AsyncIterator[BaseCheckpointSaver[str]]:
        # a saver of its own for each capability's tests, as the suite asks
        async with open_checkpointer(saver_settings) as opened:
            yield opened

    ran: dict[str, list[str]] = {}
    failed: list[str] = []

    def noted(capability: str, test: str, passed: bool, error: str | None) -> None:
        ran.setdefault(capability, []).append(test)
        if not passed:
            failed.append(f"{capability}/{test}:\n{error}")

    report = await validate(saver, progress=ProgressCallbacks(on_test_result=noted))

    assert failed == [], "\n".join(failed)
    expected = IMPLEMENTED[saver_settings.checkpointer_kind()]
    assert set(ran) == expected
    for capability, result in report.results.items():
        if capability in expected:
            assert result.passed is True and result.tests_passed == len(ran[capability])
        else:
            assert result.detected is False, capability
    assert report.passed_all_base()
