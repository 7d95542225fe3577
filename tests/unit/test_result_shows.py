"""A result as a person reads it: the lead line and the fields each tool declares it shows.

The declarations are the shipped tools' own; the layout is the embedded model's.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.models.shows import Shows
from local_model.conversation import Result
from local_model.replies import shown
from tools.registry import default_registry

SHOWS = {tool.name: tool.shows for tool in default_registry().tools() if tool.shows}

TASKS = {
    "count": 2,
    "more": False,
    "tasks": [
        {
            "id": 7,
            "title": "Refresh Garlic Press main images",
            "status": "open",
            "client": "Thorinox",
            "brand": "Garlic Press",
            "assignee": "Omar Haddad",
            "due_date": "2026-12-04",
            "product_ids": ["B0CGP12345"],
        },
        {
            "id": 8,
            "title": "Q1 PPC budget review",
            "status": "blocked",
            "client": "Thorinox",
            "brand": None,
            "assignee": None,
            "due_date": None,
            "product_ids": [],
        },
    ],
}


def read(name: str, data: Any, *, changed: bool = False) -> str:
    return shown(Result(name, json.dumps(data), False), SHOWS, changed)


def test_a_list_leads_with_how_many_of_what_then_a_record_per_line() -> None:
    text = read("list_tasks", TASKS)

    assert text.splitlines() == [
        "2 tasks:",
        "- Refresh Garlic Press main images — status: open, assignee: Omar Haddad, due date: "
        "2026-12-04 (Friday, December 4), client: Thorinox, brand: Garlic Press, "
        "product ids: B0CGP12345",
        "- Q1 PPC budget review — status: blocked, client: Thorinox",
    ]
    # What the tool returns beside the records, and ids, are not what a person asked for.
    assert "count" not in text and "more" not in text and "7" not in text


def test_an_empty_list_says_there_are_none() -> None:
    assert read("list_tasks", {"count": 0, "more": False, "tasks": []}) == "No tasks."


def test_one_record_is_its_title_and_the_declared_fields() -> None:
    found = {
        "status": "found",
        "client": {
            "id": 1,
            "name": "Thorinox",
            "notes": "Kitchen tools; Amazon US only",
            "brands": [{"id": 1, "name": "Garlic Press", "mapped": True}],
            "team": [
                {"name": "Omar Haddad", "title": "Designer", "assignment_role": "designer"},
                {"name": "Lena Park", "title": "Account manager", "assignment_role": "am"},
            ],
        },
    }

    assert read("lookup_client", found) == (
        "Found the client:\n"
        "Thorinox — notes: Kitchen tools; Amazon US only, brands: Garlic Press, "
        "team: Omar Haddad (designer); Lena Park (am)"
    )


def test_a_change_says_what_was_done_without_its_draft() -> None:
    created = {
        "status": "created",
        "task": {
            "id": 31,
            "client": "Thorinox",
            "brand": "Garlic Press",
            "title": "Create a coupon code for Garlic Press",
            "description": "20% off\n\nChecklist (Coupon code setup SOP):\n1. Open Seller Central",
            "status": "open",
            "assignee": None,
            "due_date": "2026-12-01",
            "product_ids": [],
            "created_by": "U0GRACE",
        },
        "draft": {
            "title": "Create a coupon code for Garlic Press",
            "description": "20% off\n\nChecklist (Coupon code setup SOP):\n1. Open Seller Central",
            "sop": {"id": 4, "title": "Coupon code setup SOP"},
            "product_ids": [],
            "missing": ["which ASINs the coupon covers"],
        },
    }

    text = read("create_task", created, changed=True)

    assert text == (
        "Created the task:\n"
        "Create a coupon code for Garlic Press — client: Thorinox, brand: Garlic Press, "
        "due date: 2026-12-01 (Tuesday, December 1), sop: Coupon code setup SOP, "
        "missing: which ASINs the coupon covers"
    )
    assert "Checklist" not in text and "U0GRACE" not in text


def test_the_lead_line_is_filled_from_the_result() -> None:
    rooms = {
        "check_in": "2027-01-17",
        "check_out": "2027-01-19",
        "nights": 2,
        "guests": 2,
        "rooms": [
            {
                "room_type": "Queen",
                "max_guests": 2,
                "free": 3,
                "nightly_rates": [
                    {"date": "2027-01-17", "rate": "$149"},
                    {"date": "2027-01-18", "rate": "$149"},
                ],
                "total": "$298",
                "available": True,
            }
        ],
    }

    lead, row = read("get_availability", rooms).splitlines()

    assert lead == (
        "1 room type from 2027-01-17 (Sunday, January 17) to 2027-01-19 (Tuesday, January 19):"
    )
    assert row.startswith("Queen — free: 3, total: $298, nightly rates: 2027-01-17")


def test_a_room_type_that_is_not_free_reads_as_fully_booked() -> None:
    def room(name: str, free: int, booked: str | None) -> dict[str, Any]:
        return {"room_type": name, "free": free, "total": "$289", "booked": booked}

    rooms = {"check_in": "2026-12-05", "check_out": "2026-12-06", "rooms": []}
    rooms["rooms"] = [room("Queen", 5, None), room("King Suite", 0, "fully booked")]

    _, queen, king = read("get_availability", rooms).splitlines()

    assert queen.startswith("- Queen — free: 5")
    assert king.startswith("- King Suite (fully booked) — free: 0")


def test_an_undeclared_tool_shows_every_field_but_ids_and_empty_ones() -> None:
    result = {"status": "found", "id": 3, "more": [], "note": None, "items": [{"id": 1, "a": 1}]}

    assert read("mcp_lookup", result) == (
        "Here is what mcp_lookup found:\nstatus: found\nitems:\n- a: 1"
    )


def test_a_name_that_matched_nothing_reads_as_such_and_a_choice_as_a_question() -> None:
    unknown = {"status": "not_found", "field": "client", "query": "Thorx", "suggestions": ["A"]}
    nothing_near = {"status": "not_found", "field": "brand", "query": "Zz", "known": ["B", "C"]}
    ambiguous = {"status": "ambiguous", "field": "brand", "candidates": [{"id": 1, "name": "X"}]}

    assert read("list_tasks", unknown).splitlines() == [
        'No client matches "Thorx". Did you mean:',
        "A",
    ]
    assert read("lookup_brand", nothing_near).splitlines() == [
        'No brand matches "Zz". The brands there are:',
        "- B",
        "- C",
    ]
    assert read("resolve_brand", ambiguous).splitlines() == [
        "More than one brand matches:",
        "- X",
        "Which one do you mean?",
    ]


def test_a_failure_says_why_as_before() -> None:
    refused = Result(
        "create_task", "Not executed: U0GRACE rejected this change. Do not retry.", True
    )

    assert shown(refused, SHOWS) == "I did not create the task: U0GRACE rejected this change."


@pytest.mark.parametrize(
    ("shows", "result", "lead", "rows"),
    [
        # A list on the way gives each item's value, labelled with the list's key.
        (
            Shows(fields=("name", "team.name")),
            {"name": "A", "team": [{"name": "B"}, {"name": "C"}]},
            "",
            ((("", "A"), ("team", ["B", "C"])),),
        ),
        # Keys joined by "+": the first one's value, the others' beside it.
        (
            Shows(fields=("name", "team.name+team_role")),
            {"name": "A", "team": [{"name": "B", "team_role": "lead_designer"}, {"name": "C"}]},
            "",
            ((("", "A"), ("team", ["B (lead designer)", "C"])),),
        ),
        # Through records, the last key labels the value.
        (
            Shows(fields=("task.title", "task.due_date")),
            {"task": {"title": "T", "due_date": "2026-12-01"}},
            "",
            ((("", "T"), ("due date", "2026-12-01")),),
        ),
        # A lead naming a field the result lacks is left out, not an error.
        (Shows(fields=("a",), lead={"": "about {missing}"}), {"a": 1}, "", ((("", 1),),)),
        # The lead line by the result's status, nested fields included.
        (
            Shows(fields=("a",), lead={"done": "Did {what[name]}", "": "Other"}),
            {"status": "done", "what": {"name": "it"}, "a": 1},
            "Did it",
            ((("", 1),),),
        ),
        (
            Shows(
                fields=("brand",),
                records="missing",
                noun="brand missing a mapping",
                nouns="brands missing a mapping",
                lead={"": "of {checked} checked"},
            ),
            {"checked": 3, "missing": [{"brand": "X"}]},
            "1 brand missing a mapping of 3 checked",
            ((("", "X"),),),
        ),
    ],
)
def test_a_declaration_reads_its_fields_and_lead(
    shows: Shows, result: dict[str, Any], lead: str, rows: tuple[Any, ...]
) -> None:
    reading = shows.read(result)

    assert reading is not None and (reading.lead, reading.rows) == (lead, rows)


def test_a_declaration_without_fields_leaves_the_whole_result_to_the_reader() -> None:
    assert Shows(fields=()).read({"a": 1}) is None
    assert Shows(fields=("a",), records="rows").read({"b": 1}) is None
