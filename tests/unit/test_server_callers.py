"""Who a LangGraph Server serving agentloop lets in when no caller has a token."""

from __future__ import annotations

import pytest
from langgraph_sdk import Auth

from app.server.callers import DEV_SERVER, identify
from core.server_access import UNAUTHENTICATED, ServerSection
from core.settings import Settings


async def test_langgraph_dev_without_tokens_serves_this_machine_unauthenticated() -> None:
    settings = Settings(_env_file=None, langgraph_api_variant=DEV_SERVER)
    caller = await identify(settings, None, {}, ("127.0.0.1", 50000))
    assert caller["permissions"] == [UNAUTHENTICATED]
    assert caller.get("is_authenticated") is False
    assert "unauthenticated" in caller.get("display_name", "")
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        await identify(settings, None, {}, ("192.0.2.7", 50000))
    assert refused.value.status_code == 401
    assert "answers this machine only" in str(refused.value.detail)


async def test_any_other_server_without_tokens_refuses_everyone() -> None:
    for client in (("127.0.0.1", 50000), ("192.0.2.7", 50000)):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await identify(Settings(_env_file=None), "Bearer anything", {}, client)
        assert refused.value.status_code == 401
        assert "AGENTLOOP_SERVER_TOKENS" in str(refused.value.detail)


def test_tokens_and_relays_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTLOOP_SERVER_TOKENS", '{"U0GRACE": "t-grace", "worker": "t-w"}')
    monkeypatch.setenv("AGENTLOOP_SERVER_RELAYS", '["worker"]')
    monkeypatch.setenv("LANGSMITH_LANGGRAPH_API_VARIANT", DEV_SERVER)
    settings = Settings(_env_file=None)
    assert settings.server.tokens["U0GRACE"].get_secret_value() == "t-grace"
    assert "t-grace" not in repr(settings.server)
    assert settings.server.relays == {"worker"}
    assert settings.langgraph_api_variant == DEV_SERVER


async def test_a_server_with_an_identity_provider_only_is_no_development_default() -> None:
    server = ServerSection(jwt_issuer="https://idp.example", jwt_audience="agentloop")
    settings = Settings(_env_file=None, langgraph_api_variant=DEV_SERVER, server=server)
    for authorization in (None, "Bearer not-a-jwt", "Bearer a.b"):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await identify(settings, authorization, {}, ("127.0.0.1", 50000))
        assert refused.value.status_code == 401
        assert refused.value.detail == "Send a JWT issued by https://idp.example."
