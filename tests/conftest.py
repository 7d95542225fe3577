"""Shared fixtures: isolated settings, scripted models, a fresh Postgres database per run."""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.models import ModelResolver
from core.settings import Settings
from graph.runner import Runner
from tests.support.scratch_pg import PG_ADMIN_URL, scratch_database
from tools.registry import ToolRegistry

IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer setting (keys, URLs, models) leaks into a test; monkeypatch restores them."""
    for name in list(os.environ):
        scoped = name.startswith(("AGENTLOOP_", "OPENAI_", "LANGFUSE_")) or name == "DATABASE_URL"
        if scoped and name != "AGENTLOOP_TEST_PG_ADMIN_URL":
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make real model calls impossible: sockets may only connect to loopback addresses."""
    original = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        inet = self.family in (socket.AF_INET, socket.AF_INET6)
        loopback = isinstance(host, str) and (
            host.startswith("127.") or host in ("::1", "localhost")
        )
        if inet and not loopback:
            raise ConnectionRefusedError(f"tests may not reach {host}: loopback only")
        return original(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture
def write_script(tmp_path: Path) -> Callable[[list[dict[str, Any]]], str]:
    """Write a scripted-model file and return its model spec."""

    def write(turns: list[dict[str, Any]]) -> str:
        path = tmp_path / f"script-{uuid.uuid4().hex[:8]}.json"
        path.write_text(json.dumps(turns), encoding="utf-8")
        return f"scripted:{path}"

    return write


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings isolated from the environment, with data under the test's tmp dir."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {"checkpointer": "memory", "data_dir": tmp_path / "data"}
        values.update(overrides)
        return Settings(_env_file=None, **values)

    return make


@pytest.fixture
def open_runner(
    make_settings: Callable[..., Settings],
) -> Callable[..., Any]:
    """Open a runner on the given registry and settings (memory checkpointer by default)."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def opener(
        registry: ToolRegistry | None = None, **overrides: Any
    ) -> AsyncIterator[Runner]:
        settings = make_settings(**overrides)
        async with Runner.open(settings, registry, ModelResolver(settings)) as runner:
            yield runner

    return opener


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A freshly created PostgreSQL database for this test run, dropped afterwards."""
    import psycopg

    name = f"agentloop_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        if IN_CI:
            raise RuntimeError(f"PostgreSQL is required in CI: {exc}") from exc
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _migrate_and_seed(url: str) -> None:
    """Migrate an empty workspace database and load the demo seed into it."""
    import asyncio

    from core.db.engine import open_database
    from tools.pack_data import seed_demo, upgrade_workspace
    from tools.pack_loading import enabled

    settings = Settings(_env_file=None, database_url=url)
    upgrade_workspace(settings)

    async def load() -> None:
        db = open_database(settings)
        await seed_demo(db, enabled(None))
        await db.dispose()

    asyncio.run(load())


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, demo-seeded SQLite workspace, copied for each test that needs one."""
    path = tmp_path_factory.mktemp("template") / "workspace.sqlite"
    _migrate_and_seed(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_template(pg_url: str) -> Iterator[str]:
    """A migrated, demo-seeded PostgreSQL template database (cloned per test)."""
    import psycopg

    base, _, name = pg_url.rpartition("/")
    template = f"{name}_tpl"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{template}"')
    _migrate_and_seed(f"{base}/{template}")
    try:
        yield template
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def workspace_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh copy of the seeded demo workspace, on SQLite and on PostgreSQL."""
    import shutil

    if request.param == "sqlite":
        path = tmp_path / "workspace.sqlite"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    template = request.getfixturevalue("pg_template")
    with scratch_database(request.getfixturevalue("pg_url"), "ws", template) as url:
        yield url


@pytest.fixture
async def workspace(workspace_url: str) -> AsyncIterator[Any]:
    """An open `Database` on a fresh seeded workspace."""
    from core.db.engine import open_database

    db = open_database(Settings(_env_file=None, database_url=workspace_url))
    try:
        yield db
    finally:
        await db.dispose()


@pytest.fixture
def tool_ctx(workspace: Any) -> Callable[..., Any]:
    """Build a ToolContext on the test's workspace."""
    from datetime import date

    from tools.declaration import ToolContext

    def make(**overrides: Any) -> ToolContext:
        values: dict[str, Any] = {
            "today": date(2026, 11, 22),
            "timezone": "UTC",
            "user_id": "U0GRACE",
            "user_role": "member",
            "run_id": "run-test",
            "thread_id": "thread-test",
            "db": workspace,
        }
        values.update(overrides)
        return ToolContext(**values)

    return make
