"""A run without the deployment's context-management settings behaves as the defaults say."""

from __future__ import annotations

from app.settings import Settings
from graph.context import Context


def test_context_defaults_match_the_settings_defaults() -> None:
    settings = Settings(_env_file=None, model="openai:gpt-4o")
    context = Context()
    assert context.input_guard == settings.input_guard == "warn"
    assert context.context_dir == settings.context_dir is None
    assert context.context_block_tokens == settings.context_block_tokens
    assert context.history_turns == settings.history_turns == 20
    assert context.context_window == settings.context_window_for(None) == 128_000
    assert context.compaction_model == settings.compaction_model is None
    assert context.verify_judge == settings.verify_judge is False


def test_the_window_follows_the_model() -> None:
    settings = Settings(_env_file=None, local_context_window=4096)
    assert settings.context_window_for("local") == 4096
    assert settings.context_window_for("openai:gpt-4o") == 128_000
    assert Settings(_env_file=None, context_window=32_000).context_window_for("local") == 32_000
