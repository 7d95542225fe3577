"""The models a server's graphs resolve: only the allowed ones, failing without telling what the
server's files are, on a server that authenticates (no server needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from core.models import ModelConfigError
from core.server_access import ServerSection
from core.settings import Settings
from graph.served import ServedModels

TOKENS = {"U0GRACE": "t-grace"}


def settings(tmp_path: Path, **server: object) -> Settings:
    script = tmp_path / "default.json"
    script.write_text(json.dumps([{"content": "hi"}]), encoding="utf-8")
    return Settings(_env_file=None, model=f"scripted:{script}", server=ServerSection(**server))


def test_a_server_that_authenticates_runs_only_its_own_and_the_listed_models(
    tmp_path: Path,
) -> None:
    models = ServedModels(settings(tmp_path, tokens=TOKENS, models=["local"]))
    assert models.resolve(None) is models.resolve(models.settings.model_spec())
    for spec in ("scripted:/etc/passwd", f"scripted:{tmp_path / 'none.json'}", "openai:gpt-4o"):
        with pytest.raises(ModelConfigError) as refused:
            models.resolve(spec)
        assert str(refused.value) == f"this server does not run the model {spec!r}"


def test_a_scripted_models_failure_names_only_the_spec_where_callers_are_known(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    not_json = tmp_path / "bad.json"
    not_json.write_text("{", encoding="utf-8")
    missing = tmp_path / "missing.json"
    authed = ServedModels(settings(tmp_path, tokens=TOKENS, scripted_models=True))
    for path in (not_json, missing):
        spec = f"scripted:{path}"
        with pytest.raises(ModelConfigError) as failed:
            authed.resolve(spec)
        assert str(failed.value) == f"the model {spec!r} cannot be used on this server"
    # The reason is the operator's to read, in the server's log.
    assert "not valid JSON" in caplog.text and "no such file" in caplog.text
    # On `langgraph dev` without authentication the developer is told the reason.
    development = ServedModels(settings(tmp_path))
    with pytest.raises(ModelConfigError, match="no such file"):
        development.resolve(f"scripted:{missing}")


def test_an_issuer_needs_an_audience() -> None:
    with pytest.raises(ValidationError, match="JWT_ISSUER and AGENTLOOP_SERVER_JWT_AUDIENCE"):
        ServerSection(jwt_issuer="https://idp.example")
    section = ServerSection(jwt_issuer="https://idp.example", jwt_audience="agentloop")
    assert section.authenticates and not ServerSection().authenticates
