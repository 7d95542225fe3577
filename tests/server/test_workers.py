"""Workers drive a server that checks tokens (AGENTLOOP_GRAPH_URL): the CLI with a person's
token, the Slack app with its relay's token acting for whoever wrote. Each test runs its own
`langgraph dev` with tokens, whose default model answers the turns the test plays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.slack import cards
from tests.server.conftest import authenticating, seeded_workspace, serve, sqlite_copy
from tests.server.dev_server import DONE, TOKENS, DevServer, create_task
from tests.slack.test_approvals import live, outcome_of, until_decided
from tests.support.cli import ask_json, resume_json
from tests.support.slack_sender import click, mention

NOT_MADE = "OK, I did not create the task."


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A seeded workspace the server and its workers share."""
    with seeded_workspace(request, tmp_path) as url:
        yield url


def worker_env(url: str, workspace: str, data_dir: Path, token: str | None) -> dict[str, str]:
    env = {
        "AGENTLOOP_GRAPH_URL": url,
        "DATABASE_URL": workspace,
        "AGENTLOOP_DATA_DIR": str(data_dir),
    }
    # Set empty when absent: nothing of the developer's environment speaks for the worker.
    return {**env, "LANGGRAPH_API_KEY": token or ""}


def test_the_cli_asks_approves_and_rejects_with_a_persons_token(
    workspace: str, tmp_path: Path, write_script
) -> None:
    titles = ("Worker: approved from the CLI", "Worker: rejected from the CLI")
    turns = [{"content": DONE}, {"content": NOT_MADE}]
    with serve(tmp_path, workspace, turns, authenticating()) as server:
        data = tmp_path / "worker"
        grace = worker_env(server.url, workspace, data, TOKENS["U0GRACE"])
        linus = worker_env(server.url, workspace, data, TOKENS["U0LINUS"])
        script = write_script([create_task(titles[0])])
        ask = ("make the task", "--thread", "t-cli", "--user", "U0GRACE", "--model", script)
        # Without a token the server says what it wants, in one line.
        refused = ask_json(*ask, env=worker_env(server.url, workspace, data, None))
        assert refused["status"] == "failed"
        assert "Send a token AGENTLOOP_SERVER_TOKENS names." in refused["text"], refused
        assert "\n" not in refused["text"]

        asked = ask_json(*ask, env=grace)
        assert asked["status"] == "needs_confirmation", asked
        [proposal] = asked["interrupts"][0]["proposals"]
        assert proposal["actor"] == "U0GRACE" and proposal["args"]["title"] == titles[0]
        # Linus's token decides as Linus, whatever --user claims: refused, nothing made.
        code, other = resume_json("--thread", "t-cli", "--approve", "--user", "U0GRACE", env=linus)
        assert code == 3 and other["status"] == "refused", other
        assert server.tasks_titled(titles[0]) == 0
        code, done = resume_json("--thread", "t-cli", "--approve", "--user", "U0GRACE", env=grace)
        assert code == 0 and done["status"] == "completed" and done["text"] == DONE, done
        assert server.task_creators(titles[0]) == ["U0GRACE"]

        script = write_script([create_task(titles[1])])
        ask = ("make it", "--thread", "t-cli-2", "--user", "U0GRACE", "--model", script)
        assert ask_json(*ask, env=grace)["status"] == "needs_confirmation"
        code, rejected = resume_json(
            "--thread", "t-cli-2", "--reject", "--reason", "not now", "--user", "U0GRACE", env=grace
        )
        assert code == 0 and rejected["text"] == NOT_MADE, rejected
        assert server.tasks_titled(titles[1]) == 0
        assert server.model_requests()[-1][-1] == "make it"


SLACK_TITLES = ("Worker: approved in Slack", "Worker: rejected in Slack")
SLACK_TURNS = [
    create_task(SLACK_TITLES[0]),
    {"content": DONE},
    create_task(SLACK_TITLES[1]),
    {"content": NOT_MADE},
]


@pytest.fixture
def slack_server(tmp_path: Path, sqlite_template: Path) -> Iterator[DevServer]:
    """A server with tokens whose default model answers the Slack test's turns, in order."""
    workspace = sqlite_copy(tmp_path, sqlite_template)
    with serve(tmp_path, workspace, SLACK_TURNS, authenticating()) as server:
        yield server


async def test_the_slack_app_acts_for_whoever_wrote_with_its_relay_token(
    open_slack_app, slack_server: DevServer
) -> None:
    titles, server = SLACK_TITLES, slack_server
    worker = {"graph_url": server.url, "graph_api_key": TOKENS["slack-worker"]}
    async with open_slack_app([], database_url=server.workspace_url, **worker) as slack:
        ask = "create a task to refresh the Garlic Press images"
        await slack.sender.event(mention("C1", "U0GRACE", ask, "100.1"))
        card = await slack.api.card("C1", "100.1")
        assert titles[0] in str(card["blocks"]) and "Asked by <@U0GRACE>" in str(card["blocks"])
        # Linus clicks: the server decides as Linus, and refuses him.
        assert await slack.sender.action(click("U0LINUS", "C1", card, cards.APPROVE)) == 200
        [refusal] = await slack.api.wait_for("chat.postEphemeral", user="U0LINUS")
        assert "Only <@U0GRACE>" in refusal.args["text"]
        assert live(slack.api.message_at("C1", card["ts"]))
        assert await slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE)) == 200
        await slack.api.wait_for_answer(DONE)
        assert outcome_of(await until_decided(slack, card)).endswith("Approved by <@U0GRACE>")
        assert server.task_creators(titles[0]) == ["U0GRACE"]

        await slack.sender.event(mention("C1", "U0GRACE", "and another one", "200.1"))
        card = await slack.api.card("C1", "200.1")
        assert await slack.sender.action(click("U0GRACE", "C1", card, cards.REJECT)) == 200
        await slack.api.wait_for_answer(NOT_MADE)
        assert outcome_of(await until_decided(slack, card)).endswith("Rejected by <@U0GRACE>")
        assert server.tasks_titled(titles[1]) == 0

        # Someone the workspace does not list: the server refuses the relay's run, and the
        # person gets the short apology (the reason is the server's one line, in the log).
        await slack.sender.event(mention("C1", "U0NOBODY", "make me a task", "300.1"))
        # The thread shows the status, then the apology as its one message.
        [said] = await slack.api.wait_for("chat.postMessage", thread_ts="300.1")
        assert said.args["text"].startswith("Sorry, something went wrong")
    assert len(server.model_requests()) == len(SLACK_TURNS)
    assert server.recorded_people() - {"seed"} == {"U0GRACE"}
