"""verify's rules: each finds its problem and leaves good Slack mrkdwn alone."""

from __future__ import annotations

import pytest

from nodes.verify import check


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("This is **important**.", "double asterisks"),
        ("# Rooms\nQueen: $149", "headings"),
        ("See [the SOP](https://example.com/sop).", "<url|text>"),
        ('<tool_call>{"name": "x"}</tool_call>', "tool-call markup"),
        ("<function_call>get</function_call> then", "tool-call markup"),
    ],
)
def test_each_rule_catches_its_problem(text: str, needle: str) -> None:
    issues = check(text)
    assert len(issues) == 1 and needle in issues[0]


@pytest.mark.parametrize(
    "text",
    [
        "*Queen* room: $149/night, _breakfast included_.",
        "• Dec 5–12: Hanukkah\n• Nov 27–29: next weekend",
        "See <https://example.com/sop|the SOP>. Price is 2 * 3 = 6.",
        "C# is fine, and so is issue #12.",
        "NO_REPLY",
    ],
)
def test_good_mrkdwn_passes(text: str) -> None:
    assert check(text) == []
