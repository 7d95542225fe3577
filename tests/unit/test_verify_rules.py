"""verify's rules: each finds its problem and leaves good Slack mrkdwn alone."""

from __future__ import annotations

import pytest

from screening.answer_checks import check


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


def test_blockquotes_are_refused() -> None:
    [issue] = check("> Coupons are capped at 15%.")
    assert "blockquote" in issue


def test_markup_alone_is_reported_as_markup_not_as_empty() -> None:
    assert len(check('<tool_call>{"name": "x"}</tool_call>')) == 1
    [issue] = check("<think>only thoughts</think>")
    assert "empty" in issue


EVIDENCE_SOURCES = [
    {
        "type": "file",
        "cite": True,
        "reference": "coupon-policy.md",
        "excerpt": "Coupons for Thorinox are capped at fifteen percent and need approval "
        "from the account lead before launch.",
    }
]


def test_an_answer_using_a_document_must_cite_it() -> None:
    from screening.answer_checks import Evidence

    evidence = Evidence(question="What is the Thorinox coupon cap?", sources=EVIDENCE_SOURCES)
    answer = (
        "Thorinox coupons are capped at fifteen percent and need approval from the account lead."
    )
    [issue] = check(answer, evidence)
    assert "coupon-policy.md" in issue and "cit" in issue
    assert check(answer + " (source: coupon-policy.md)", evidence) == []
    assert check("I don't know the cap; shall I ask the team?", evidence) == []


def test_words_this_turns_tools_returned_need_no_citation() -> None:
    from screening.answer_checks import Evidence

    # The task list and the document share their words; the answer took them from the tool.
    tool_text = '{"tasks": [{"title": "Thorinox coupons capped at fifteen percent, approval '
    tool_text += 'from the account lead"}]}'
    evidence = Evidence(
        question="What is open for Thorinox?", sources=EVIDENCE_SOURCES, tool_text=tool_text
    )
    answer = "Open: Thorinox coupons capped at fifteen percent, approval from the account lead."
    assert check(answer, evidence) == []


@pytest.mark.parametrize(
    "claim",
    [
        "I've created the task for Garlic Press.",
        "Done! The booking has been created.",
        "We have updated the brand mapping.",
        "Room 12 is now booked for you.",
        "Done: the task is created.",
        "Task created in Thorinox's list.",
        "Your booking is confirmed for December 5-7.",
        "I went ahead and created it.",
        "The note was just saved.",
    ],
)
def test_a_claimed_change_needs_a_mutating_tool_result(claim: str) -> None:
    from screening.answer_checks import Evidence

    [issue] = check(claim, Evidence(question="create it"))
    assert "no tool made a change" in issue
    assert check(claim, Evidence(question="create it", changes=("create_task",))) == []


def test_an_answer_that_misses_the_question_is_sent_back() -> None:
    from screening.answer_checks import Evidence

    evidence = Evidence(question="Which brands does Distex have mapped?")
    [issue] = check("Sure, happy to help with that anytime.", evidence)
    assert "does not seem to answer" in issue and "distex" in issue
    assert check("Distex has Garlic Press, unmapped.", evidence) == []
    assert check("Sure, happy to help.", Evidence(question="Which brands?", tools_called=1)) == []


def test_a_long_answer_is_held_to_the_question_by_all_of_its_words() -> None:
    from screening.answer_checks import Evidence

    evidence = Evidence(question="how does approving a booking work?")
    opening = "Here is how that goes: reserve one suite of each kind for every guest party"
    long = f"{opening}, paying attention to nightly prices, dates, cleaning and staff. "
    assert check(long, evidence)  # nothing it says is about approving or bookings
    assert check(f"{long}It runs once you approve it.", evidence) == []


@pytest.mark.parametrize(
    "fact",
    [
        "Garlic Press is mapped to the Thorinox list.",
        "Room 12 was booked by Ann for those nights, so the King room is free.",
        "I created the task 'Coupon for Garlic Press' earlier; it is still open.",
        "That task already exists: it was created yesterday.",
        "The open tasks are: Refresh images, Coupon codes.",
    ],
)
def test_facts_and_earlier_changes_are_not_claims(fact: str) -> None:
    from screening.answer_checks import Evidence

    assert check(fact, Evidence(question="status?")) == []


def test_after_a_rejected_change_any_claim_is_sent_back() -> None:
    from screening.answer_checks import Evidence

    rejected = Evidence(question="create it", failed_changes=("create_task",))
    [issue] = check("Done: the task is created.", rejected)
    assert "create_task did not run" in issue
    assert check("OK, I did not create the task.", rejected) == []
