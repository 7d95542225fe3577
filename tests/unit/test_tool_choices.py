"""A kind's few records, listed in the offered tools' schemas (tools/choices.py)."""

from __future__ import annotations

import asyncio
import copy
from datetime import date

from sqlalchemy.exc import OperationalError

from tools.choices import CHOICES, choices, with_choices
from tools.declaration import GatherContext

CONTEXT = GatherContext(today=date(2026, 11, 24))


async def shelves(ctx: GatherContext) -> dict[str, list[str]]:
    return {"shelf": ["A1", "B2"], "bin": [f"bin {n}" for n in range(CHOICES + 1)]}


async def more_shelves(ctx: GatherContext) -> dict[str, list[str]]:
    return {"shelf": ["B2", "C3"], "crate": []}


async def broken(ctx: GatherContext) -> dict[str, list[str]]:
    raise OperationalError("select", {}, Exception("the database went away"))


def test_each_kind_lists_its_names_once_when_it_has_a_few() -> None:
    listed = asyncio.run(choices([shelves, broken, more_shelves], CONTEXT))
    # "bin" has too many to name in a question, "crate" none; a failing lister is skipped
    assert listed == {"shelf": ["A1", "B2", "C3"]}


def test_arguments_named_for_a_listed_kind_give_its_records_as_examples() -> None:
    schema = {
        "type": "function",
        "function": {
            "name": "stock_shelf",
            "description": "Stock a shelf.",
            "parameters": {
                "type": "object",
                "properties": {"shelf": {"type": "string"}, "count": {"type": "integer"}},
                "required": ["shelf"],
            },
        },
    }
    other = {"type": "function", "function": {"name": "ping", "description": "Ping."}}
    before = copy.deepcopy([schema, other])
    stocked, pinged = with_choices([schema, other], {"shelf": ["A1", "B2"]})
    properties = stocked["function"]["parameters"]["properties"]
    assert properties["shelf"] == {"type": "string", "examples": ["A1", "B2"]}
    assert properties["count"] == {"type": "integer"}
    assert stocked["function"]["parameters"]["required"] == ["shelf"]
    assert pinged == other
    assert [schema, other] == before  # the registry's own definitions are left as they were
    assert with_choices([schema], {}) == [schema]
