"""The model is the server's choice: on a server that authenticates, a run chooses only among
the models its operator lists, `scripted:` only where the operator turned it on, and no
answer tells whether a path exists on the server (langgraph-sdk against `langgraph dev`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import authenticating, serve, sqlite_copy
from tests.server.dev_server import LISTED_MODEL, DevServer, refusal

HELLO = "Hello! What can I do for you?"
ASK = {"messages": [{"type": "human", "content": "hello"}]}


@pytest.fixture(scope="module")
def strict_server(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> Iterator[DevServer]:
    """A server with tokens whose operator turned no scripted models on (its default is one)."""
    home = tmp_path_factory.mktemp("strict-server")
    settings = {**authenticating(), "AGENTLOOP_SERVER_SCRIPTED_MODELS": "false"}
    with serve(home, sqlite_copy(home, sqlite_template), [{"content": HELLO}], settings) as server:
        yield server


async def run(server: DevServer, model: str | None, **kwargs: Any) -> Any:
    grace = server.client("U0GRACE")
    thread = await grace.threads.create()
    context = {"model": model} if model else {}
    return await grace.runs.wait(thread["thread_id"], "agent", input=ASK, context=context, **kwargs)


async def test_scripted_models_exist_only_where_the_operator_turns_them_on(
    strict_server: DevServer, write_script, tmp_path: Path
) -> None:
    real = write_script([{"content": HELLO}])
    not_json = tmp_path / "not-json.json"
    not_json.write_text("{", encoding="utf-8")
    said = set()
    for spec in (real, f"scripted:{not_json}", f"scripted:{tmp_path / 'missing.json'}",
                 "scripted:/etc/passwd", "openai:gpt-4o"):  # fmt: skip
        detail = await refusal(run(strict_server, spec))
        said.add(detail.replace(repr(spec), "<spec>"))
    # One answer for every spec: nothing says which file exists or what it holds.
    assert said == {
        "This server does not run the model <spec>: leave the model empty for its default."
    }
    # Whatever a run names in its config instead of its context.
    grace = strict_server.client("U0GRACE")
    thread = await grace.threads.create()
    await refusal(
        grace.runs.wait(
            thread["thread_id"], "agent", input=ASK, config={"configurable": {"model": real}}
        )
    )
    assert strict_server.model_requests() == []
    # The server's own model answers a run that names none.
    out = await run(strict_server, None)
    assert out["final_text"] == HELLO


async def test_a_run_chooses_among_the_models_the_operator_lists(
    authed_server: DevServer, write_script, tmp_path: Path
) -> None:
    detail = await refusal(run(authed_server, "openai:gpt-4o"))
    assert detail == (
        "This server does not run the model 'openai:gpt-4o': leave the model empty for its "
        f"default, or one of {LISTED_MODEL}."
    )
    # A listed model passes; this server has no key for it, and the run says only that.
    out = await run(authed_server, LISTED_MODEL, raise_error=False)
    assert out["__error__"]["error"] == "ModelConfigError", out
    assert (
        out["__error__"]["message"] == f"the model '{LISTED_MODEL}' cannot be used on this server"
    )


async def test_a_scripted_models_failure_tells_nothing_of_the_servers_files(
    authed_server: DevServer, tmp_path: Path
) -> None:
    # This server lets runs choose scripted models (a test server): a file that is missing,
    # one that is not JSON and one that is not a script fail alike.
    not_json = tmp_path / "not-json.json"
    not_json.write_text("{", encoding="utf-8")
    not_a_script = tmp_path / "object.json"
    not_a_script.write_text(json.dumps({"turns": []}), encoding="utf-8")
    said = set()
    for spec in (
        f"scripted:{tmp_path / 'missing.json'}",
        f"scripted:{not_json}",
        f"scripted:{not_a_script}",
    ):
        out = await run(authed_server, spec, raise_error=False)
        assert out["__error__"]["error"] == "ModelConfigError", out
        said.add(out["__error__"]["message"].replace(repr(spec), "<spec>"))
    assert said == {"the model <spec> cannot be used on this server"}
