"""Settings defaults: model and checkpointer choices follow the documented rules."""

from __future__ import annotations

import pytest

from core import limits
from core.run_context import RunContext
from core.settings import EXTRACTIVE, Settings


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


def test_sections_read_their_products_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-lf-1")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-lf-1")
    monkeypatch.setenv("LANGFUSE_HOST", "http://127.0.0.1:3000")
    monkeypatch.setenv("LANGFUSE_TIMEOUT", "9")
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_USER_ROLES", '{"U1": "admin"}')
    monkeypatch.setenv("AGENTLOOP_TRACE_MASK_FIELDS", "ssn,iban")
    settings = Settings(_env_file=None)
    assert settings.langfuse.enabled
    assert settings.langfuse.base_url == "http://127.0.0.1:3000"
    assert settings.langfuse.timeout == 9
    assert settings.slack.bot_token is not None
    assert settings.slack.bot_token.get_secret_value() == "xoxb-1"
    assert settings.slack.user_roles == {"U1": "admin"}
    assert settings.trace_mask_fields == "ssn,iban"
    monkeypatch.setenv("LANGFUSE_TRACING_ENABLED", "false")
    assert not Settings(_env_file=None).langfuse.enabled


def test_a_run_context_takes_the_deployment_settings_then_its_own() -> None:
    settings = Settings(
        _env_file=None,
        max_tool_calls_per_turn=3,
        confirmation_ttl_hours=2,
        input_guard="block",
        approver_roles=frozenset({"admin", "member"}),
        local_context_window=4096,
    )
    context = RunContext.from_settings(settings, user_id="U1", model="local", max_rounds=2)
    assert context.max_tool_calls == 3
    assert context.confirmation_ttl_s == 7200
    assert context.input_guard == "block"
    assert context.approver_roles == {"admin", "member"}
    assert context.context_window == 4096
    assert (context.user_id, context.max_rounds) == ("U1", 2)
    assert RunContext.from_settings(settings, model="openai:gpt-4o").context_window == 128_000


def test_the_window_follows_the_model() -> None:
    settings = Settings(_env_file=None, local_context_window=4096)
    assert settings.context_window_for("local") == 4096
    assert settings.context_window_for("openai:gpt-4o") == 128_000
    assert Settings(_env_file=None, context_window=32_000).context_window_for("local") == 32_000


def test_the_local_model_compacts_without_a_model_unless_one_is_named() -> None:
    settings = Settings(_env_file=None)
    assert settings.compaction_model_for("local") == EXTRACTIVE
    assert settings.compaction_model_for("openai:gpt-4o") is None  # the run's model
    named = Settings(_env_file=None, compaction_model="openai:gpt-4o-mini")
    assert named.compaction_model_for("local") == "openai:gpt-4o-mini"
    assert RunContext.from_settings(settings, model="local").compaction_model == EXTRACTIVE


def test_the_step_budget_fits_a_turn() -> None:
    assert limits.recursion_limit(6, 3) >= 2 + 4 * 6 + 2 * 3 + 1
