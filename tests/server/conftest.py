"""A `langgraph dev` server on loopback, serving langgraph.json over a seeded SQLite workspace."""

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

from tests.server.dev_server import DONE, DevServer
from tests.support.cli import ROOT

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
    with serve(home, sqlite_template, [{"content": DONE}]) as server:
        yield server


@pytest.fixture(scope="module")
def guarded_dev_server(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> Iterator[DevServer]:
    """A server whose settings block prompt injections and whose default model has no turns.

    Any call of its default model fails the run (the scripted model fails loudly).
    """
    home = tmp_path_factory.mktemp("guarded-dev-server")
    with serve(home, sqlite_template, [], {"AGENTLOOP_INPUT_GUARD": "block"}) as server:
        yield server


@contextlib.contextmanager
def serve(
    home: Path,
    sqlite_template: Path,
    default_turns: list[dict[str, object]],
    settings_env: dict[str, str] | None = None,
) -> Iterator[DevServer]:
    """Run `langgraph dev` in `home` with these default model turns and settings.

    It runs in `home` (it writes `.langgraph_api/` there) from a copy of langgraph.json
    whose paths point into the repository, over a copy of the seeded SQLite workspace.
    The scripted model records every request it receives in the DevServer's transcript.
    """
    langgraph = Path(sys.executable).parent / "langgraph"
    assert langgraph.exists(), f"{langgraph} is missing: install the dev extra (make install)"
    workspace = home / "workspace.sqlite"
    shutil.copy(sqlite_template, workspace)
    workspace_url = f"sqlite:///{workspace}"
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["dependencies"] = [str(ROOT)]
    config["graphs"] = {name: str(ROOT / spec) for name, spec in config["graphs"].items()}
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
