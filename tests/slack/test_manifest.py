"""The manifest subscribes to every event and grants every scope the listeners rely on."""

from __future__ import annotations

from pathlib import Path

import yaml

from core.settings import Settings

MANIFEST = Path(__file__).resolve().parents[2] / "app" / "slack" / "manifest.yaml"


def test_the_manifest_covers_the_listeners() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    events = set(manifest["settings"]["event_subscriptions"]["bot_events"])
    assert {"app_mention", "message.channels", "message.im"} <= events
    # The assistant view: its thread events and the scope for status and suggested prompts.
    assert {"assistant_thread_started", "assistant_thread_context_changed"} <= events
    assert "assistant_view" in manifest["features"]
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert {
        "app_mentions:read",
        "chat:write",
        "im:history",
        "channels:history",
        "commands",
        "assistant:write",
    } <= scopes
    history_scope = {
        "message.channels": "channels:history",
        "message.groups": "groups:history",
        "message.im": "im:history",
        "message.mpim": "mpim:history",
    }
    assert all(history_scope[e] in scopes for e in events if e in history_scope)
    [command] = manifest["features"]["slash_commands"]
    assert command["command"] == "/agentloop"
    assert manifest["settings"]["interactivity"]["is_enabled"] is True


def test_slack_settings_read_their_environment(monkeypatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_USER_ROLES", '{"U1": "admin"}')
    monkeypatch.setenv("SLACK_ALLOWED_BOT_IDS", '["B0FRIEND"]')
    settings = Settings(_env_file=None).slack
    assert settings.bot_token is not None and settings.bot_token.get_secret_value() == "xoxb-1"
    assert settings.user_roles == {"U1": "admin"}
    assert settings.default_role == "viewer"
    assert settings.allowed_bot_ids == {"B0FRIEND"}
    assert Settings(_env_file=None, slack={}).slack.allowed_bot_ids == frozenset()
