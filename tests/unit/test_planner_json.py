"""The planner's reader of the JSON its model calls were asked to reply with."""

from __future__ import annotations

import pytest

from nodes.planner.model_json import reply_json


@pytest.mark.parametrize(
    "text",
    [
        '{"steps": ["look up Distex", "list its tasks"]}',
        '```json\n{"steps": ["look up Distex", "list its tasks"]}\n```',
        'Here is the plan:\n```\n{"steps": ["look up Distex", "list its tasks"]}\n```\nDone.',
        'Sure. {"steps": ["look up Distex", "list its tasks"]} Let me know.',
        # Cut short by the model's token limit: the object is closed for it.
        '{"steps": ["look up Distex", "list its tasks"',
    ],
    ids=["bare", "fenced", "fenced-amid-prose", "amid-prose", "cut-short"],
)
def test_reads_the_object(text: str) -> None:
    assert reply_json(text) == {"steps": ["look up Distex", "list its tasks"]}


@pytest.mark.parametrize("text", ["", "1. look up Distex\n2. list its tasks", '["a", "b"]'])
def test_no_object_is_none(text: str) -> None:
    assert reply_json(text) is None
