"""What a turn's tools found, shown when the turn ends without a verified draft."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from prompts.findings import tool_findings, with_findings


def call(call_id: str, name: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {}, "id": call_id}])


def result(call_id: str, data: object, status: str = "success") -> ToolMessage:
    return ToolMessage(json.dumps(data), tool_call_id=call_id, status=status)  # type: ignore[arg-type]


def test_each_successful_result_becomes_a_line_of_its_facts() -> None:
    holiday = {"holiday": "Hanukkah", "start": "2026-12-04", "end": "2026-12-12", "note": ""}
    tasks = {"client": "Thorinox", "tasks": [{"title": "Refresh images"}, {"title": "PPC"}]}
    turn = [
        HumanMessage("When is Hanukkah, and what is open for Thorinox?"),
        call("c1", "resolve_holiday"),
        result("c1", holiday),
        call("c2", "list_tasks"),
        result("c2", tasks),
        call("c3", "search_kb"),
        result("c3", {"error": "the search failed"}),
        call("c4", "lookup_brand"),
        result("c4", {"brands": []}, status="error"),
    ]
    assert tool_findings(turn) == [
        "resolve_holiday: holiday Hanukkah, start 2026-12-04, end 2026-12-12",
        "list_tasks: client Thorinox, tasks: Refresh images; PPC",
    ]


def test_without_findings_the_reason_stands_alone() -> None:
    assert with_findings("I stopped.", []) == "I stopped."
    assert with_findings("I stopped.", ["a: b"]) == (
        "I stopped.\nHere is what my lookups returned:\n• a: b"
    )
