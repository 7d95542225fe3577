"""The authorization table of docs/studio.md, one test per row: langgraph-sdk against an
authenticating `langgraph dev`, over SQLite and PostgreSQL workspaces.

Grace and Linus are members, Ada an admin, Maya a viewer; `slack-worker` is a relay.
"""

from __future__ import annotations

import uuid
from typing import Any

from langgraph_sdk.errors import NotFoundError

from tests.server.dev_server import LISTED_MODEL, DevServer, create_task, refusal

ASK = {"messages": [{"type": "human", "content": "hello"}]}
HELLO = "Hello! What can I do for you?"


async def started_by(server: DevServer, user: str, script: str) -> str:
    """A thread `user` started and asked in (its run answered by `script`); its id."""
    client = server.client(user)
    thread = await client.threads.create()
    await client.runs.wait(thread["thread_id"], "agent", input=ASK, context={"model": script})
    return str(thread["thread_id"])


def answers(write_script: Any) -> str:
    return write_script([{"content": HELLO}])


async def test_every_caller_reads_and_searches_every_thread(
    authed_server: DevServer, write_script
) -> None:
    thread_id = await started_by(authed_server, "U0GRACE", answers(write_script))
    for user in ("U0MAYA", "U0LINUS", "U0ADA", "slack-worker"):
        client = authed_server.client(user)
        thread = await client.threads.get(thread_id)
        assert thread["metadata"]["asker"] == "U0GRACE"
        state = await client.threads.get_state(thread_id)
        assert state["values"]["final_text"] == HELLO
        assert await client.threads.get_history(thread_id, limit=2)
        [run] = await client.runs.list(thread_id)
        assert run["status"] == "success"
        found = await client.threads.search(metadata={"asker": "U0GRACE"}, limit=100)
        assert thread_id in {t["thread_id"] for t in found}
        assert await client.threads.count(metadata={"asker": "U0GRACE"}) >= 1


async def test_anyone_starts_a_thread_and_is_recorded_as_its_asker(
    authed_server: DevServer, write_script
) -> None:
    maya = authed_server.client("U0MAYA")
    made = await maya.threads.create(metadata={"asker": "U0ADA", "topic": "ppc"})
    assert made["metadata"] == {"asker": "U0MAYA", "topic": "ppc"}
    # A run that creates its thread starts it: for the person, or for whom a relay names.
    for user, context, asker in (
        ("U0LINUS", {"user_id": "U0ADA"}, "U0LINUS"),
        ("slack-worker", {"user_id": "U0GRACE"}, "U0GRACE"),
    ):
        client = authed_server.client(user)
        thread_id = str(uuid.uuid4())
        await client.runs.wait(
            thread_id,
            "agent",
            input=ASK,
            context={**context, "model": answers(write_script)},
            if_not_exists="create",
            metadata={"asker": "U0ADA"},
        )
        assert (await client.threads.get(thread_id))["metadata"]["asker"] == asker


async def test_anyone_asks_in_any_thread(authed_server: DevServer, write_script) -> None:
    thread_id = await started_by(authed_server, "U0GRACE", answers(write_script))
    maya = authed_server.client("U0MAYA")
    out = await maya.runs.wait(
        thread_id, "agent", input=ASK, context={"model": answers(write_script)}
    )
    assert out["final_text"] == HELLO
    state = await maya.threads.get_state(thread_id)
    assert state["values"]["asker"] == {"user_id": "U0MAYA", "role": "viewer"}


async def test_only_the_asker_and_admins_change_a_threads_metadata(
    authed_server: DevServer, write_script
) -> None:
    thread_id = await started_by(authed_server, "U0GRACE", answers(write_script))
    for user in ("U0LINUS", "U0MAYA", "slack-worker"):
        client = authed_server.client(user)
        detail = await refusal(client.threads.update(thread_id, metadata={"topic": "mine"}))
        assert (
            detail
            == "Only U0GRACE (who started it) or an admin may change the metadata of this thread."
        )
    grace = authed_server.client("U0GRACE")
    assert (await grace.threads.update(thread_id, metadata={"topic": "ppc"}))["metadata"][
        "topic"
    ] == "ppc"
    # Nobody hands a thread over but an admin.
    detail = await refusal(grace.threads.update(thread_id, metadata={"asker": "U0LINUS"}))
    assert detail == "Only an admin may change who started a thread on this server."
    ada = authed_server.client("U0ADA")
    await ada.threads.update(thread_id, metadata={"topic": "audit"})
    thread = await grace.threads.get(thread_id)
    assert thread["metadata"]["topic"] == "audit" and thread["metadata"]["asker"] == "U0GRACE"


async def test_only_admins_and_relays_edit_a_threads_state(
    authed_server: DevServer, write_script
) -> None:
    thread_id = await started_by(authed_server, "U0MAYA", answers(write_script))
    edit = {"final_text": "edited"}
    for user in ("U0MAYA", "U0GRACE"):
        detail = await refusal(authed_server.client(user).threads.update_state(thread_id, edit))
        assert detail.startswith("Only an admin may edit a thread's state")
    await authed_server.client("U0ADA").threads.update_state(thread_id, edit)
    await authed_server.client("slack-worker").threads.update_state(thread_id, {"final_text": "r"})
    state = await authed_server.client("U0MAYA").threads.get_state(thread_id)
    assert state["values"]["final_text"] == "r"


async def test_only_the_asker_and_admins_copy_a_thread(
    authed_server: DevServer, write_script
) -> None:
    thread_id = await started_by(authed_server, "U0GRACE", answers(write_script))
    for user in ("U0LINUS", "U0MAYA", "slack-worker"):
        detail = await refusal(authed_server.client(user).threads.copy(thread_id))
        assert detail == "Only U0GRACE (who started it) or an admin may copy this thread."
    before = await authed_server.client("U0ADA").threads.count()
    for user in ("U0GRACE", "U0ADA"):
        client = authed_server.client(user)
        copied = await client.threads.copy(thread_id)
        assert copied["thread_id"] != thread_id
        assert copied["metadata"]["asker"] == "U0GRACE"
        state = await client.threads.get_state(copied["thread_id"])
        assert state["values"]["final_text"] == HELLO
    assert await authed_server.client("U0ADA").threads.count() == before + 2


async def test_only_the_asker_and_admins_delete_a_thread_or_its_runs(
    authed_server: DevServer, write_script
) -> None:
    title = "Authorization: kept from deletion"
    grace = authed_server.client("U0GRACE")
    thread = await grace.threads.create()
    thread_id = thread["thread_id"]
    await grace.runs.wait(
        thread_id,
        "agent",
        input={"messages": [{"type": "human", "content": "make the task"}]},
        context={"model": write_script([create_task(title)])},
    )
    [run] = await grace.runs.list(thread_id)
    # A change waits in Grace's thread: nobody else but an admin may delete it or its runs.
    for user in ("U0MAYA", "U0LINUS", "slack-worker"):
        client = authed_server.client(user)
        detail = await refusal(client.threads.delete(thread_id))
        assert detail == "Only U0GRACE (who started it) or an admin may delete this thread."
        detail = await refusal(client.runs.delete(thread_id, run["run_id"]))
        assert detail == "Only U0GRACE (who started it) or an admin may delete runs of this thread."
        await refusal(client.threads.prune([thread_id]))
    state = await grace.threads.get_state(thread_id)
    assert [i["value"]["proposals"][0]["args"]["title"] for i in state["interrupts"]] == [title]
    await grace.threads.delete(thread_id)
    try:
        await grace.threads.get(thread_id)
        raise AssertionError("the thread is still there")
    except NotFoundError:
        pass
    # An admin may delete anyone's thread (pruning many at once is theirs alone).
    linus_thread = await started_by(authed_server, "U0LINUS", answers(write_script))
    await authed_server.client("U0ADA").threads.delete(linus_thread)
    detail = await refusal(grace.threads.prune([str(uuid.uuid4())]))
    assert detail == "Only an admin may delete threads in bulk on this server."


async def test_members_and_relays_stop_runs_a_viewer_does_not(
    authed_server: DevServer, write_script
) -> None:
    grace = authed_server.client("U0GRACE")
    thread = await grace.threads.create()
    thread_id = thread["thread_id"]
    slow = write_script([{"content": "Late.", "delay_s": 30}])
    run = await grace.runs.create(thread_id, "agent", input=ASK, context={"model": slow})
    maya = authed_server.client("U0MAYA")
    detail = await refusal(maya.runs.cancel(thread_id, run["run_id"]))
    assert detail == "A viewer may not stop a thread's runs."
    # Stopping every run of the server at once is an admin's.
    detail = await refusal(authed_server.client("U0LINUS").runs.cancel_many(status="pending"))
    assert detail == "Only an admin may cancel runs across threads on this server."
    await authed_server.client("U0LINUS").runs.cancel(thread_id, run["run_id"], wait=True)
    assert (await maya.runs.get(thread_id, run["run_id"]))["status"] == "interrupted"


async def test_everyone_uses_assistants_admins_configure_them(
    authed_server: DevServer,
) -> None:
    linus = authed_server.client("U0LINUS")
    [agent] = await linus.assistants.search(graph_id="agent")
    assert (await authed_server.client("U0MAYA").assistants.get(agent["assistant_id"]))[
        "graph_id"
    ] == "agent"
    detail = await refusal(linus.assistants.create("agent", name="mine"))
    assert detail == "Only an admin may create assistants on this server."
    ada = authed_server.client("U0ADA")
    # An admin configures assistants with the models the server runs, no other.
    detail = await refusal(ada.assistants.create("agent", context={"model": "openai:gpt-4o"}))
    assert detail.startswith("This server does not run the model 'openai:gpt-4o'")
    made = await ada.assistants.create("agent", name="cheap", context={"model": LISTED_MODEL})
    detail = await refusal(linus.assistants.update(made["assistant_id"], name="renamed"))
    assert detail == "Only an admin may change assistants on this server."
    detail = await refusal(linus.assistants.delete(made["assistant_id"]))
    assert detail == "Only an admin may delete assistants on this server."
    await ada.assistants.update(made["assistant_id"], name="cheaper")
    await ada.assistants.delete(made["assistant_id"])


async def test_everyone_reads_crons_admins_schedule_them(authed_server: DevServer) -> None:
    linus = authed_server.client("U0LINUS")
    yearly = {"schedule": "0 9 1 1 *", "input": ASK}
    detail = await refusal(linus.crons.create("agent", **yearly))
    assert detail == "Only an admin may schedule runs on this server."
    ada = authed_server.client("U0ADA")
    detail = await refusal(ada.crons.create("agent", context={"model": "openai:gpt-4o"}, **yearly))
    assert detail.startswith("This server does not run the model 'openai:gpt-4o'")
    cron = await ada.crons.create("agent", **yearly)
    assert cron["cron_id"] in {c["cron_id"] for c in await linus.crons.search()}
    detail = await refusal(linus.crons.delete(cron["cron_id"]))
    assert detail == "Only an admin may delete scheduled runs on this server."
    await ada.crons.delete(cron["cron_id"])


async def test_everyone_reads_the_store_admins_write_it(authed_server: DevServer) -> None:
    namespace = ["team", uuid.uuid4().hex[:8]]
    linus = authed_server.client("U0LINUS")
    detail = await refusal(linus.store.put_item(namespace, "k", {"v": 1}))
    assert detail == "Only an admin may write to the store on this server."
    ada = authed_server.client("U0ADA")
    await ada.store.put_item(namespace, "k", {"v": 1})
    assert (await linus.store.get_item(namespace, "k"))["value"] == {"v": 1}
    found = await authed_server.client("U0MAYA").store.search_items(namespace)
    assert [item["key"] for item in found["items"]] == ["k"]
    await refusal(linus.store.delete_item(namespace, "k"))
    await ada.store.delete_item(namespace, "k")
