"""The hotel reference's three scenarios: waves planned one at a time, run in parallel."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from graph.runner import TurnRequest
from tests.support.hotel import hotel_registry

TODAY = "2026-11-22"


async def run(
    open_runner: Any, spec: str, message: str, workspace_url: str
) -> tuple[Any, list[dict], list]:
    events: list[dict] = []
    async with open_runner(hotel_registry(), model=spec, database_url=workspace_url) as runner:
        result = await runner.run_turn(
            TurnRequest(thread_id="hotel", user_id="guest", message=message, today=TODAY),
            on_event=events.append,
        )
        history = await runner.history("hotel")
    return result, events, history


def waves(history: list) -> list[list[str]]:
    """The tool names of each AI message that called tools, in order."""
    return [
        [call["name"] for call in m.tool_calls]
        for m in history
        if isinstance(m, AIMessage) and m.tool_calls
    ]


def assert_overlapped(events: list[dict], names: list[str]) -> None:
    """Every call of the wave ran at the same time as every other."""
    results = [e for e in events if e["type"] == "tool.result" and e["name"] in names]
    assert len(results) == len(names)
    latest_start = max(e["started"] for e in results)
    earliest_finish = min(e["finished"] for e in results)
    # Run one after another, the later call would start only after the earlier one
    # finished; how long the wave took in all is left to the bench, since a busy
    # machine stretches it.
    assert latest_start < earliest_finish, "the wave's calls did not overlap"


async def test_dates_known_one_wave(
    open_runner: Any, write_script: Any, workspace_url: str
) -> None:
    spec = write_script(
        [
            {
                "tool_calls": [
                    {
                        "name": "get_availability",
                        "args": {"check_in": "2027-01-17", "check_out": "2027-01-19"},
                    }
                ]
            },
            {"content": "Jan 17–19: a Queen at $149/night or a King Suite at $289/night."},
        ]
    )
    result, _, history = await run(
        open_runner, spec, "Check availability for January 17-19", workspace_url
    )
    assert result.status == "completed"
    assert waves(history) == [["get_availability"]]
    assert [c.name for c in result.tool_calls] == ["get_availability"]
    assert result.tool_calls[0].status == "ok"
    stay = result.tool_calls[0].result
    assert stay["nights"] == 2
    rooms = {room["room_type"]: room for room in stay["rooms"]}
    assert rooms["Queen"]["available"] and rooms["Queen"]["total"] == "$298"
    assert rooms["King Suite"]["available"]


async def test_one_night_in_hanukkah_two_waves(
    open_runner: Any, write_script: Any, workspace_url: str
) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}}]},
            {
                "tool_calls": [
                    {
                        "name": "get_availability",
                        "args": {"check_in": "2026-12-05", "check_out": "2026-12-06"},
                    }
                ]
            },
            {"content": "Hanukkah starts Dec 5, 2026. For Dec 5–6 a Queen is $149."},
        ]
    )
    result, _, history = await run(open_runner, spec, "one night in Hanukkah", workspace_url)
    assert result.status == "completed"
    assert waves(history) == [["resolve_holiday"], ["get_availability"]]
    holiday = result.tool_calls[0].result
    assert (holiday["start"], holiday["end"]) == ("2026-12-05", "2026-12-12")
    night = {room["room_type"]: room for room in result.tool_calls[1].result["rooms"]}
    # Both seeded King Suite bookings cover the first night of Hanukkah.
    assert night["King Suite"]["free"] == 0 and not night["King Suite"]["available"]
    assert night["Queen"]["available"]
    # The second wave was planned from the first wave's result, which the model saw.
    tool_results = [m for m in history if isinstance(m, ToolMessage)]
    assert "2026-12-05" in tool_results[0].text


async def test_hanukkah_and_next_weekend_parallel(
    open_runner: Any, write_script: Any, workspace_url: str
) -> None:
    spec = write_script(
        [
            {
                "tool_calls": [
                    {"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}},
                    {"name": "resolve_date_hint", "args": {"hint": "next weekend"}},
                ]
            },
            {
                "tool_calls": [
                    {
                        "name": "get_availability",
                        "args": {"check_in": "2026-12-05", "check_out": "2026-12-06"},
                    },
                    {
                        "name": "get_availability",
                        "args": {"check_in": "2026-11-27", "check_out": "2026-11-29"},
                    },
                ]
            },
            {"content": "Both ranges have rooms: Hanukkah (Dec 5) and next weekend (Nov 27–29)."},
        ]
    )
    result, events, history = await run(
        open_runner, spec, "Check Hanukkah and next weekend", workspace_url
    )
    assert result.status == "completed"
    assert waves(history) == [
        ["resolve_holiday", "resolve_date_hint"],
        ["get_availability", "get_availability"],
    ]
    weekend = result.tool_calls[1].result
    assert (weekend["check_in"], weekend["check_out"]) == ("2026-11-27", "2026-11-29")
    first_wave = [e for e in events if e["type"] == "tool.result"][:2]
    assert_overlapped(first_wave, ["resolve_holiday", "resolve_date_hint"])
    second_wave = [e for e in events if e["type"] == "tool.result"][2:]
    assert_overlapped(second_wave, ["get_availability", "get_availability"])
    # Each wave is one act→tools round.
    assert [e["state"] for e in events if e["type"] == "agent_state"].count("executing_tools") == 2
