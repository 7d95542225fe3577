"""Start-up: `auth.test` once, and a token, model or setting that cannot work stops the app
with one line and exit code 2 (HTTP and Socket Mode) instead of an app that drops events."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.slack.conftest import SECRET
from tests.support.slack_api import MockSlackApi
from tests.support.slack_sender import SlackSender, mention

ROOT = Path(__file__).resolve().parents[2]


def run_slack(
    args: list[str], env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run `python -m app.slack ARGS` with only these Slack and agentloop settings."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTLOOP_", "SLACK_"))}
    base.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "app.slack", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start_socket_mode(env: dict[str, str]) -> subprocess.Popen[str]:
    """Start `python -m app.slack` (Socket Mode) with exactly `env`; stderr is piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "app.slack"], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )


@pytest.fixture
def env(slack_api: MockSlackApi, write_script, tmp_path: Path) -> dict[str, str]:
    return {
        "AGENTLOOP_MODEL": write_script([{"content": "unused"}]),
        "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_APP_TOKEN": "xapp-test",
        "SLACK_API_URL": slack_api.url,
    }


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


async def test_auth_test_is_called_once_whatever_arrives_at_start(open_slack_app) -> None:
    turns = [{"content": f"answer {i}"} for i in range(20)]
    async with open_slack_app(turns) as slack:
        statuses = await asyncio.gather(
            *(
                slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", f"{i}.1"))
                for i in range(20)
            )
        )
        assert statuses == [200] * 20
        await slack.api.wait_for("chat.stopStream", count=20)  # every answer streamed
    assert len(slack.api.attempts("auth.test")) == 1


@pytest.mark.parametrize("mode", [["--http", "--port", "0"], []], ids=["http", "socket"])
async def test_a_bot_token_slack_refuses_stops_the_app(
    slack_api: MockSlackApi, env: dict[str, str], mode: list[str]
) -> None:
    slack_api.refused_tokens.add("xoxb-revoked")
    done = await asyncio.to_thread(run_slack, mode, {**env, "SLACK_BOT_TOKEN": "xoxb-revoked"})
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "SLACK_BOT_TOKEN" in line and "invalid_auth" in line
    assert len(slack_api.attempts("auth.test")) == 1


async def test_an_app_token_slack_refuses_stops_socket_mode(
    slack_api: MockSlackApi, env: dict[str, str]
) -> None:
    slack_api.refused_tokens.add("xapp-revoked")
    done = await asyncio.to_thread(run_slack, [], {**env, "SLACK_APP_TOKEN": "xapp-revoked"})
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "SLACK_APP_TOKEN" in line and "invalid_auth" in line
    assert "connected" not in done.stderr


async def test_an_unknown_model_stops_the_app(env: dict[str, str]) -> None:
    done = await asyncio.to_thread(
        run_slack, ["--http", "--port", "0"], {**env, "AGENTLOOP_MODEL": "gpt-5"}
    )
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "AGENTLOOP_MODEL" in line and "gpt-5" in line


async def test_a_bad_setting_value_stops_the_app(env: dict[str, str]) -> None:
    done = await asyncio.to_thread(
        run_slack, ["--http", "--port", "0"], {**env, "SLACK_USER_ROLES": "U1=admin"}
    )
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "invalid configuration" in line and "slack" in line


async def test_a_missing_signing_secret_stops_http_mode(env: dict[str, str]) -> None:
    settings = {k: v for k, v in env.items() if k != "SLACK_SIGNING_SECRET"}
    done = await asyncio.to_thread(run_slack, ["--http", "--port", "0"], settings)
    assert done.returncode == 2
    assert "SLACK_SIGNING_SECRET" in one_line(done.stderr)


async def test_socket_mode_connects_then_says_so_and_answers(
    slack_api: MockSlackApi, env: dict[str, str], sqlite_template: Path, tmp_path: Path
) -> None:
    """The accepted app token's connection opens before "connected" is printed; events flow."""
    answer = "Garlic Press belongs to Thorinox."
    script = tmp_path / "answer.json"
    script.write_text(json.dumps([{"content": answer}]))
    workspace = tmp_path / "workspace.sqlite"
    shutil.copy(sqlite_template, workspace)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTLOOP_", "SLACK_"))}
    settings = {
        **env,
        "AGENTLOOP_MODEL": f"scripted:{script}",
        "DATABASE_URL": f"sqlite:///{workspace}",
    }
    worker = start_socket_mode({**base, **settings})
    try:
        assert worker.stderr is not None
        line = await asyncio.wait_for(asyncio.to_thread(worker.stderr.readline), 60)
        assert "connected in Socket Mode" in line, line
        assert len(slack_api.sockets) == 1
        body = SlackSender("", SECRET).event_body(
            mention("C1", "U0GRACE", "who owns Garlic Press?", "100.1")
        )
        envelope = await asyncio.to_thread(slack_api.push, body)
        await slack_api.wait_for_answer(answer, within=60)
    finally:
        worker.terminate()
        worker.wait(10)
    assert {"envelope_id": envelope} in slack_api.socket_acks
