"""MCP servers in-process: a dead server is reopened, a large result is kept, asks are read."""

from __future__ import annotations

import json
import os
import signal
from datetime import date
from pathlib import Path

import pytest

from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tests.support.mcp.desk import Desk
from tools.declaration import ToolContext
from tools.pack_loading import PackError
from tools.registry import open_registry

LIST = {"tool_calls": [{"name": "tickets__list_tickets", "args": {"status": "open"}}]}


def reader(db=None, thread_id: str = "t") -> ToolContext:
    return ToolContext(
        today=date(2026, 12, 2), timezone="UTC", user_id="U0GRACE", user_role="member",
        run_id="r", thread_id=thread_id, db=db,
    )  # fmt: skip


async def test_a_session_whose_server_died_is_reopened_for_the_next_call(tmp_path: Path) -> None:
    desk = Desk(tmp_path)
    pid_file = tmp_path / "server.pid"
    config = desk.write_config(
        {"tickets": desk.stdio(trust="annotations", env={"TICKETS_PID": str(pid_file)})}
    )
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", mcp_config=config)
    async with open_registry(settings) as registry:
        tool = registry.get("tickets__list_tickets")
        assert tool is not None
        first = await tool.run(tool.validate({"status": "open"}), reader())
        assert {t["ticket"] for t in first["tickets"]} == {"41", "42"}
        dead = int(pid_file.read_text())
        os.kill(dead, signal.SIGKILL)
        again = await tool.run(tool.validate({"status": "closed"}), reader())
        assert [t["ticket"] for t in again["tickets"]] == ["43"]
        assert int(pid_file.read_text()) != dead  # a new server process answered
    assert [call["args"]["status"] for call in desk.calls("list_tickets")] == ["open", "closed"]
    # The server's own stderr went to its log, not to the person's terminal.
    assert (tmp_path / "data" / "mcp-tickets.log").exists()


async def test_arguments_are_checked_against_the_servers_schema(tmp_path: Path) -> None:
    desk = Desk(tmp_path)
    config = desk.write_config({"tickets": desk.stdio(trust="annotations")})
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", mcp_config=config)
    async with open_registry(settings) as registry:
        tool = registry.get("tickets__close_ticket")
        assert tool is not None and tool.mutating
        schema = tool.openai_schema()["function"]["parameters"]
        assert schema["required"] == ["ticket"]
        try:
            tool.validate({"ticket": 42})
        except ValueError as exc:
            assert "ticket: 42 is not of type 'string'" in str(exc)
        else:
            raise AssertionError("a number was accepted where the schema takes a string")


async def test_a_large_result_is_summarized_and_can_be_loaded_whole(
    tmp_path: Path, make_settings, write_script, workspace_url: str
) -> None:
    desk = Desk(tmp_path)
    many = desk.stdio(trust="annotations", env={"TICKETS_MANY": "300"})
    config = desk.write_config({"tickets": many})
    answer = {"content": "There are 302 open tickets."}
    settings = make_settings(
        database_url=workspace_url, mcp_config=config, model=write_script([LIST, answer])
    )
    async with Runner.open(settings) as runner:
        request = TurnRequest(thread_id="big", user_id="U0GRACE", message="what's open?")
        result = await runner.run_turn(request)
        assert result.status == "completed", result
        [kept] = [m for m in await runner.history("big") if m.type == "tool"]
        assert len(kept.text) < 4_000
        summary = json.loads(kept.text)
        loader = runner.registry.get("load_prior_skill_result")
        assert loader is not None
        whole = await loader.run(
            loader.validate({"result_id": summary["result_id"]}), reader(runner.db, "big")
        )
    assert len(json.dumps(whole)) > 4_000
    assert len(whole["result"]["tickets"]) == 302


async def test_a_servers_asks_file_gives_its_tools_examples(tmp_path: Path) -> None:
    desk = Desk(tmp_path)
    (tmp_path / "asks.toml").write_text(
        '[tickets__close_ticket]\nasks = ["mark help desk ticket 42 as done", "shut 41"]\n',
        encoding="utf-8",
    )
    config = desk.write_config({"tickets": desk.stdio(asks="asks.toml")})  # beside the file
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", mcp_config=config)
    async with open_registry(settings) as registry:
        close = registry.get("tickets__close_ticket")
        listing = registry.get("tickets__list_tickets")
        assert close is not None and listing is not None
        assert close.examples == ("mark help desk ticket 42 as done", "shut 41")
        assert listing.examples == (listing.summary,)  # a tool the file does not name


async def test_an_asks_file_naming_a_tool_the_server_lacks_is_one_line(tmp_path: Path) -> None:
    desk = Desk(tmp_path)
    asks = tmp_path / "asks.toml"
    asks.write_text('[close_ticket]\nasks = ["shut 41"]\n', encoding="utf-8")
    # Even an optional server's: a wrong file is a mistake in the config, not a server away.
    config = desk.write_config({"tickets": desk.stdio(asks=str(asks), optional=True)})
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", mcp_config=config)
    with pytest.raises(PackError) as raised:
        async with open_registry(settings):
            pass
    assert str(raised.value) == (
        f"MCP server 'tickets': its asks file {asks} names no tool of it: 'close_ticket'"
    )
