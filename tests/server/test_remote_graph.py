"""Scale-out: with AGENTLOOP_GRAPH_URL the CLI drives the graph a LangGraph Server runs."""

from __future__ import annotations

from langgraph_sdk import get_client

from graph.remote import server_thread_id
from tests.server.dev_server import DONE, DevServer, create_task
from tests.support.cli import ask_json, resume_json

TITLE = "Refresh the Garlic Press listing images"


async def test_ask_and_resume_through_the_server(dev_server: DevServer, tmp_path, write_script):
    data_dir = tmp_path / "worker"
    env = {
        "AGENTLOOP_GRAPH_URL": dev_server.url,
        "DATABASE_URL": dev_server.workspace_url,
        "AGENTLOOP_DATA_DIR": str(data_dir),
    }
    script = write_script([create_task(TITLE)])
    asked = ask_json("make the task", "--thread", "t-remote", "--model", script, env=env)
    assert asked["status"] == "needs_confirmation", asked
    [proposal] = asked["interrupts"][0]["proposals"]
    assert proposal["tool"] == "create_task" and proposal["args"]["title"] == TITLE
    assert dev_server.tasks_titled(TITLE) == 0

    # The decision comes from another process; the server's default model answers.
    code, done = resume_json("--thread", "t-remote", "--approve", env=env)
    assert code == 0 and done["status"] == "completed", done
    assert done["text"] == DONE
    assert [(c["name"], c["status"]) for c in done["tool_calls"]] == [("create_task", "ok")]
    assert dev_server.tasks_titled(TITLE) == 1

    code, again = resume_json("--thread", "t-remote", "--approve", env=env)
    assert code == 3 and again["status"] == "refused"
    assert dev_server.tasks_titled(TITLE) == 1

    # The turn lives on the server; the worker kept no checkpoints of its own.
    state = await get_client(url=dev_server.url).threads.get_state(server_thread_id("t-remote"))
    assert state["values"]["final_text"] == DONE
    assert not (data_dir / "checkpoints.sqlite").exists()
