"""`langgraph dev` servers on loopback, serving langgraph.json over a workspace of their own.

`dev_server` is the development default (no tokens: unauthenticated, the run's context
names the person); `authed_server` authenticates its callers by token and by JWTs from a
loopback identity provider, over a seeded workspace on SQLite and on PostgreSQL;
`unmigrated_server` runs over an empty database.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.dev_server import DONE, LISTED_MODEL, TOKENS, DevServer
from tests.slack.conftest import open_slack_app, slack_api, slack_settings  # noqa: F401
from tests.support.cli import ROOT
from tests.support.oidc_provider import AUDIENCE, IdentityProvider
from tests.support.scratch_pg import scratch_database

_START_TIMEOUT_S = 90.0
_DEVELOPER_ENV = ("AGENTLOOP_", "OPENAI_", "LANGFUSE_", "LANGSMITH_", "LANGCHAIN_", "DATABASE_URL")


@pytest.fixture(scope="session")
def dev_server(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> Iterator[DevServer]:
    """`langgraph dev` on a free loopback port, stopped (its process group) at the end.

    Its default model answers DONE.
    """
    home = tmp_path_factory.mktemp("dev-server")
    with serve(home, sqlite_copy(home, sqlite_template), [{"content": DONE}]) as server:
        yield server


@pytest.fixture(scope="module")
def guarded_dev_server(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> Iterator[DevServer]:
    """A server whose settings block prompt injections and whose default model has no turns.

    Any call of its default model fails the run (the scripted model fails loudly).
    """
    home = tmp_path_factory.mktemp("guarded-dev-server")
    workspace = sqlite_copy(home, sqlite_template)
    with serve(home, workspace, [], {"AGENTLOOP_INPUT_GUARD": "block"}) as server:
        yield server


@pytest.fixture(scope="session")
def identity_provider() -> Iterator[IdentityProvider]:
    """The team's identity provider on loopback: its keys, and tokens it signs."""
    with IdentityProvider() as provider:
        yield provider


def authenticating(provider: IdentityProvider | None = None) -> dict[str, str]:
    """The settings of a server that knows the demo team by `TOKENS` (and `provider`'s JWTs).

    `slack-worker` is a relay; a run may choose scripted models, as a test server's may.
    """
    settings = {
        "AGENTLOOP_SERVER_TOKENS": json.dumps(TOKENS),
        "AGENTLOOP_SERVER_RELAYS": json.dumps(["slack-worker"]),
        "AGENTLOOP_SERVER_SCRIPTED_MODELS": "true",
    }
    if provider is not None:
        settings["AGENTLOOP_SERVER_JWT_ISSUER"] = provider.issuer
        settings["AGENTLOOP_SERVER_JWT_AUDIENCE"] = AUDIENCE
    return settings


@pytest.fixture(
    scope="session", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def authed_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    identity_provider: IdentityProvider,
) -> Iterator[DevServer]:
    """A server that knows its callers by token (`TOKENS`) and by JWT, over a seeded workspace.

    `slack-worker` is a relay; the others are the demo team (U0ADA is an admin, U0MAYA a
    viewer). Runs may choose scripted models and `LISTED_MODEL`.
    """
    home = tmp_path_factory.mktemp(f"authed-server-{request.param}")
    settings = {
        **authenticating(identity_provider),
        "AGENTLOOP_SERVER_MODELS": json.dumps([LISTED_MODEL]),
    }
    with (
        seeded_workspace(request, home) as workspace,
        serve(home, workspace, [{"content": DONE}], settings) as server,
    ):
        yield server


@pytest.fixture(
    scope="session", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def unmigrated_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[DevServer]:
    """The development default over a database `agentloop db upgrade` never ran on."""
    home = tmp_path_factory.mktemp(f"unmigrated-server-{request.param}")
    if request.param == "sqlite":
        with serve(home, f"sqlite:///{home / 'empty.sqlite'}", [{"content": DONE}]) as server:
            yield server
        return
    with (
        empty_pg_database(request) as workspace,
        serve(home, workspace, [{"content": DONE}]) as server,
    ):
        yield server


def sqlite_copy(home: Path, sqlite_template: Path) -> str:
    """A copy of the seeded SQLite workspace in `home`, as a URL."""
    workspace = home / "workspace.sqlite"
    shutil.copy(sqlite_template, workspace)
    return f"sqlite:///{workspace}"


@contextlib.contextmanager
def seeded_workspace(request: pytest.FixtureRequest, home: Path) -> Iterator[str]:
    """A seeded workspace of the fixture's database kind, dropped afterwards."""
    if request.param == "sqlite":
        yield sqlite_copy(home, request.getfixturevalue("sqlite_template"))
        return
    template = request.getfixturevalue("pg_template")
    with empty_pg_database(request, template=template) as url:
        yield url


@contextlib.contextmanager
def empty_pg_database(request: pytest.FixtureRequest, template: str = "") -> Iterator[str]:
    """A new PostgreSQL database (a copy of `template`, if given), dropped afterwards."""
    with scratch_database(request.getfixturevalue("pg_url"), "srv", template) as url:
        yield url


@contextlib.contextmanager
def serve(
    home: Path,
    workspace_url: str,
    default_turns: list[dict[str, object]],
    settings_env: dict[str, str] | None = None,
) -> Iterator[DevServer]:
    """Run `langgraph dev` in `home` over `workspace_url`, with these model turns and settings.

    It runs in `home` (it writes `.langgraph_api/` there) from a copy of langgraph.json
    whose paths point into the repository. The scripted model records every request it
    receives in the DevServer's transcript.
    """
    langgraph = Path(sys.executable).parent / "langgraph"
    assert langgraph.exists(), f"{langgraph} is missing: install the dev extra (make install)"
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["dependencies"] = [str(ROOT)]
    config["graphs"] = {name: str(ROOT / spec) for name, spec in config["graphs"].items()}
    config["auth"] = {**config["auth"], "path": str(ROOT / config["auth"]["path"])}
    config.pop("env", None)
    (home / "langgraph.json").write_text(json.dumps(config))
    script = home / "default-model.json"
    script.write_text(json.dumps(default_turns))
    transcript = home / "model-requests.jsonl"
    env = {
        # Nothing of the developer's (keys, URLs, models) reaches the server.
        **{k: v for k, v in os.environ.items() if not k.startswith(_DEVELOPER_ENV)},
        "DATABASE_URL": workspace_url,
        "AGENTLOOP_DATA_DIR": str(home / "data"),
        "AGENTLOOP_MODEL": f"scripted:{script}",
        "AGENTLOOP_SCRIPTED_TRANSCRIPT": str(transcript),
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        **(settings_env or {}),
    }
    port = _free_port()
    log = (home / "server.log").open("w")
    server = subprocess.Popen(
        [
            str(langgraph), "dev", "--config", str(home / "langgraph.json"),
            "--host", "127.0.0.1", "--port", str(port),
            "--no-browser", "--no-reload", "--allow-blocking",
        ],
        cwd=home,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, server, home / "server.log")
        yield DevServer(url, workspace_url, transcript)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_ready(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(
                f"langgraph dev exited with {server.returncode}:\n{log.read_text()[-4000:]}"
            )
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(
        f"langgraph dev did not answer /ok in {_START_TIMEOUT_S}s:\n{log.read_text()[-4000:]}"
    )
