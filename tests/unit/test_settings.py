"""Settings defaults: model and checkpointer choices follow the documented rules."""

from __future__ import annotations

import pytest

from app.settings import Settings
from graph import limits
from graph.context import Context


def test_model_default_depends_on_the_key() -> None:
    assert Settings(_env_file=None).model_spec() == "local"
    assert Settings(_env_file=None, openai_api_key="sk-x").model_spec() == "openai:gpt-4o"
    assert Settings(_env_file=None, model="scripted:f.json").model_spec() == "scripted:f.json"


def test_checkpointer_default_follows_database_url() -> None:
    assert Settings(_env_file=None).checkpointer_kind() == "sqlite"
    pg = Settings(_env_file=None, database_url="postgresql://u@h/db")
    assert pg.checkpointer_kind() == "postgres"
    assert Settings(_env_file=None, database_url="sqlite:///x.db").checkpointer_kind() == "sqlite"
    explicit = Settings(_env_file=None, database_url="postgresql://u@h/db", checkpointer="memory")
    assert explicit.checkpointer_kind() == "memory"


def test_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("AGENTLOOP_MAX_ROUNDS", "4")
    settings = Settings(_env_file=None)
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "sk-env"
    assert settings.postgres_url() == "postgresql://u@h/db"
    assert settings.max_rounds == 4


def test_context_and_settings_share_limits() -> None:
    settings, context = Settings(_env_file=None), Context()
    assert settings.max_tool_calls_per_turn == context.max_tool_calls == 8
    assert settings.max_rounds == context.max_rounds == 6
    assert settings.turn_timeout_s == context.turn_timeout_s == 90
    assert limits.recursion_limit(6, 3) >= 2 + 2 * 6 + 2 * 3 + 1
