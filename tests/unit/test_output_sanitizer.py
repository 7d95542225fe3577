"""The output sanitizer: each of the seven steps on realistic garbled model output."""

from __future__ import annotations

import pytest

from screening import sanitizer

STEP_CASES = [
    # 1. tool-call XML written as text (DeepSeek, GLM, Minimax styles)
    (
        sanitizer.strip_garbled_tool_xml,
        'Let me check.\n<tool_call>{"name": "search_kb", "arguments": {"query": "coupon"}}'
        "</tool_call>",
        "Let me check.\n",
    ),
    (
        sanitizer.strip_garbled_tool_xml,
        '<minimax:tool_call><invoke name="lookup_client"><parameter name="name">Distex'
        "</parameter></invoke></minimax:tool_call>",
        "",
    ),
    (
        sanitizer.strip_garbled_tool_xml,
        "Rooms are free.<function_call>get_availability</function_call>",
        "Rooms are free.",
    ),
    # 2. tool calls downgraded to text, with their JSON
    (
        sanitizer.strip_downgraded_tool_call_text,
        '[Tool Call: search_kb]\n{"query": "coupon"}\n\nThe coupon SOP says 15% max.',
        "\nThe coupon SOP says 15% max.",
    ),
    (
        sanitizer.strip_downgraded_tool_call_text,
        'Here you go.\n[Tool Result for lookup_client]\n{"name": "Distex",\n "brands": 3}\n\n'
        "Distex has 3 brands.",
        "Here you go.\n\nDistex has 3 brands.",
    ),
    # 3. reasoning tags, closed, unclosed and with a swallowed opening tag
    (
        sanitizer.strip_thinking_tags,
        "<think>The user wants dates. Hanukkah 2026...</think>Hanukkah runs Dec 5–12.",
        "Hanukkah runs Dec 5–12.",
    ),
    (
        sanitizer.strip_thinking_tags,
        "<antThinking>plan</antThinking>A<Thought>x</Thought>B",
        "AB",
    ),
    (sanitizer.strip_thinking_tags, "Answer first.<thinking>and then I got cut", "Answer first."),
    (sanitizer.strip_thinking_tags, "so the answer is 42</think>It's 42.", "It's 42."),
    # 4. final wrappers keep their content
    (sanitizer.strip_final_tags, "<final>The task is drafted.</final>", "The task is drafted."),
    # 5. echoed system messages
    (
        sanitizer.strip_echoed_system_messages,
        "[System Message] Today is 2026-11-22.\nYou are agentloop.\n\nYes, Distex is active.",
        "\nYes, Distex is active.",
    ),
    # 6. stutter
    (
        sanitizer.collapse_consecutive_duplicate_blocks,
        "Queen room: $149.\n\nQueen room: $149.\n\n\nQueen room: $149.\n\nKing room: $189.",
        "Queen room: $149.\n\nKing room: $189.",
    ),
    (
        sanitizer.collapse_consecutive_duplicate_blocks,
        "A\n\nB\n\nA",
        "A\n\nB\n\nA",
    ),
    # 7. leading blank lines, indentation after them kept
    (sanitizer.strip_leading_blank_lines, "\n  \n\n  • first\n• second", "  • first\n• second"),
]


@pytest.mark.parametrize(("step", "raw", "clean"), STEP_CASES)
def test_each_step(step, raw: str, clean: str) -> None:
    assert step(raw) == clean


def test_steps_run_in_the_reference_order() -> None:
    assert [step.__name__ for step in sanitizer.STEPS] == [
        "strip_garbled_tool_xml",
        "strip_downgraded_tool_call_text",
        "strip_thinking_tags",
        "strip_final_tags",
        "strip_echoed_system_messages",
        "collapse_consecutive_duplicate_blocks",
        "strip_leading_blank_lines",
    ]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (
            "<think>check the SOP</think>\n\n<final>Coupons are capped at 15%.\n\n"
            "Coupons are capped at 15%.</final>\n",
            "Coupons are capped at 15%.",
        ),
        ('<tool_call>{"name": "x"}</tool_call>', ""),
        ("NO_REPLY", "NO_REPLY"),
        (
            "*Queen* room: $149/night, _breakfast included_.",
            "*Queen* room: $149/night, _breakfast included_.",
        ),
    ],
)
def test_whole_pipeline(raw: str, clean: str) -> None:
    assert sanitizer.sanitize(raw) == clean
